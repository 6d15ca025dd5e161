/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduLdltCache.H"
#include "gpuLduDevices.H"

namespace Foam
{
    defineTypeNameAndDebug(gpuLduLdltCache, 0);
}


Foam::gpuLduLdltCache::gpuLduLdltCache(const fvMesh& mesh)
:
    gpuLduMeshObject<gpuLduLdltCache>(mesh),
    addr_(nullptr),
    nCells_(-1),
    nFaces_(-1)
{}


void Foam::gpuLduLdltCache::restart(const lduAddressing& addr)
{
    factorisations_.clear();

    const label nCells = addr.size();
    const label nFaces = addr.lowerAddr().size();
    gpuLdu::LduAddressingView view;
    view.nCells = nCells;
    view.nFaces = nFaces;
    view.lower = addr.lowerAddr().cdata();
    view.upper = addr.upperAddr().cdata();
    columns_ = gpuLdu::lduLowerColumns(view);

    addr_ = &addr;
    nCells_ = nCells;
    nFaces_ = nFaces;

    if (debug)
    {
        Info<< "gpuLduLdltCache: lower triangle of " << nCells << " cells, "
            << nFaces << " faces: " << columns_.rows.size() << " entries"
            << endl;
    }
}


gpuLdu::SymmetricPattern Foam::gpuLduLdltCache::pattern
(
    const lduAddressing& addr
)
{
    if
    (
        addr_ != &addr
     || nCells_ != addr.size()
     || nFaces_ != addr.lowerAddr().size()
    )
    {
        restart(addr);
    }

    return columns_.pattern();
}


void Foam::gpuLduLdltCache::gather
(
    const lduMatrix& matrix,
    std::vector<double>& values
) const
{
    // A(j, j) = diag[j]; A(u(f), l(f)) = lower[f] (= upper[f]: symmetric)
    const scalarField& diag = matrix.diag();
    const scalarField& lower = matrix.lower();
    const label nCells = diag.size();

    values.resize(columns_.rows.size());
    for (std::size_t p = 0; p < values.size(); ++p)
    {
        const label v = columns_.valueOf[p];
        values[p] = v < nCells ? diag[v] : lower[v - nCells];
    }
}


Foam::gpuLduLdltCache::factorisation& Foam::gpuLduLdltCache::of
(
    const word& fieldName,
    const lduAddressing& addr,
    gpuLdu::Executor executor,
    gpuLdu::LdltOrdering ordering,
    bool& built
)
{
    const gpuLdu::SymmetricPattern lower = pattern(addr);

    auto iter = factorisations_.find(fieldName);
    built =
        iter == factorisations_.end()
     || (*iter)->solver->executor() != executor
     || (*iter)->solver->analysis().ordering != ordering;

    if (built)
    {
        // The old one (on another executor or in another ordering) goes
        // first, its memory with it; then the symbolic analysis (throws
        // gpuLdu::Error)
        if (iter != factorisations_.end())
        {
            factorisations_.erase(iter);
        }
        autoPtr<factorisation> f(new factorisation);
        if (executor == gpuLdu::Executor::gpu)
        {
            gpuLduDevices::makeDeviceCurrent();
        }
        for
        (
            auto other = factorisations_.cbegin();
            other != factorisations_.cend();
            ++other
        )
        {
            const gpuLdu::LdltSolver& s = *(*other)->solver;
            if (s.executor() == executor && s.analysis().ordering == ordering)
            {
                f->solver = s.withSameAnalysis();
                f->analysisOf = other.key();
                break;
            }
        }
        if (!f->solver)
        {
            f->solver = gpuLdu::makeLdltSolver(executor, lower, ordering);
        }
        factorisations_.set(fieldName, f.ptr());
        iter = factorisations_.find(fieldName);
    }
    return **iter;
}


// ************************************************************************* //
