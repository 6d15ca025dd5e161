/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "LDLTGPU.H"
#include "gpuLduCache.H"

#include <cmath>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(LDLTGPU, 0);

    // Symmetric matrices only: for an asymmetric one OpenFOAM's table lookup
    // fails and lists the valid solvers
    lduMatrix::solver::addsymMatrixConstructorToTable<LDLTGPU>
        addLDLTGPUSymMatrixConstructorToTable_;
}

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

void Foam::LDLTGPU::factorise(gpuLduLdltCache::factorisation& f) const
{
    f.stats = f.solver->factor(f.current.data());
    f.factored = f.current;
    f.nChangedSolves = 0;
    ++f.nFactorised;
}


bool Foam::LDLTGPU::prepare
(
    gpuLduLdltCache& ldlt,
    gpuLduLdltCache::factorisation& f,
    const label reuse
) const
{
    // The values of this solve, compared exactly with the factor's
    ldlt.gather(matrix_, f.current);
    f.nFactorised = 0;
    f.solveSeconds = 0;

    if (!f.factored.empty() && f.factored == f.current)
    {
        if (debug)
        {
            Info<< type() << ": " << fieldName_
                << ": factor reused (values unchanged)" << endl;
        }
        return false;
    }
    if (!f.factored.empty() && f.nChangedSolves < reuse)
    {
        ++f.nChangedSolves;
        if (debug)
        {
            Info<< type() << ": " << fieldName_
                << ": factor reused with changed values ("
                << f.nChangedSolves << " of " << reuse << ")" << endl;
        }
        return true;
    }

    const bool first = f.factored.empty();
    factorise(f);
    if (debug)
    {
        Info<< type() << ": " << fieldName_ << ": factorised ("
            << (first ? "first values" : "values changed") << ") in "
            << 1e3*f.stats.seconds << " ms, " << f.stats.nStaticPivots
            << " static pivots" << endl;
    }
    return false;
}


void Foam::LDLTGPU::correction
(
    gpuLduLdltCache::factorisation& f,
    const scalarField& r,
    scalarField& dx
) const
{
    // A rank whose residual is zero (its cells already solved) corrects
    // nothing; the core would too, at the price of a solve
    bool any = false;
    forAll(r, i)
    {
        if (r[i] != 0)
        {
            any = true;
            break;
        }
    }
    if (!any)
    {
        dx = 0;
        return;
    }

    // Tolerance 0, no refinement steps: the plain solve with the factor,
    // refined out here against the whole matrix (interfaces included)
    const gpuLdu::SolveResult s = f.solver->solve(r.cdata(), dx.data(), 0, 0);
    f.solveSeconds += s.times.upload + s.times.setup + s.times.iterate;
}


void Foam::LDLTGPU::notConverged
(
    const solverPerformance& perf,
    const gpuLduLdltCache::factorisation& f
) const
{
    if (!anyCoupled())
    {
        errors().refinementStalled
        (
            perf.finalResidual(), perf.nIterations(), tolerance_, relTol_,
            f.stats.nStaticPivots
        );
        return;
    }
    errors().refinementNotConverged
    (
        perf.initialResidual(), perf.finalResidual(), perf.nIterations(),
        maxIter_, tolerance_, relTol_
    );
}


bool Foam::LDLTGPU::anyCoupled() const
{
    bool coupled = false;
    forAll(interfaces_, patchi)
    {
        if (interfaces_.set(patchi))
        {
            coupled = true;
        }
    }
    reduce(coupled, orOp<bool>(), Pstream::msgType(), matrix().mesh().comm());
    return coupled;
}


void Foam::LDLTGPU::logAnalysis
(
    const gpuLduLdltCache::factorisation& f,
    const gpuLdu::Executor exec
) const
{
    const gpuLdu::LdltAnalysis& a = f.solver->analysis();
    Info<< type() << ": symbolic analysis for " << fieldName_
        << " on " << gpuLdu::executorName(exec).c_str() << ": "
        << a.n << " rows, ordering "
        << gpuLdu::orderingName(a.ordering).c_str() << ", nnz(L) "
        << a.nnzL << " (fill "
        << scalar(a.nnzL)/max(scalar(a.nnzALower), scalar(1))
        << "), " << a.flops << " flops, " << a.nSupernodes
        << " supernodes, " << 1e3*a.seconds << " ms";
    if (!f.analysisOf.empty())
    {
        Info<< " (copied from " << f.analysisOf << "'s)";
    }
    Info<< endl;
}


void Foam::LDLTGPU::refine
(
    gpuLduLdltCache::factorisation& f,
    bool stale,
    scalarField& psi,
    const scalarField& source,
    const direction cmpt,
    const scalar normFactor,
    scalarField& rA,
    solverPerformance& perf
) const
{
    const label comm = matrix().mesh().comm();
    const bool coupled = anyCoupled();
    scalarField wA(psi.size());
    scalarField dx(psi.size());

    // Counted and stopped as native:
    // do { step } while ((++n < maxIter && !converged) || n < minIter)
    for (;;)
    {
        const scalar before = perf.finalResidual();

        // psi += A_local^-1 r;  r = b - A psi (interfaces included)
        correction(f, rA, dx);
        psi += dx;
        matrix_.Amul(wA, psi, interfaceBouCoeffs_, interfaces_, cmpt);
        rA = source - wA;

        perf.finalResidual() = gSumMag(rA, comm)/normFactor;
        ++perf.nIterations();

        if (!std::isfinite(perf.finalResidual()))
        {
            errors().nonFiniteRefinement
            (
                perf.finalResidual(), perf.nIterations()
            );
        }

        const bool converged = perf.checkConvergence(tolerance_, relTol_);
        if
        (
            (converged || perf.nIterations() >= maxIter_)
         && perf.nIterations() >= minIter_
        )
        {
            break;
        }

        // With the current values factored and no interfaces, a step
        // that gains nothing has reached rounding: more cannot help
        if (!stale && !coupled && perf.finalResidual() >= before)
        {
            break;
        }

        // A factor of other values is a preconditioner only: once a
        // step with it gains less than half, factor the current values
        if (stale && perf.finalResidual() > 0.5*before)
        {
            factorise(f);
            stale = false;
            if (debug)
            {
                Info<< type() << ": " << fieldName_ << ": factorised"
                    << " (the reused factor gained less than half) in "
                    << 1e3*f.stats.seconds << " ms" << endl;
            }
        }
    }
}


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::LDLTGPU::LDLTGPU
(
    const word& fieldName,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const dictionary& solverControls
)
:
    gpuLduSolver
    (
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        solverControls
    ),
    ordering_(gpuLdu::LdltOrdering::named("natural")),
    factorReuse_(0)
{
    readSolverControls();
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

Foam::wordList Foam::LDLTGPU::keywords() const
{
    return wordList{"executor", "ordering", "factorReuse"};
}


void Foam::LDLTGPU::readControls()
{
    gpuLduSolver::readControls();

    const word name = controlDict_.lookupOrDefault<word>("ordering", "auto");
    try
    {
        ordering_ =
            name == "auto"
          ? gpuLdu::autoOrdering(matrix_.diag().size())
          : gpuLdu::LdltOrdering::named(name);
    }
    catch (const gpuLdu::Error&)
    {
        std::vector<std::string> valid = gpuLdu::orderingNames();
        valid.insert(valid.begin(), "auto");
        errors().unknownValue("ordering", name, valid);
    }

    factorReuse_ = controlDict_.lookupOrDefault<label>("factorReuse", 0);
    if (factorReuse_ < 0)
    {
        errors().negativeCount
        (
            "factorReuse", factorReuse_,
            {
                {"0", "factor again whenever the matrix values change (default)"},
                {"N", "a factor may serve up to N solves with changed values (N > 0)"}
            }
        );
    }
}


Foam::word Foam::LDLTGPU::pivotRole() const
{
    // (the core's LDL^T replaces small pivots by static pivoting: it
    // reports none)
    return "direct solver";
}


Foam::solverPerformance Foam::LDLTGPU::solveByCore
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt,
    const gpuLdu::Executor exec,
    gpuLduRankGroup*&
) const
{
    solverPerformance perf(typeName, fieldName_);

    const label nCells = psi.size();

    // r = b - A psi, the coupled interfaces included (Amul)
    scalarField wA(nCells);
    matrix_.Amul(wA, psi, interfaceBouCoeffs_, interfaces_, cmpt);
    scalarField rA(source - wA);

    gpuLduCompat::setResidualField(matrix(), rA, fieldName_, true);

    // Native normalisation: normFactor from A psi (a scratch field), the
    // residual's global 1-norm over it
    scalarField scratch(nCells);
    const scalar normFactor = this->normFactor(psi, source, wA, scratch);

    if (lduMatrix::debug >= 2)
    {
        Info<< "   Normalisation factor = " << normFactor << endl;
    }

    perf.initialResidual() = gSumMag(rA, matrix().mesh().comm())/normFactor;
    perf.finalResidual() = perf.initialResidual();

    // Converged already: no device, no factorisation, 0 iterations (as
    // native)
    if (minIter_ == 0 && perf.checkConvergence(tolerance_, relTol_))
    {
        return perf;
    }

    const gpuLdu::Stopwatch watch;

    // This rank's device chosen (gpuLduDevices), then the direct
    // solver's own per-mesh state
    const fvMesh& mesh = cache(exec).mesh();
    gpuLduLdltCache& ldlt =
        const_cast<gpuLduLdltCache&>(gpuLduLdltCache::New(mesh));

    bool built = false;
    gpuLduLdltCache::factorisation& f =
        ldlt.of(fieldName_, matrix_.lduAddr(), exec, ordering_, built);
    if (built)
    {
        logAnalysis(f, exec);
    }

    const bool stale = prepare(ldlt, f, factorReuse_);
    refine(f, stale, psi, source, cmpt, normFactor, rA, perf);

    gpuLduCompat::setResidualField(matrix(), rA, fieldName_, false);

    if (debug)
    {
        Info<< type() << ": " << fieldName_ << ": " << perf.nIterations()
            << " refinement steps, " << f.nFactorised
            << " factorisations, direct solves " << 1e3*f.solveSeconds
            << " ms, whole solve " << 1e3*watch.seconds() << " ms"
            << endl;
    }

    if (!perf.converged())
    {
        notConverged(perf, f);
    }

    return perf;
}


// ************************************************************************* //
