/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "LDLTGPU.H"
#include "gpuLduCache.H"

#include <chrono>
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

gpuLdu::LdltOrdering Foam::LDLTGPU::ordering(const label n) const
{
    const word name = controlDict_.lookupOrDefault<word>("ordering", "auto");

    if (name == "auto")
    {
        return gpuLdu::autoOrdering(n);
    }
    try
    {
        return gpuLdu::orderingFromName(name);
    }
    catch (const gpuLdu::Error&)
    {
        std::vector<std::string> valid = gpuLdu::orderingNames();
        valid.insert(valid.begin(), "auto");
        unknownKeyword("ordering", name, valid);
    }
    return gpuLdu::LdltOrdering::natural;
}


Foam::label Foam::LDLTGPU::factorReuse() const
{
    const label n = controlDict_.lookupOrDefault<label>("factorReuse", 0);
    if (n < 0)
    {
        FatalIOErrorInFunction(controlDict_)
            << "factorReuse " << n << " for field " << fieldName_
            << " (solver " << type() << ")" << nl << nl
            << "Valid values :" << nl
            << "    0    factor again whenever the matrix values change"
            << " (default)" << nl
            << "    N    a factor may serve up to N solves with changed values"
            << " (N > 0)"
            << exit(FatalIOError);
    }
    return n;
}


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
    f.solveSeconds += s.uploadSeconds + s.setupSeconds + s.iterateSeconds;
}


void Foam::LDLTGPU::notConverged
(
    const solverPerformance& perf,
    const gpuLduLdltCache::factorisation& f
) const
{
    if (!anyCoupled())
    {
        // As native: the log line shows the residual reached; the direct
        // solve of the whole matrix went as far as rounding allows
        WarningInFunction
            << "Solving for " << fieldName_ << " with " << type()
            << ": the residual is " << perf.finalResidual() << " after "
            << perf.nIterations() << " refinement steps (tolerance "
            << tolerance_ << ", relTol " << relTol_ << "; "
            << f.stats.nStaticPivots << " pivots replaced by static"
            << " pivoting): the refinement stopped gaining. The matrix is"
            << " singular or too ill-conditioned for this tolerance." << endl;
        return;
    }

    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << type()
        << ": the residual is " << perf.finalResidual() << " after "
        << perf.nIterations() << " refinement steps (maxIter " << maxIter_
        << "; initial residual " << perf.initialResidual() << ", tolerance "
        << tolerance_ << ", relTol " << relTol_ << ")" << nl;

    FatalError
        << "The direct solve factors each rank's local matrix; the"
        << " coupled interfaces (processor patches of a decomposed case,"
        << " cyclics) enter only through the residual, so the refinement"
        << " is block Jacobi across them and has not converged." << nl
        << "Decomposed or coupled cases need an iterative solver:"
        << " PCGGPU or GAMGGPU (or a larger maxIter)."
        << exit(FatalError);
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


Foam::wordList Foam::LDLTGPU::keywords() const
{
    return wordList{"executor", "ordering", "factorReuse"};
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::LDLTGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    // The controls first: a bad one stops the run at its first solve
    checkKeywords();
    const gpuLdu::Executor exec = executor();
    const gpuLdu::LdltOrdering order = ordering(psi.size());
    const label reuse = factorReuse();

    solverPerformance perf(typeName, fieldName_);

    const label nCells = psi.size();
    const label comm = matrix().mesh().comm();

    scalarField wA(nCells);
    scalarField dx(nCells);

    // r = b - A psi, the coupled interfaces included (Amul)
    matrix_.Amul(wA, psi, interfaceBouCoeffs_, interfaces_, cmpt);
    scalarField rA(source - wA);

    gpuLduCompat::setResidualField(matrix(), rA, fieldName_, true);

    // Native normalisation: normFactor from A psi (dx as its scratch), the
    // residual's global 1-norm over it
    const scalar normFactor = this->normFactor(psi, source, wA, dx);

    if (lduMatrix::debug >= 2)
    {
        Info<< "   Normalisation factor = " << normFactor << endl;
    }

    perf.initialResidual() = gSumMag(rA, comm)/normFactor;
    perf.finalResidual() = perf.initialResidual();

    // Converged already: no factorisation, 0 iterations (as native)
    if (minIter_ == 0 && perf.checkConvergence(tolerance_, relTol_))
    {
        return perf;
    }

    const auto start = std::chrono::steady_clock::now();
    gpuLduLdltCache::factorisation* fPtr = nullptr;
    try
    {
        // This rank's device chosen (gpuLduDevices), then the direct
        // solver's own per-mesh state
        const fvMesh& mesh = cache().mesh();
        gpuLduLdltCache& ldlt =
            const_cast<gpuLduLdltCache&>(gpuLduLdltCache::New(mesh));

        bool built = false;
        gpuLduLdltCache::factorisation& f =
            ldlt.of(fieldName_, matrix_.lduAddr(), exec, order, built);
        fPtr = &f;

        if (built)
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

        bool stale = prepare(ldlt, f, reuse);
        const bool coupled = anyCoupled();

        // Refinement in OpenFOAM's terms, counted and stopped as native:
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
                FatalErrorInFunction
                    << "Solving for " << fieldName_ << " with " << type()
                    << ": the residual became " << perf.finalResidual()
                    << " at refinement step " << perf.nIterations() << nl
                    << "The matrix or source is not finite."
                    << exit(FatalError);
            }

            const bool converged =
                perf.checkConvergence(tolerance_, relTol_);
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
    catch (const std::exception& e)
    {
        FatalErrorInFunction
            << "Solving for " << fieldName_ << " with " << type()
            << " failed: " << e.what() << exit(FatalError);
    }

    gpuLduCompat::setResidualField(matrix(), rA, fieldName_, false);

    if (debug)
    {
        Info<< type() << ": " << fieldName_ << ": " << perf.nIterations()
            << " refinement steps, " << fPtr->nFactorised
            << " factorisations, direct solves " << 1e3*fPtr->solveSeconds
            << " ms, whole solve " << 1e3*secondsSince(start) << " ms"
            << endl;
    }

    if (!perf.converged())
    {
        notConverged(perf, *fPtr);
    }

    return perf;
}


// ************************************************************************* //
