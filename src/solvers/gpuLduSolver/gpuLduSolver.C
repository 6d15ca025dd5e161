/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduSolver.H"
#include "gpuLduCache.H"
#include "gpuLduCompat.H"
#include "gpuLduDevices.H"
#include "gpuLduKeywords.H"
#include "fvMesh.H"

#include <cmath>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(gpuLduSolver, 0);
}

static_assert
(
    std::is_same<Foam::solveScalar, Foam::scalar>::value,
    "the GPU solvers override solve(): solveScalar must be scalar"
);

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

Foam::gpuLduCache* Foam::gpuLduSolver::meshCache() const
{
    const fvMesh* meshPtr = dynamic_cast<const fvMesh*>(&matrix_.mesh());
    if (!meshPtr)
    {
        return nullptr;
    }
    // The cache is logically mutable state of the mesh
    return &const_cast<gpuLduCache&>(gpuLduCache::New(*meshPtr));
}


void Foam::gpuLduSolver::checkNative
(
    const scalarField& psi0,
    const scalarField& source,
    const direction cmpt,
    const solverPerformance& perf
) const
{
    dictionary nativeControls(controlDict_);
    nativeControls.set("solver", nativeType());

    scalarField psi(psi0);
    const solverPerformance nativePerf = lduMatrix::solver::New
    (
        fieldName_,
        matrix_,
        interfaceBouCoeffs_,
        interfaceIntCoeffs_,
        interfaces_,
        nativeControls
    )->solve(psi, source, cmpt);

    Info<< "checkNative: " << fieldName_
        << " native " << nativePerf.solverName()
        << " iterations " << nativePerf.nIterations()
        << " initial " << nativePerf.initialResidual()
        << " final " << nativePerf.finalResidual()
        << ", " << perf.solverName()
        << " iterations " << perf.nIterations()
        << " initial " << perf.initialResidual()
        << " final " << perf.finalResidual() << endl;
}


gpuLdu::Executor Foam::gpuLduSolver::executor() const
{
    if (executor_ == gpuLdu::Executor::gpu)
    {
        // the first call waits for CUDA's initialisation (begun when the
        // library was loaded)
        static bool waited = false;
        const gpuLdu::Stopwatch watch;
        const std::string& reason = gpuLduDevices::gpuUnavailableReason();
        if (debug && !waited)
        {
            Info<< "gpuLduSolver: CUDA's initialisation "
                << watch.seconds() << " s (the first rank's)" << endl;
        }
        waited = true;
        if (!reason.empty())
        {
            errors().gpuUnavailable(reason);
        }
    }
    return executor_;
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

void Foam::gpuLduSolver::readControls()
{
    lduMatrix::solver::readControls();

    const word name = controlDict_.lookupOrDefault<word>("executor", "gpu");
    try
    {
        executor_ = gpuLdu::executorFromName(name);
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue("executor", name, gpuLdu::executorNames());
    }
    checkNative_ =
        !nativeType().empty()
     && controlDict_.lookupOrDefault<bool>("checkNative", false);
}


void Foam::gpuLduSolver::readSolverControls()
{
    // Before anything reads the controls (a misspelt executor leaves
    // executor gpu, which may stop the run): the cache without a device
    if (gpuLduCache* c = meshCache())
    {
        gpuLduKeywords::check
        (
            *c, fieldName_, type(), controlDict_, keywords()
        );
    }
    readControls();
}


Foam::word Foam::gpuLduSolver::nativeType() const
{
    return word::null;
}


void Foam::gpuLduSolver::checkComparable() const
{}


Foam::word Foam::gpuLduSolver::solveName() const
{
    return type();
}


Foam::gpuLduErrors Foam::gpuLduSolver::errors() const
{
    return gpuLduErrors(fieldName_, type(), controlDict_);
}


Foam::gpuLduCache& Foam::gpuLduSolver::cache
(
    const gpuLdu::Executor exec
) const
{
    gpuLduCache* c = meshCache();
    if (!c)
    {
        errors().notFiniteVolume();
    }

    // This rank's device and group, before its first system (CUDA was
    // initialised where executor() found the GPU usable)
    if (exec == gpuLdu::Executor::gpu || gpuLduDevices::pretending())
    {
        static bool selected = false;
        const gpuLdu::Stopwatch watch;
        gpuLduDevices::select
        (
            exec == gpuLdu::Executor::gpu,
            gpuLduDevices::ranksPerSystem(c->mesh().time().controlDict())
        );
        if (debug && !selected)
        {
            Info<< "gpuLduSolver: devices chosen in " << watch.seconds()
                << " s (the first rank's)" << endl;
        }
        selected = true;
    }
    return *c;
}


gpuLdu::SolverControls Foam::gpuLduSolver::controls() const
{
    gpuLdu::SolverControls c;
    c.maxIter = maxIter_;
    c.minIter = minIter_;
    c.tolerance = tolerance_;
    c.relTol = relTol_;
    c.normalised = gpuLduCompat::normalised(controlDict_);
    c.halfStepCountsItself = gpuLduCompat::halfStepCountsItself;
    return c;
}


Foam::solverPerformance Foam::gpuLduSolver::performance
(
    const word& solveName,
    const gpuLdu::SolveResult& r
) const
{
    if (r.nonFinite)
    {
        errors().nonFiniteResidual
        (
            solveName,
            std::isfinite(r.initialResidual)
          ? r.finalResidual
          : r.initialResidual,
            r.nIterations
        );
    }

    return solverPerformance
    (
        solveName,
        fieldName_,
        r.initialResidual,
        r.finalResidual,
        r.nIterations,
        r.converged,
        r.singular
    );
}


void Foam::gpuLduSolver::logTimes
(
    const word& solveName,
    const gpuLdu::SolveResult& r,
    const std::vector<int>* levelCells,
    const bool directCoarsest
) const
{
    if (!debug)
    {
        return;
    }
    const gpuLdu::SolveTimes& t = r.times;
    if (!levelCells)
    {
        const scalar perIteration =
            r.nIterations ? t.iterate/r.nIterations : 0;

        Info<< "gpuLduSolver: " << solveName << " " << fieldName_
            << ": upload+convert " << 1e3*t.upload
            << " ms, preconditioner set-up " << 1e3*t.setup
            << " ms, iterations " << 1e3*t.iterate << " ms ("
            << r.nIterations << " iterations, " << 1e3*perIteration
            << " ms each), hand-over " << 1e3*t.handOver << " ms"
            << endl;
        return;
    }
    // (a rank of a group that is not its owner has no levels of its own)
    if (levelCells->empty())
    {
        return;
    }
    Info<< "gpuLduSolver: " << solveName << " " << fieldName_ << ": "
        << levelCells->size() << " levels (" << levelCells->front() << " to "
        << levelCells->back() << " cells), solve " << 1e3*t.whole
        << " ms: agglomeration " << 1e3*t.agglomeration
        << " ms, level systems " << 1e3*t.levelSystems << " ms, upload "
        << 1e3*t.upload << " ms, coarse matrices " << 1e3*t.coarseMatrices
        << " ms" << (directCoarsest ? " (coarsest factored by LDLT)" : "")
        << ", smoother set-up " << 1e3*t.smootherSetup << " ms, V-cycles "
        << 1e3*t.iterate << " ms, hand-over " << 1e3*t.handOver
        << " ms, coarse interfaces " << 1e3*t.interfaces << " ms" << endl;
    if (debug >= 2)
    {
        Info<< "gpuLduSolver: " << solveName << " " << fieldName_
            << ": V-cycles: smoothing finest " << 1e3*t.finestSmoothing
            << " ms, coarse " << 1e3*t.smoothing
            << " ms, restriction+prolongation " << 1e3*t.transfer
            << " ms, coarsest " << 1e3*t.coarsest << " ms ("
            << t.coarsestIterations << " iterations of its Krylov solves); "
            << t.sweepLevels << " dependent sweep levels" << endl;
    }
}


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduSolver::gpuLduSolver
(
    const word& fieldName,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const dictionary& solverControls
)
:
    lduMatrix::solver
    (
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        solverControls
    ),
    executor_(gpuLdu::Executor::gpu),
    checkNative_(false)
{}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::gpuLduSolver::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    // (the controls were read by the constructor: readSolverControls)
    if (checkNative_)
    {
        checkComparable();
    }
    const gpuLdu::Executor exec = executor();
    // the native solver's initial guess
    const scalarField psi0(checkNative_ ? psi : scalarField());

    solverPerformance perf;
    gpuLduRankGroup* group = nullptr;
    try
    {
        perf = solveByCore(psi, source, cmpt, exec, group);
    }
    catch (const gpuLdu::ValueError& e)
    {
        errors().badValue
        (
            solveName(), e.bad(), *meshCache(), group,
            Pstream::myProcNo(matrix_.mesh().comm()), pivotRole()
        );
    }
    catch (const std::exception& e)
    {
        errors().failed(e);
    }

    if (checkNative_)
    {
        checkNative(psi0, source, cmpt, perf);
    }

    return perf;
}


// ************************************************************************* //
