/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduLdltCache.H"

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
    const labelUList& l = addr.lowerAddr();
    const labelUList& u = addr.upperAddr();
    const label nFaces = l.size();

    // Column j: its diagonal, then one entry per face owned by j (rows
    // u(f) > j), in face order; counted first, then placed
    colStart_.assign(nCells + 1, 0);
    for (label j = 0; j < nCells; ++j)
    {
        colStart_[j + 1] = 1;
    }
    for (label f = 0; f < nFaces; ++f)
    {
        ++colStart_[l[f] + 1];
    }
    for (label j = 0; j < nCells; ++j)
    {
        colStart_[j + 1] += colStart_[j];
    }

    rows_.resize(colStart_[nCells]);
    facePlace_.resize(nFaces);
    std::vector<int> next(colStart_.begin(), colStart_.end() - 1);
    for (label j = 0; j < nCells; ++j)
    {
        rows_[next[j]++] = j;
    }
    for (label f = 0; f < nFaces; ++f)
    {
        facePlace_[f] = next[l[f]]++;
        rows_[facePlace_[f]] = u[f];
    }

    addr_ = &addr;
    nCells_ = nCells;
    nFaces_ = nFaces;

    if (debug)
    {
        Info<< "gpuLduLdltCache: lower triangle of " << nCells << " cells, "
            << nFaces << " faces: " << rows_.size() << " entries" << endl;
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

    gpuLdu::SymmetricPattern p;
    p.n = nCells_;
    p.colStart = colStart_.data();
    p.rows = rows_.data();
    return p;
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

    values.resize(rows_.size());
    forAll(diag, j)
    {
        values[colStart_[j]] = diag[j];
    }
    forAll(lower, f)
    {
        values[facePlace_[f]] = lower[f];
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
