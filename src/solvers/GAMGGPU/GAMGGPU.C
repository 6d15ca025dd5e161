/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "GAMGGPU.H"
#include "GAMGAgglomeration.H"
#include "gpuLduCache.H"
#include "gpuLduGamgCouplings.H"
#include "gpuLduRankGroup.H"
#include "gpuLduCoarsestLU.H"
#include "PstreamReduceOps.H"

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

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

gpuLdu::SolveResult Foam::GAMGGPU::solveOwn
(
    gpuLduCache& cache,
    const gpuLdu::Executor exec,
    const GAMGAgglomeration& agglomeration,
    const gpuLduGamgCouplings& couplings,
    const bool directSolveCoarsest,
    gpuLdu::GamgControls& gamg,
    scalarField& psi,
    const scalarField& source,
    std::vector<int>& levelCells
) const
{
    const gpuLdu::Stopwatch systemWatch;
    gpuLdu::GamgHierarchy& hierarchy =
        cache.gamgHierarchy(exec, matrix_.lduAddr(), agglomeration);
    const double systemSeconds = systemWatch.seconds();
    // gpuLduSolver 2: the V-cycle's parts timed (the device waited
    // for between parts, which slows the solve)
    hierarchy.setTimed(gpuLduSolver::debug >= 2);
    hierarchy.setInterfaces(couplings.cells());

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
    std::unique_ptr<gpuLduCoarsestLU> direct;
    if (directSolveCoarsest && !gamg.directCoarsest)
    {
        direct.reset
        (
            new gpuLduCoarsestLU
            (
                agglomeration.meshLevel(coarsest),
                couplings.interfaceBouCoeffs(coarsest),
                couplings.interfaces(coarsest)
            )
        );
    }
    hierarchy.setCoarsestSolver(direct.get());
    const gpuLdu::Stopwatch matrixWatch;
    hierarchy.setMatrix
    (
        matrix_.diag().cdata(),
        matrix_.upper().cdata(),
        matrix_.hasLower() ? matrix_.lower().cdata() : nullptr
    );
    const double matrixSeconds = matrixWatch.seconds();
    gpuLdu::SolveResult result = hierarchy.solve
    (
        psi.data(),
        source.cdata(),
        controls(),
        gamg,
        couplings.couplings()
    );
    // upload: the matrix values, psi and the source
    result.times.upload += matrixSeconds;
    result.times.levelSystems = systemSeconds;
    hierarchy.setCoarsestSolver(nullptr);
    levelCells = hierarchy.levelCells();
    return result;
}


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::GAMGGPU::GAMGGPU
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
    )
{
    readSolverControls();
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

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
        "agglomerator", "nCellsInCoarsestLevel", "mergeLevels", "nLevels",
        // this plugin's: the levels gathered on every device (several GPUs)
        "gatheredLevelCells"
    };
    // and those of this release only (gpuLduCompat::gamgKeywords)
    keys.append(gpuLduCompat::gamgKeywords());
    return keys;
}


void Foam::GAMGGPU::readControls()
{
    gpuLduSolver::readControls();

    const bool symmetric = matrix_.symmetric();
    gamgSettings& s = settings_;
    s = gamgSettings();
    s.directSolveCoarsest =
        controlDict_.lookupOrDefault<bool>("directSolveCoarsest", false);
    s.cacheAgglomeration =
        controlDict_.lookupOrDefault<bool>("cacheAgglomeration", true);
    gpuLdu::GamgControls& c = s.core;

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
    // several GPUs (or nodes): the levels from the first whose largest
    // device has at most this many cells gathered on every device (0:
    // none; by default 250000 with executor gpu, none with cpu)
    label gathered = -1;
    if (controlDict_.readIfPresent("gatheredLevelCells", gathered))
    {
        if (gathered < 0)
        {
            errors().negativeCount
            (
                "gatheredLevelCells", gathered,
                {
                    {"0", "no level gathered"},
                    {"N", "the levels from the first with at most N cells on"
                          " each device gathered on every device (default"
                          " 250000 with executor gpu, 0 with cpu)"}
                }
            );
        }
        c.gatheredLevelRows = gathered;
    }

    // The smoother table OpenFOAM picks by the matrix's symmetry
    const word name = lduMatrix::smoother::getName(controlDict_);
    try
    {
        c.smoother = gpuLdu::smootherFromName(name, symmetric);
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue
        (
            "smoother", name, gpuLdu::smootherNames(symmetric)
        );
    }
}


Foam::word Foam::GAMGGPU::nativeType() const
{
    return "GAMG";
}


void Foam::GAMGGPU::checkComparable() const
{
    if (!gpuLdu::isOpenFOAMs(settings_.core.smoother))
    {
        errors().noNativeSmoother(lduMatrix::smoother::getName(controlDict_));
    }
}


Foam::word Foam::GAMGGPU::pivotRole() const
{
    return "smoother";
}


Foam::gpuLduRankGroup* Foam::GAMGGPU::hierarchyGroup
(
    gpuLduCache& cache,
    const gpuLdu::Executor exec,
    const GAMGAgglomeration& agglomeration,
    const bool directSolveCoarsest
) const
{
    gpuLduRankGroup* group =
        cache.rankGroup(exec, matrix_.lduAddr(), interfaces_);
    if
    (
        group
     && (
            (
                directSolveCoarsest
             && !group->gamgDirectCoarsest(matrix_.mesh().comm())
            )
         || !group->gamgShared(exec, agglomeration)
        )
    )
    {
        // each rank its own hierarchy (directSolveCoarsest: OpenFOAM's LU
        // of every rank's coarsest level, which a group of some of the
        // ranks, or with patches outside its system, does not hold)
        group = nullptr;
    }
    // The groups' hierarchies meet where every rank of the mesh is in one
    // (their owners exchange the faces between groups, gpuLdu::GroupHalo,
    // which a rank's own hierarchy does not; a rank alone on its device is
    // a group of one): where some group keeps per-rank hierarchies, every
    // rank keeps its own (beside a rank's own hierarchy the groups' were
    // seen to hang when they met through their ranks' interfaces)
    const label comm = matrix_.mesh().comm();
    const label inGroups = Pstream::parRun()
      ? returnReduce(label(group != nullptr), sumOp<label>(), Pstream::msgType(), comm)
      : 0;
    if (inGroups > 0 && inGroups < UPstream::nProcs(comm))
    {
        static bool logged = false;
        if (!logged)
        {
            Info<< "gpuLduRankGroup: each rank keeps its own GAMG hierarchy (a"
                << " rank of the mesh is not in a group of several ranks, or its"
                << " group keeps its own)" << endl;
            logged = true;
        }
        group = nullptr;
    }
    return group;
}


Foam::solverPerformance Foam::GAMGGPU::solveByCore
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt,
    const gpuLdu::Executor exec,
    gpuLduRankGroup*& group
) const
{
    const gpuLdu::Stopwatch solveWatch;
    const bool directSolveCoarsest = settings_.directSolveCoarsest;
    // (the hierarchy's own choices made into it: directCoarsest, ...)
    gpuLdu::GamgControls gamg = settings_.core;
    gpuLduCache& c = cache(exec);

    // OpenFOAM's agglomeration of this mesh, as native GAMG takes it
    // (agglomerator, nCellsInCoarsestLevel, mergeLevels)
    const GAMGAgglomeration& agglomeration =
        GAMGAgglomeration::New(matrix_, controlDict_);
    const double agglomerationSeconds = solveWatch.seconds();
    if (agglomeration.processorAgglomerate())
    {
        errors().processorAgglomeration();
    }

    // Decomposed, the ranks sharing a device as one hierarchy where they
    // can be (gpuLduRankGroup); else each rank its own
    const gpuLdu::Stopwatch groupWatch;
    group = hierarchyGroup(c, exec, agglomeration, directSolveCoarsest);
    const double groupSeconds = groupWatch.seconds();

    // Every level's interfaces and interface coefficients, as
    // GAMGSolver's constructor makes them (cyclic, processor, ...), each
    // patch where the group's hierarchy takes it on every level
    const gpuLdu::Stopwatch interfacesWatch;
    const gpuLduGamgCouplings couplings
    (
        agglomeration, matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
        interfaces_, cmpt, group ? group->patchPhase() : labelList()
    );
    const double interfacesSeconds = interfacesWatch.seconds();

    // (none on a rank of a group that is not its owner)
    std::vector<int> levelCells;
    gpuLdu::SolveResult result;
    if (group)
    {
        result = group->solveGamg
        (
            matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_, couplings,
            psi, source, controls(), gamg, directSolveCoarsest,
            gpuLduSolver::debug >= 2
        );
        if (const gpuLdu::GamgHierarchy* hierarchy = group->gamgHierarchy())
        {
            levelCells = hierarchy->levelCells();
        }
    }
    else
    {
        result = solveOwn
        (
            c, exec, agglomeration, couplings, directSolveCoarsest, gamg,
            psi, source, levelCells
        );
    }
    result.times.agglomeration = agglomerationSeconds;
    result.times.levelSystems += groupSeconds;
    result.times.interfaces = interfacesSeconds;
    result.times.whole = solveWatch.seconds();

    if (!settings_.cacheAgglomeration)
    {
        // As GAMGSolver's destructor
        c.forgetGamgHierarchies();
        delete &agglomeration;
    }

    logTimes(type(), result, &levelCells, gamg.directCoarsest);
    return performance(type(), result);
}


// ************************************************************************* //
