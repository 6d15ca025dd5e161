/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduSolver.H"
#include "gpuLduCache.H"
#include "fvMesh.H"
#include "gpuLduCoupling.H"

#include <cmath>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(gpuLduSolver, 0);
}

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

gpuLdu::Executor Foam::gpuLduSolver::executor() const
{
    const word name = controlDict_.lookupOrDefault<word>("executor", "gpu");

    if (name == "cpu")
    {
        return gpuLdu::Executor::cpu;
    }
    else if (name == "gpu")
    {
        const std::string reason = gpuLdu::gpuUnavailableReason();
        if (!reason.empty())
        {
            FatalErrorInFunction
                << "executor gpu selected for field " << fieldName_
                << " (solver " << type() << "), but " << reason.c_str()
                << nl << "Use 'executor cpu;' in its solver dictionary"
                << " to run the same algorithms on the host."
                << exit(FatalError);
        }
        return gpuLdu::Executor::gpu;
    }

    FatalIOErrorInFunction(controlDict_)
        << "Unknown executor " << name << " for field " << fieldName_
        << " (solver " << type() << ")" << nl << nl
        << "Valid executors :" << nl << wordList({"cpu", "gpu"})
        << exit(FatalIOError);

    return gpuLdu::Executor::cpu;
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

gpuLdu::LduSystem& Foam::gpuLduSolver::system() const
{
    const fvMesh* meshPtr = dynamic_cast<const fvMesh*>(&matrix_.mesh());
    if (!meshPtr)
    {
        FatalErrorInFunction
            << type() << " solves matrices of finite-volume meshes only;"
            << " field " << fieldName_ << " is not on one"
            << exit(FatalError);
    }

    // The cache is logically mutable state of the mesh
    gpuLduCache& cache =
        const_cast<gpuLduCache&>(gpuLduCache::New(*meshPtr));

    const gpuLdu::Executor exec = executor();
    const gpuLdu::MatrixFormat asked = matrixFormat();
    gpuLdu::LduSystem& sys = cache.system(exec, matrix_.lduAddr());
    const gpuLdu::MatrixFormat used = sys.setFormat(asked);

    if (cache.noteFormat(fieldName_, exec, used))
    {
        const gpuLdu::RowLengthStats s = sys.rowLengthStats();
        Info<< type() << ": matrixFormat " << gpuLdu::formatName(asked).c_str()
            << " for " << fieldName_ << ": "
            << gpuLdu::formatName(used).c_str() << " (" << s.nRows
            << " rows of " << s.minLength << " to " << s.maxLength
            << " non-zeros, mean " << s.meanLength() << ")" << endl;
    }
    return sys;
}


gpuLdu::MatrixFormat Foam::gpuLduSolver::matrixFormat() const
{
    const word name = controlDict_.lookupOrDefault<word>("matrixFormat", "auto");
    try
    {
        return gpuLdu::formatFromName(name);
    }
    catch (const gpuLdu::Error&)
    {
        wordList valid;
        for (const std::string& keyword : gpuLdu::formatNames())
        {
            valid.append(word(keyword));
        }
        FatalIOErrorInFunction(controlDict_)
            << "Unknown matrixFormat " << name << " for field " << fieldName_
            << " (solver " << type() << ")" << nl << nl
            << "Valid matrixFormats :" << nl << valid
            << exit(FatalIOError);
    }
    return gpuLdu::MatrixFormat::automatic;
}


gpuLdu::SolverControls Foam::gpuLduSolver::controls() const
{
    gpuLdu::SolverControls c;
    c.maxIter = maxIter_;
    c.minIter = minIter_;
    c.tolerance = tolerance_;
    c.relTol = relTol_;
    return c;
}


gpuLdu::Preconditioner Foam::gpuLduSolver::preconditionerType
(
    const word& name,
    const wordList& valid
) const
{
    if (valid.found(name))
    {
        if (name == "DIC" || name == "FDIC")
        {
            // FDIC only caches rD*upper: the same arithmetic as DIC
            return gpuLdu::Preconditioner::DIC;
        }
        if (name == "DILU")
        {
            return gpuLdu::Preconditioner::DILU;
        }
        if (name == "ILU0")
        {
            return gpuLdu::Preconditioner::ILU0;
        }
        if (name == "diagonal")
        {
            return gpuLdu::Preconditioner::diagonal;
        }
        if (name == "none")
        {
            return gpuLdu::Preconditioner::none;
        }
    }

    FatalIOErrorInFunction(controlDict_)
        << "Unknown preconditioner " << name << " for field " << fieldName_
        << " (solver " << type() << ")" << nl << nl
        << "Valid preconditioners :" << nl << valid
        << exit(FatalIOError);

    return gpuLdu::Preconditioner::none;
}


Foam::solverPerformance Foam::gpuLduSolver::performance
(
    const word& solverName,
    const gpuLdu::SolveResult& r
) const
{
    if (r.nonFinite)
    {
        const scalar bad =
            std::isfinite(r.initialResidual)
          ? r.finalResidual
          : r.initialResidual;

        FatalErrorInFunction
            << "Solving for " << fieldName_ << " with " << solverName
            << ": the residual became " << bad << " at iteration "
            << r.nIterations << nl
            << "The matrix or source is not finite, or the solution diverged."
            << exit(FatalError);
    }

    if (gpuLduSolver::debug)
    {
        const scalar perIteration =
            r.nIterations ? r.iterateSeconds/r.nIterations : 0;

        Info<< "gpuLduSolver: " << solverName << " " << fieldName_
            << ": upload+convert " << 1e3*r.uploadSeconds
            << " ms, preconditioner set-up " << 1e3*r.setupSeconds
            << " ms, iterations " << 1e3*r.iterateSeconds << " ms ("
            << r.nIterations << " iterations, " << 1e3*perIteration
            << " ms each)" << endl;
    }

    return solverPerformance
    (
        solverName,
        fieldName_,
        r.initialResidual,
        r.finalResidual,
        r.nIterations,
        r.converged,
        r.singular
    );
}


void Foam::gpuLduSolver::checkNative
(
    const word& nativeType,
    const scalarField& psi0,
    const scalarField& source,
    const direction cmpt,
    const solverPerformance& perf
) const
{
    dictionary nativeControls(controlDict_);
    nativeControls.set("solver", nativeType);

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


Foam::solverPerformance Foam::gpuLduSolver::solveWith
(
    gpuLdu::KrylovMethod method,
    const word& nativeType,
    const wordList& validPreconditioners,
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    const word preconditionerName =
        lduMatrix::preconditioner::getName(controlDict_);

    const gpuLdu::Preconditioner preconditioner =
        preconditionerType(preconditionerName, validPreconditioners);

    const gpuLduCoupling coupling
    (
        matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_, interfaces_, cmpt
    );

    const bool check = controlDict_.lookupOrDefault<bool>("checkNative", false);
    if (check && preconditioner == gpuLdu::Preconditioner::ILU0)
    {
        FatalIOErrorInFunction(controlDict_)
            << "checkNative for field " << fieldName_ << " compares with "
            << nativeType << " and OpenFOAM's own preconditioners; "
            << preconditionerName << " has no native counterpart"
            << exit(FatalIOError);
    }
    const scalarField psi0(check ? psi : scalarField());

    gpuLdu::SolveResult result;
    try
    {
        gpuLdu::LduSystem& sys = system();
        sys.setMatrix
        (
            matrix_.diag().cdata(),
            matrix_.upper().cdata(),
            matrix_.hasLower() ? matrix_.lower().cdata() : nullptr
        );
        sys.setInterfaces(coupling.cells(), coupling.sumACorrection());
        result = sys.solve
        (
            method,
            psi.data(),
            source.cdata(),
            controls(),
            preconditioner,
            coupling
        );
    }
    catch (const std::exception& e)
    {
        FatalErrorInFunction
            << "Solving for " << fieldName_ << " with " << type()
            << " failed: " << e.what() << exit(FatalError);
    }

    const solverPerformance perf =
        performance(preconditionerName + type(), result);

    if (check)
    {
        checkNative(nativeType, psi0, source, cmpt, perf);
    }

    return perf;
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
    )
{}
