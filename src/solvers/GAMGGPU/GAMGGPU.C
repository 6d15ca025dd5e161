/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "GAMGGPU.H"
#include "GAMGAgglomeration.H"
#include "gpuLduCache.H"
#include "gpuLduGamgCouplings.H"
#include "gpuLduGroupSystem.H"
#include "LUscalarMatrix.H"

#include <memory>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(GAMGGPU, 0);

    lduMatrix::solver::addsymMatrixConstructorToTable<GAMGGPU>
        addGAMGGPUSymMatrixConstructorToTable_;

    lduMatrix::solver::addasymMatrixConstructorToTable<GAMGGPU>
        addGAMGGPUAsymMatrixConstructorToTable_;
}

// * * * * * * * * * * * * * * * Local Classes * * * * * * * * * * * * * * //

namespace
{

using namespace Foam;

//- OpenFOAM's directSolveCoarsest on the host: the LUscalarMatrix of the
//  coarsest level with its interfaces (gathered onto the master in a parallel
//  run), as GAMGSolver builds it, solving at every V-cycle
class directCoarsest
:
    public gpuLdu::CoarsestSolver
{
    lduMatrix matrix_;
    const FieldField<Field, scalar>& interfaceBouCoeffs_;
    const lduInterfaceFieldPtrsList& interfaces_;
    autoPtr<LUscalarMatrix> lu_;
    scalarField psi_;
    scalarField source_;

public:

    directCoarsest
    (
        const lduMesh& mesh,
        const FieldField<Field, scalar>& interfaceBouCoeffs,
        const lduInterfaceFieldPtrsList& interfaces
    )
    :
        matrix_(mesh),
        interfaceBouCoeffs_(interfaceBouCoeffs),
        interfaces_(interfaces),
        psi_(mesh.lduAddr().size()),
        source_(mesh.lduAddr().size())
    {}

    virtual void setMatrix
    (
        const double* diag,
        const double* upper,
        const double* lower
    )
    {
        const label n = matrix_.lduAddr().size();
        const label nFaces = matrix_.lduAddr().lowerAddr().size();
        scalarField& d = matrix_.diag(n);
        std::copy(diag, diag + n, d.begin());
        scalarField& u = matrix_.upper(nFaces);
        std::copy(upper, upper + nFaces, u.begin());
        if (lower)
        {
            scalarField& l = matrix_.lower(nFaces);
            std::copy(lower, lower + nFaces, l.begin());
        }
        lu_.reset
        (
            new LUscalarMatrix(matrix_, interfaceBouCoeffs_, interfaces_)
        );
    }

    virtual void solve(const double* source, double* psi)
    {
        std::copy(source, source + source_.size(), source_.begin());
        lu_->solve(psi_, source_);
        std::copy(psi_.begin(), psi_.end(), psi);
    }
};

} // End anonymous namespace


// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

gpuLdu::GamgControls Foam::GAMGGPU::gamgControls() const
{
    const bool symmetric = matrix_.symmetric();

    gpuLdu::GamgControls c;

    // GAMGSolver's defaults (GAMGSolver.C) and readControls
    c.scaleCorrection = symmetric;
    // and the V-cycle of this release (GAMGSolverSolve.C)
    c.preSweepResidualByRows = gpuLduCompat::preSweepResidualByRows;
    const auto read = [this](const word& key, int& value)
    {
        label v = value;
        controlDict_.readIfPresent(key, v);
        value = v;
    };
    read("nPreSweeps", c.nPreSweeps);
    read("preSweepsLevelMultiplier", c.preSweepsLevelMultiplier);
    read("maxPreSweeps", c.maxPreSweeps);
    read("nPostSweeps", c.nPostSweeps);
    read("postSweepsLevelMultiplier", c.postSweepsLevelMultiplier);
    read("maxPostSweeps", c.maxPostSweeps);
    read("nFinestSweeps", c.nFinestSweeps);
    controlDict_.readIfPresent("interpolateCorrection", c.interpolateCorrection);
    controlDict_.readIfPresent("scaleCorrection", c.scaleCorrection);

    // The smoother table OpenFOAM picks by the matrix's symmetry
    const word name = lduMatrix::smoother::getName(controlDict_);
    try
    {
        c.smoother = gpuLdu::smootherFromName(name, symmetric);
    }
    catch (const gpuLdu::Error&)
    {
        unknownKeyword("smoother", name, gpuLdu::smootherNames(symmetric));
    }
    return c;
}


Foam::wordList Foam::GAMGGPU::keywords() const
{
    wordList keys
    {
        "executor", "checkNative",
        // GAMGSolver (readControls, the coarsest level's solver)
        "cacheAgglomeration", "nPreSweeps", "preSweepsLevelMultiplier",
        "maxPreSweeps", "nPostSweeps", "postSweepsLevelMultiplier",
        "maxPostSweeps", "nFinestSweeps", "interpolateCorrection",
        "scaleCorrection", "directSolveCoarsest",
        // GAMGAgglomeration and its agglomerators
        "agglomerator", "nCellsInCoarsestLevel", "mergeLevels", "nLevels"
    };
    // and those of this release only (gpuLduCompat::gamgKeywords)
    keys.append(gpuLduCompat::gamgKeywords());
    return keys;
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::GAMGGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    checkKeywords();
    gpuLdu::GamgControls gamg = gamgControls();

    const bool directSolveCoarsest =
        controlDict_.lookupOrDefault<bool>("directSolveCoarsest", false);

    const bool check = controlDict_.lookupOrDefault<bool>("checkNative", false);
    if (check && !gpuLdu::isOpenFOAMs(gamg.smoother))
    {
        FatalIOErrorInFunction(controlDict_)
            << "checkNative for field " << fieldName_ << " (solver " << type()
            << ") compares with native GAMG, which has no smoother "
            << lduMatrix::smoother::getName(controlDict_) << nl
            << "Remove checkNative, or use one of OpenFOAM's smoothers."
            << exit(FatalIOError);
    }
    const scalarField psi0(check ? psi : scalarField());
    const bool cacheAgglomeration =
        controlDict_.lookupOrDefault<bool>("cacheAgglomeration", true);

    gpuLdu::SolveResult result;
    gpuLduCache* cachePtr = nullptr;
    gpuLduGroupSystem* group = nullptr;
    gpuLdu::GamgTimes times;
    std::vector<int> levelCells;
    // Seconds of the agglomeration fetch (OpenFOAM builds it on the first solve of a mesh),
    // of the fetch or first build of the level systems, of the whole solve
    double agglomerationSeconds = 0, systemSeconds = 0, solveSeconds = 0;
    const auto solveStart = std::chrono::steady_clock::now();
    try
    {
        gpuLduCache& c = cache();
        cachePtr = &c;
        const gpuLdu::Executor exec = executor();

        // OpenFOAM's agglomeration of this mesh, as native GAMG takes it
        // (agglomerator, nCellsInCoarsestLevel, mergeLevels)
        const GAMGAgglomeration& agglomeration =
            GAMGAgglomeration::New(matrix_, controlDict_);
        agglomerationSeconds = secondsSince(solveStart);
        if (agglomeration.processorAgglomerate())
        {
            FatalIOErrorInFunction(controlDict_)
                << "processorAgglomerator for field " << fieldName_
                << " (solver " << type() << ") is not available: each"
                << " rank keeps its own levels" << nl
                << "Remove processorAgglomerator, or use solver GAMG."
                << exit(FatalIOError);
        }

        // Every level's interfaces and interface coefficients, as
        // GAMGSolver's constructor makes them (cyclic, processor, ...)
        const gpuLduGamgCouplings couplings
        (
            agglomeration, matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
            interfaces_, cmpt
        );

        // Decomposed, the ranks sharing a device as one hierarchy where they
        // can be (gpuLduGroupSystem); else each rank its own
        const auto systemStart = std::chrono::steady_clock::now();
        group =
            directSolveCoarsest
          ? nullptr
          : c.groupSystem(exec, matrix_.lduAddr(), interfaces_);
        if (group && !group->gamgShared(exec, agglomeration))
        {
            // each rank its own hierarchy
            group = nullptr;
        }
        if (group)
        {
            systemSeconds = secondsSince(systemStart);
            result = group->solveGamg
            (
                matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_, couplings,
                psi, source, controls(), gamg, gpuLduSolver::debug >= 2
            );
            if (const gpuLdu::GamgSystem* sys = group->gamgSystem())
            {
                times = sys->times();
                levelCells = sys->levelCells();
            }
        }
        else
        {
            gpuLdu::GamgSystem& sys =
                c.gamgSystem(exec, matrix_.lduAddr(), agglomeration);
            systemSeconds = secondsSince(systemStart);
            // gpuLduSolver 2: the V-cycle's parts timed (the device waited
            // for between parts, which slows the solve)
            sys.setTimed(gpuLduSolver::debug >= 2);
            sys.setInterfaces(couplings.cells());

            // directSolveCoarsest: with executor gpu, a symmetric matrix
            // and no coupled interface on the coarsest level, the core's
            // sparse LDL^T on the device (no host round trip per V-cycle);
            // else OpenFOAM's LU of the coarsest level on the host (with
            // executor cpu native's numbers, bit for bit)
            const label coarsest = agglomeration.size();
            bool coarsestCoupled = false;
            const lduInterfaceFieldPtrsList& coarsestInterfaces =
                couplings.interfaces(coarsest);
            forAll(coarsestInterfaces, i)
            {
                coarsestCoupled =
                    coarsestCoupled || coarsestInterfaces.set(i);
            }
            gamg.directCoarsest =
                directSolveCoarsest
             && exec == gpuLdu::Executor::gpu
             && matrix_.symmetric()
             && !coarsestCoupled;
            // a serial coarsest level without faces: this release's solver
            // of it (gpuLduCompat::coarsestDiagonalSolver)
            gamg.coarsestByDiagonal =
                gpuLduCompat::coarsestDiagonalSolver
             && !Pstream::parRun()
             && agglomeration.meshLevel(coarsest).lduAddr().lowerAddr().empty();
            std::unique_ptr<directCoarsest> direct;
            if (directSolveCoarsest && !gamg.directCoarsest)
            {
                direct.reset
                (
                    new directCoarsest
                    (
                        agglomeration.meshLevel(coarsest),
                        couplings.interfaceBouCoeffs(coarsest),
                        couplings.interfaces(coarsest)
                    )
                );
            }
            sys.setCoarsestSolver(direct.get());
            const auto matrixStart = std::chrono::steady_clock::now();
            sys.setMatrix
            (
                matrix_.diag().cdata(),
                matrix_.upper().cdata(),
                matrix_.hasLower() ? matrix_.lower().cdata() : nullptr
            );
            const double matrixSeconds = secondsSince(matrixStart);
            result = sys.solve
            (
                psi.data(),
                source.cdata(),
                controls(),
                gamg,
                couplings.couplings()
            );
            // upload: the matrix values, psi and the source
            result.uploadSeconds += matrixSeconds;
            sys.setCoarsestSolver(nullptr);
            times = sys.times();
            levelCells = sys.levelCells();
        }
        solveSeconds = secondsSince(solveStart);

        if (!cacheAgglomeration)
        {
            // As GAMGSolver's destructor
            c.forgetGamgSystems();
            delete &agglomeration;
        }
    }
    catch (const gpuLdu::ValueError& e)
    {
        badValue(type(), e.bad(), *cachePtr, group, "smoother");
    }
    catch (const std::exception& e)
    {
        FatalErrorInFunction
            << "Solving for " << fieldName_ << " with " << type()
            << " failed: " << e.what() << exit(FatalError);
    }

    // (a rank of a group that is not its owner has no levels of its own)
    if (gpuLduSolver::debug && !levelCells.empty())
    {
        Info<< "gpuLduSolver: " << type() << " " << fieldName_ << ": "
            << levelCells.size() << " levels (" << levelCells.front()
            << " to " << levelCells.back() << " cells), solve "
            << 1e3*solveSeconds << " ms: agglomeration "
            << 1e3*agglomerationSeconds << " ms, level systems "
            << 1e3*systemSeconds << " ms, upload "
            << 1e3*result.uploadSeconds << " ms, coarse matrices "
            << 1e3*times.coarseMatrices << " ms"
            << (gamg.directCoarsest ? " (coarsest factored by LDLT)" : "")
            << ", smoother set-up "
            << 1e3*times.smootherSetup << " ms, V-cycles "
            << 1e3*result.iterateSeconds << " ms, hand-over "
            << 1e3*result.handOverSeconds << " ms" << endl;
    }
    if (gpuLduSolver::debug >= 2 && !levelCells.empty())
    {
        Info<< "gpuLduSolver: " << type() << " " << fieldName_
            << ": V-cycles: smoothing finest " << 1e3*times.finestSmoothing
            << " ms, coarse " << 1e3*times.smoothing
            << " ms, restriction+prolongation " << 1e3*times.transfer
            << " ms, coarsest " << 1e3*times.coarsest << " ms; "
            << times.sweepLevels << " dependent sweep levels" << endl;
    }

    const solverPerformance perf = performance(type(), result);

    if (check)
    {
        checkNative("GAMG", psi0, source, cmpt, perf);
    }

    return perf;
}
