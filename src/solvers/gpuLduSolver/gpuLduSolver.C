/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduSolver.H"
#include "gpuLduCache.H"
#include "fvMesh.H"
#include "gpuLduCoupling.H"
#include "gpuLduDevices.H"

#include <chrono>

#include <cmath>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(gpuLduSolver, 0);
}

const Foam::wordList Foam::gpuLduSolver::commonKeywords
{
    "solver", "tolerance", "relTol", "maxIter", "minIter", "preconditioner",
    "smoother", "nSweeps", "type"
};

static_assert
(
    std::is_same<Foam::solveScalar, Foam::scalar>::value,
    "the GPU solvers override solve(): solveScalar must be scalar"
);

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

double Foam::gpuLduSolver::secondsSince
(
    const std::chrono::steady_clock::time_point start
)
{
    return std::chrono::duration<double>
    (
        std::chrono::steady_clock::now() - start
    ).count();
}


void Foam::gpuLduSolver::unknownKeyword
(
    const word& what,
    const word& name,
    const std::vector<std::string>& valid
) const
{
    wordList names;
    for (const std::string& keyword : valid)
    {
        names.append(word(keyword));
    }
    FatalIOErrorInFunction(controlDict_)
        << "Unknown " << what << " " << name << " for field " << fieldName_
        << " (solver " << type() << ")" << nl << nl
        << "Valid " << what << "s :" << nl << names
        << exit(FatalIOError);
}


gpuLdu::Executor Foam::gpuLduSolver::executor() const
{
    const word name = controlDict_.lookupOrDefault<word>("executor", "gpu");

    gpuLdu::Executor exec = gpuLdu::Executor::cpu;
    try
    {
        exec = gpuLdu::executorFromName(name);
    }
    catch (const gpuLdu::Error&)
    {
        unknownKeyword("executor", name, gpuLdu::executorNames());
    }

    if (exec == gpuLdu::Executor::gpu)
    {
        const std::string& reason = gpuLduDevices::cudaUnavailableReason();
        if (!reason.empty())
        {
            FatalErrorInFunction
                << "executor gpu selected for field " << fieldName_
                << " (solver " << type() << "), but " << reason.c_str()
                << nl << "Use 'executor cpu;' in its solver dictionary"
                << " to run the same algorithms on the host."
                << exit(FatalError);
        }
    }
    return exec;
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

Foam::gpuLduCache& Foam::gpuLduSolver::cache() const
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

    // This rank's device and group, before its first system (CUDA is
    // initialised in executor(), the first time)
    const auto start = std::chrono::steady_clock::now();
    const gpuLdu::Executor exec = executor();
    const double initialised = secondsSince(start);
    if (exec == gpuLdu::Executor::gpu || gpuLduDevices::pretending())
    {
        static bool selected = false;
        gpuLduDevices::select
        (
            exec == gpuLdu::Executor::gpu,
            ranksPerSystem(meshPtr->time().controlDict())
        );
        if (debug && !selected)
        {
            Info<< "gpuLduSolver: devices chosen in " << secondsSince(start)
                << " s (the first rank's; CUDA's initialisation "
                << initialised << " s)" << endl;
        }
        selected = true;
    }
    return cache;
}


Foam::label Foam::gpuLduSolver::ranksPerSystem
(
    const dictionary& controlDict
) const
{
    const word key("gpuLduRanksPerSystem");
    const dictionary& caseSwitches =
        controlDict.subOrEmptyDict("OptimisationSwitches");
    const dictionary& dict =
        caseSwitches.found(key) ? caseSwitches : debug::optimisationSwitches();
    if (!dict.found(key))
    {
        return 0;
    }

    ITstream& is = dict.lookup(key);
    const token t(is);
    if (t.isWord() && t.wordToken() == "all")
    {
        return 0;
    }
    if (t.isWord() && t.wordToken() == "none")
    {
        return 1;
    }
    if (t.isLabel() && t.labelToken() > 0)
    {
        return t.labelToken();
    }
    FatalIOErrorInFunction(dict)
        << "Unknown value " << t << " of OptimisationSwitch " << key << nl
        << nl << "Valid values :" << nl
        << "    all    the ranks of a GPU solve as one system (default)" << nl
        << "    none   one system per rank" << nl
        << "    N      one system per N neighbouring ranks of a GPU (N > 0)"
        << exit(FatalIOError);
    return 0;
}


gpuLdu::LduSystem& Foam::gpuLduSolver::formatted
(
    gpuLduCache& cache,
    gpuLdu::LduSystem& sys
) const
{
    const gpuLdu::MatrixFormat asked = matrixFormat();
    const gpuLdu::MatrixFormat used = sys.setFormat(asked);

    if (cache.noteFormat(fieldName_, sys.executor(), used))
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
        unknownKeyword("matrixFormat", name, gpuLdu::formatNames());
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
    c.normalised = gpuLduCompat::normalised(controlDict_);
    c.halfStepCountsItself = gpuLduCompat::halfStepCountsItself;
    return c;
}


gpuLdu::Preconditioner Foam::gpuLduSolver::preconditionerType
(
    const word& name,
    gpuLdu::KrylovMethod method
) const
{
    // As OpenFOAM picks its preconditioner table by the matrix's symmetry
    const bool symmetric = matrix_.symmetric();
    try
    {
        return gpuLdu::preconditionerFromName(name, method, symmetric);
    }
    catch (const gpuLdu::Error&)
    {
        unknownKeyword
        (
            "preconditioner",
            name,
            gpuLdu::preconditionerNames(method, symmetric)
        );
    }
    return gpuLdu::Preconditioner::none;
}


void Foam::gpuLduSolver::badValue
(
    const word& solverName,
    const gpuLdu::BadValue& bad,
    const gpuLduCache& cache,
    const gpuLduGroupSystem* group,
    const word& role
) const
{
    // A row (face) of the system: the rank it comes from and its number
    // there (this rank's own, but on a group's owner)
    const bool coarse = bad.level > 0;
    const auto locate = [&](label index, bool isFace, label& proci, label& local)
    {
        proci = Pstream::myProcNo(matrix_.mesh().comm());
        local = index;
        if (group && !coarse)
        {
            group->locate(index, isFace, proci, local);
        }
    };
    // A cell in words: its global number (a coarse GAMG level's cells are
    // the level's own)
    const auto cell = [&](label row) -> std::string
    {
        label proci, local;
        locate(row, false, proci, local);
        OStringStream os;
        if (coarse)
        {
            os  << "coarse cell " << local << " of GAMG level " << bad.level;
        }
        else
        {
            os  << "cell " << cache.globalCells().toGlobal(proci, local);
            if (Pstream::parRun())
            {
                os  << " (processor " << proci << ", local cell " << local
                    << ")";
            }
        }
        return os.str();
    };

    const word kind(gpuLdu::valueKindName(bad.kind), false);
    OStringStream what;
    switch (bad.kind)
    {
        case gpuLdu::ValueKind::upper:
        case gpuLdu::ValueKind::lower:
        {
            label proci, face;
            locate(bad.index, true, proci, face);
            what<< "the " << kind << " coefficient is " << bad.value
                << " at face " << face
                << (Pstream::parRun() && !coarse ? " of processor " : "");
            if (Pstream::parRun() && !coarse)
            {
                what<< proci;
            }
            what<< ", in the row of " << cell(bad.row).c_str()
                << " and the column of " << cell(bad.col).c_str();
            break;
        }
        case gpuLdu::ValueKind::pivot:
        {
            const word of(bad.pivotOf, false);
            what<< "the " << of << " pivot is " << bad.value << " at "
                << cell(bad.row).c_str();
            break;
        }
        default:
            what<< "the " << kind << " is " << bad.value << " at "
                << cell(bad.row).c_str();
    }

    OStringStream why;
    if (bad.kind == gpuLdu::ValueKind::pivot)
    {
        why << "A zero or non-finite pivot: the " << role << "'s "
            << (
                   bad.pivotOf == "diagonal"
                 ? "division by the diagonal"
                 : "factorisation"
               )
            << " cannot take it." << nl
            << "Check the matrix (a zero diagonal, a cell without coefficients)"
            << " or use another " << role << ".";
    }
    else
    {
        why << bad.count << " value(s) of the matrix, source and initial guess"
            << " are not finite; nothing was solved." << nl
            << "They come from the case: a field, boundary condition or source"
            << " that is not finite, or an earlier solve that diverged.";
    }

    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solverName << ": "
        << what.str().c_str() << nl << why.str().c_str()
        << exit(FatalError);
}


Foam::wordList Foam::gpuLduSolver::keywords() const
{
    return wordList{"executor", "checkNative", "matrixFormat"};
}


void Foam::gpuLduSolver::warnUnread
(
    const dictionary& dict,
    const wordList& valid
) const
{
    std::vector<std::string> names;
    OStringStream list;
    for (const word& w : valid)
    {
        names.push_back(w);
        list<< " " << w;
    }
    for (const entry& e : dict)
    {
        const word& key = e.keyword();
        if (gpuLduCompat::contains(valid, key))
        {
            continue;
        }
        // the closest valid keyword, where the key looks like a slip of it
        const std::string closest = gpuLdu::closestKeyword(key, names);
        OStringStream hint;
        if (!closest.empty())
        {
            hint<< "    Did you mean " << closest.c_str() << "?" << nl;
        }
        IOWarningInFunction(dict)
            << "Keyword " << key << " for field " << fieldName_
            << " is read by neither " << type() << " nor OpenFOAM:"
            << " it has no effect." << nl
            << hint.str().c_str()
            << "    Valid keywords:" << list.str().c_str() << endl;
    }
}


void Foam::gpuLduSolver::checkKeywords() const
{
    // Before anything else reads the controls (a misspelt executor leaves
    // executor gpu, which may stop the run): the cache without a device
    const fvMesh* meshPtr = dynamic_cast<const fvMesh*>(&matrix_.mesh());
    if (!meshPtr)
    {
        return;
    }
    gpuLduCache& cache = const_cast<gpuLduCache&>(gpuLduCache::New(*meshPtr));

    // p and pFinal are two dictionaries of one field
    const word dictName
    (
        controlDict_.name().empty() ? string(fieldName_) : string(controlDict_.name()),
        false
    );
    if (!cache.noteKeywordCheck(dictName, type()))
    {
        return;
    }

    wordList valid(commonKeywords);
    valid.append(gpuLduCompat::solverKeywords());
    valid.append(keywords());
    warnUnread(controlDict_, valid);

    // The sub-dictionary forms: preconditioner { preconditioner DIC; }
    for (const word name : {"preconditioner", "smoother"})
    {
        if (controlDict_.isDict(name))
        {
            warnUnread(controlDict_.subDict(name), wordList{name});
        }
    }
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
            << " ms each), hand-over " << 1e3*r.handOverSeconds << " ms"
            << endl;
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
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    checkKeywords();

    const word nativeType(gpuLdu::methodName(method));

    const word preconditionerName =
        lduMatrix::preconditioner::getName(controlDict_);

    const gpuLdu::Preconditioner preconditioner =
        preconditionerType(preconditionerName, method);

    const bool check = controlDict_.lookupOrDefault<bool>("checkNative", false);
    if (check && !gpuLdu::isOpenFOAMs(preconditioner))
    {
        FatalIOErrorInFunction(controlDict_)
            << "checkNative for field " << fieldName_ << " compares with "
            << nativeType << " and OpenFOAM's own preconditioners; "
            << preconditionerName << " has no native counterpart"
            << exit(FatalIOError);
    }
    const scalarField psi0(check ? psi : scalarField());

    gpuLdu::SolveResult result;
    gpuLduCache* cachePtr = nullptr;
    gpuLduGroupSystem* group = nullptr;
    try
    {
        gpuLduCache& c = cache();
        cachePtr = &c;
        const gpuLdu::Executor exec = executor();
        group = c.groupSystem(exec, matrix_.lduAddr(), interfaces_);

        if (group)
        {
            // One system for the ranks of this rank's group
            if (group->system())
            {
                formatted(c, *group->system());
            }
            const gpuLduCoupling coupling
            (
                matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
                interfaces_, cmpt, group->patchPhase()
            );
            result = group->solve
            (
                method, matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
                coupling, psi, source, controls(), preconditioner
            );
        }
        else
        {
            const gpuLduCoupling coupling
            (
                matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
                interfaces_, cmpt
            );
            gpuLdu::LduSystem& sys =
                formatted(c, c.system(exec, matrix_.lduAddr()));
            sys.setMatrix
            (
                matrix_.diag().cdata(),
                matrix_.upper().cdata(),
                matrix_.hasLower() ? matrix_.lower().cdata() : nullptr
            );
            sys.setInterfaces(coupling.cells());
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
    }
    catch (const gpuLdu::ValueError& e)
    {
        badValue
        (
            preconditionerName + type(), e.bad(), *cachePtr, group,
            "preconditioner"
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
