/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    GAMG for the ranks of a group as one hierarchy. Native mpirun -np N runs
    N hierarchies, each rank agglomerating its own cells; their levels meet
    only through the processor patches of each level (OpenFOAM's
    processorGAMGInterfaces, whose coarse faces both sides number alike) and
    through the reduced sums (scaling, residuals, the coarsest solve). So the
    ranks' level k one after the other, block diagonal, with their processor
    faces as device coupling terms and their sums taken per rank and handed
    to OpenFOAM's reduce by each rank, is native's level k: the coarse
    matrices, smoothers and factors of each block are the rank's own. The
    processor faces to ranks of other groups (other devices or nodes) are
    device terms read across too, their values exchanged by the groups'
    owners (gpuLdu::GroupHalo), where every rank is in a group. The ranks'
    other coupled patches (cyclic, processorCyclic, cyclicAMI) are their
    own coarse interfaces of the level (GAMGInterfaceField, as GAMGSolver
    makes them), updated by each rank at the owner's request in the phase
    of the finest level (early or late of the device terms): native's terms
    in native's order, through OpenFOAM's own exchanges.

\*---------------------------------------------------------------------------*/

#include "gpuLduRankGroupOwnerCoupling.H"
#include "gpuLduGamgCouplings.H"
#include "gpuLduDevices.H"
#include "GAMGAgglomeration.H"

// * * * * * * * * * * * * * * * Local Functions * * * * * * * * * * * * * * * //

namespace
{

//- The ranks' coarse levels combined, level k from every rank's level k (a
//  level on a thread of its own while the other ranks wait for the decision)
std::vector<gpuLdu::CombinedLevel> combineCoarseLevels
(
    std::vector<gpuLdu::RankSetup>& ranks,
    const gpuLdu::GroupWorld& world,
    const Foam::labelList& groupRanks
)
{
    using namespace Foam;
    const label n = ranks.size();
    const label nCoarse = ranks[0].levels.size();
    std::vector<gpuLdu::CombinedLevel> coarse(nCoarse);
    try
    {
        gpuLdu::onHostThreads
        (
            nCoarse, n,
            [&](const int k)
            {
                std::vector<gpuLdu::RankLevel> level(n);
                for (label r = 0; r < n; ++r)
                {
                    level[r] = std::move(ranks[r].levels[k]);
                }
                coarse[k] = gpuLdu::combineRanks(level, 1, &world);
            }
        );
    }
    catch (const gpuLdu::Error& e)
    {
        FatalErrorInFunction
            << "the ranks of the group " << groupRanks << ": " << e.what()
            << exit(FatalError);
    }
    return coarse;
}


//- Each coarsening step of the ranks one after the other, onto the combined
//  coarse levels (a step on a thread of its own)
std::vector<gpuLdu::CombinedCoarsening> combineSteps
(
    std::vector<gpuLdu::RankSetup>& ranks,
    const std::vector<gpuLdu::CombinedLevel>& coarse
)
{
    const int n = ranks.size();
    std::vector<gpuLdu::CombinedCoarsening> steps(coarse.size());
    gpuLdu::onHostThreads
    (
        int(coarse.size()), n,
        [&](const int k)
        {
            std::vector<gpuLdu::Coarsening> step(n);
            for (int r = 0; r < n; ++r)
            {
                step[r] = std::move(ranks[r].steps[k]);
            }
            steps[k] = gpuLdu::combineCoarsening(step, coarse[k]);
        }
    );
    return steps;
}


//- Where the hierarchy's global sums are made, as its set-up line says
const char* sumsPhrase
(
    const bool localSums,
    const bool ownersSum,
    const bool deviceExchange
)
{
    return
        localSums ? "sums on the device"
      : !ownersSum ? "sums per rank"
      : deviceExchange ? "sums per group, summed among the owners on the device"
      : "sums per group, reduced among the owners";
}


//- The set-up line of a group's one hierarchy, up to its times: its ranks,
//  levels, processor-face terms, the finest level's interface cells on the
//  host and where the sums are made
void sayOneHierarchy
(
    Foam::OSstream& log,
    const Foam::labelList& ranks,
    const std::vector<const gpuLdu::CombinedLevel*>& levels,
    const Foam::label nTerms,
    const char* sums
)
{
    using namespace Foam;
    const gpuLdu::CombinedLevel& finest = *levels.front();
    log<< "gpuLduRankGroup: one GAMG hierarchy for ranks";
    for (const label r : ranks)
    {
        log<< " " << r;
    }
    log<< ": " << levels.size() << " levels (" << finest.nCells() << " to "
        << levels.back()->nCells() << " cells), " << nTerms
        << " processor-face terms on the levels, "
        << finest.hostCells.size() << " finest interface cells on the host"
        << (finest.onHost ? " (every patch: see the group's system)" : "")
        << ", " << sums;
}


//- This rank's interface coefficients of the coarse levels on its patches in
//  the group's system (A's, then A^T's, level after level): its part of the
//  GAMG hand-over
std::vector<double> coarseInSystemCoeffs
(
    const Foam::gpuLduGamgCouplings& couplings,
    const Foam::labelList& patchPhase
)
{
    using namespace Foam;
    std::vector<double> mine;
    const label nLevels = couplings.couplings().size();
    for (label k = 1; k < nLevels; ++k)
    {
        for (const auto* coeffs :
            {&couplings.interfaceBouCoeffs(k), &couplings.interfaceIntCoeffs(k)})
        {
            forAll(patchPhase, patchi)
            {
                if (patchPhase[patchi] == gpuLduCoupling::inSystem)
                {
                    const scalarField& c = (*coeffs)[patchi];
                    mine.insert(mine.end(), c.begin(), c.end());
                }
            }
        }
    }
    return mine;
}


//- The coarse levels' interface coefficient buffers (bou, intl: one a level,
//  the finest's unused) page-locked into locks, so that each solve's upload
//  reads them directly (the owner's, executor gpu)
void pageLockCoarseCoeffs
(
    std::vector<std::vector<double>>& bou,
    std::vector<std::vector<double>>& intl,
    std::vector<gpuLdu::PageLock>& locks
)
{
    for (std::size_t k = 1; k < bou.size(); ++k)
    {
        for (std::vector<double>* c : {&bou[k], &intl[k]})
        {
            locks.emplace_back(c->data(), c->size());
        }
    }
}


//- The line that says which of the small levels a solve gathered on each
//  group's device; whether it said one (nothing where it gathered none)
bool sayGathered(Foam::OSstream& log, const gpuLdu::SolveTimes& times)
{
    using namespace Foam;
    if (times.coarsestGatheredRows > 0)
    {
        log<< "gpuLduRankGroup: GAMG's coarsest level of every group"
            << " gathered on each group's device ("
            << times.coarsestGatheredRows << " rows) and solved whole there"
            << endl;
        return true;
    }
    if (times.gatheredFromLevel > 0)
    {
        log<< "gpuLduRankGroup: GAMG's levels from level "
            << times.gatheredFromLevel
            << " of every group gathered on each group's device ("
            << times.gatheredLevelRows << " rows there) and run whole there"
            << endl;
        return true;
    }
    return false;
}

} // End anonymous namespace


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

bool Foam::gpuLduRankGroup::combineGamg
(
    gpuLdu::Executor executor,
    const label meshComm,
    std::vector<rankSetup>& ranks
)
{
    const gpuLdu::Stopwatch watch;
    const bool wholeMesh = UPstream::nProcs(meshComm) == ranks_.size();
    const label nLevels = ranks[0].levels.size() + 1;

    // Level k: the ranks' level k one after the other. The finest level is
    // the mesh's own addressing, which the group's system combined already
    // (combined_: the same patches, terms and order), so the ranks send the
    // coarse levels only
    const std::vector<gpuLdu::CombinedLevel> coarse =
        combineCoarseLevels(ranks, world_, ranks_);
    std::vector<const gpuLdu::CombinedLevel*> combined{&combined_};
    for (const gpuLdu::CombinedLevel& c : coarse)
    {
        combined.push_back(&c);
    }
    if (!gpuLdu::oneHierarchy(combined))
    {
        return false;
    }

    const std::vector<gpuLdu::CombinedCoarsening> steps =
        combineSteps(ranks, coarse);
    std::vector<gpuLdu::GamgLevelView> views;
    for (label k = 0; k + 1 < nLevels; ++k)
    {
        views.push_back(steps[k].view(coarse[k]));
    }
    const double combinedSeconds = watch.seconds();

    gamg_ = gpuLdu::makeGamgHierarchy(executor, combined_.view(), views);
    gamgMatrix_ = heldMatrix();
    std::vector<std::vector<int>> parts, hostCells;
    std::vector<gpuLdu::DeviceCouplings> couplings;
    gamgHosts_.clear();
    gamgTermStart_.clear();
    gamgTermDest_.clear();
    gamgCoeffLocks_.clear();
    gamgTermBou_.assign(nLevels, std::vector<double>());
    gamgTermInt_.assign(nLevels, std::vector<double>());
    label nTerms = 0;
    for (const gpuLdu::CombinedLevel* c : combined)
    {
        const label k = gamgTermStart_.size();
        parts.push_back(c->rowStart);
        couplings.push_back(c->couplings);
        hostCells.push_back(c->hostCells);
        gamgHosts_.push_back(gpuLdu::hostPhases(*c));
        gamgTermStart_.push_back(c->termStart);
        gamgTermDest_.push_back
        (
            k == 0 ? termDest_[0] : gpuLdu::termDestinations(c->termSource)
        );
        if (k > 0)
        {
            gamgTermBou_[k].resize(c->termSource.size());
            gamgTermInt_[k].resize(c->termSource.size());
        }
        nTerms += c->termSource.size();
    }
    if (owner() && executor == gpuLdu::Executor::gpu)
    {
        pageLockCoarseCoeffs(gamgTermBou_, gamgTermInt_, gamgCoeffLocks_);
    }
    gamgLocalSums_ = ownerCoupling::localSums(ranks_.size(), executor, meshComm);
    gamgCoarsestLU_.reset
    (
        wholeMesh && allInSystem_
      ? new gpuLduCombinedCoarsestLU(*combined.back()) : nullptr
    );
    gamg_->setParts(parts);
    const std::vector<int> slots =
        ownerCoupling::partSlots(ranks_, meshComm);
    if (!slots.empty())
    {
        gamg_->setPartSlots(slots, UPstream::nProcs(meshComm));
    }
    gamg_->setDeviceCouplings(couplings);
    gamg_->setInterfaces(hostCells);

    const bool ownersSum = ownerCoupling::ownersSums(executor, meshComm) >= 0;
    OSstream& log = ownerLog();
    sayOneHierarchy
    (
        log, ranks_, combined, nTerms,
        sumsPhrase(bool(gamgLocalSums_), ownersSum, bool(deviceExchange_))
    );
    log<< "; set up in " << watch.seconds() << " s (combined "
        << combinedSeconds << " s)" << endl;
    return true;
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

bool Foam::gpuLduRankGroup::gamgShared
(
    gpuLdu::Executor executor,
    const GAMGAgglomeration& agglomeration
)
{
    if (gamgAgglomeration_ == &agglomeration)
    {
        return gamgShared_;
    }
    gamgAgglomeration_ = &agglomeration;
    gamg_.reset();
    gamgShared_ = false;
    gamgCoarsestGatheredSaid_ = false;

    // This rank can be part of one hierarchy where it updates its coupled
    // patches in patch order; then its coarse levels (the finest is the mesh
    // the group combined already) and the coarsening steps
    const gpuLdu::Stopwatch prepareWatch;
    rankSetup mine;
    mine.eligible =
        inPatchOrder_
     && agglomeration.meshLevel(0).lduAddr().size() == nCells_
     && agglomeration.meshLevel(0).lduAddr().lowerAddr().size() == nFaces_;
    const label nLevels = agglomeration.size() + 1;
    for (label k = 0; k + 1 < nLevels && mine.eligible; ++k)
    {
        // coarsening step k, and the coarse level k + 1 it makes
        gpuLdu::Coarsening step;
        const labelList& r = agglomeration.restrictAddressing(k);
        const labelList& fr = agglomeration.faceRestrictAddressing(k);
        const boolList& flip = agglomeration.faceFlipMap(k);
        gpuLdu::reserveOnHugePages(step.restrictAddressing, r.size());
        step.restrictAddressing.assign(r.begin(), r.end());
        gpuLdu::reserveOnHugePages(step.faceRestrictAddressing, fr.size());
        step.faceRestrictAddressing.assign(fr.begin(), fr.end());
        step.faceFlipMap.assign(flip.begin(), flip.end());
        mine.steps.push_back(std::move(step));
        mine.levels.push_back
        (
            rankLevel(agglomeration.meshLevel(k + 1).lduAddr())
        );
    }

    if (debug)
    {
        Info<< "gpuLduRankGroup: the first rank's GAMG levels and steps copied"
            << " in " << prepareWatch.seconds() << " s" << endl;
    }

    const label meshComm = agglomeration.meshLevel(0).comm();
    gamgShared_ = agree
    (
        std::move(mine),
        [&](std::vector<rankSetup>& ranks, double) -> bool
        {
            bool shareable = true;
            for (const rankSetup& r : ranks)
            {
                shareable = shareable && r.eligible
                    && label(r.levels.size()) == nLevels - 1;
            }
            shareable =
                shareable && combineGamg(executor, meshComm, ranks);
            if (!shareable)
            {
                Info<< "gpuLduRankGroup: each rank of the group keeps its"
                    << " own GAMG hierarchy (a rank updates its coupled"
                    << " patches out of patch order, under commsType"
                    << " scheduled, or its levels differ from the group's):"
                    << " exact, but slower than one hierarchy" << endl;
            }
            return shareable;
        }
    );
    return gamgShared_;
}


bool Foam::gpuLduRankGroup::gamgDirectCoarsest(const label meshComm) const
{
    // OpenFOAM's LU of the coarsest level takes every rank of the mesh, and
    // the group's (gpuLduCombinedCoarsestLU) the level's device terms only
    const bool can =
        allInSystem_ && UPstream::nProcs(meshComm) == ranks_.size();
    if (!can && !directCoarsestLogged_)
    {
        Info<< "gpuLduRankGroup: each rank of the group keeps its own GAMG"
            << " hierarchy for directSolveCoarsest (OpenFOAM's LU of every"
            << " rank's coarsest level: the group is not every rank of the"
            << " mesh, or has coupled patches outside its system)" << endl;
        directCoarsestLogged_ = true;
    }
    return can;
}


void Foam::gpuLduRankGroup::forgetGamg()
{
    gamgAgglomeration_ = nullptr;
    gamgShared_ = false;
    gamg_.reset();
    gamgCoarsestLU_.reset();
}


gpuLdu::SolveResult Foam::gpuLduRankGroup::solveGamg
(
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const gpuLduGamgCouplings& couplings,
    scalarField& psi,
    const scalarField& source,
    const gpuLdu::SolverControls& controls,
    const gpuLdu::GamgControls& gamg,
    const bool directSolveCoarsest,
    const bool timed
)
{
    // The hand-over: the finest level's values and terms as the Krylov
    // system's, with the coarse levels' interface coefficients of this
    // rank's patches in the system
    const label nLevels = couplings.couplings().size();
    std::vector<double> mine = coarseInSystemCoeffs(couplings, patchPhase_);

    const auto ownerSolve = [&]() -> gpuLdu::SolveResult
    {
        giveMatrix(*gamg_, gamgMatrix_, matrix);
        std::vector<const double*> bou{termCoeffs_.data()};
        std::vector<const double*> intCoeffs{termIntCoeffs_.data()};
        for (label k = 1; k < nLevels; ++k)
        {
            bou.push_back(gamgTermBou_[k].data());
            intCoeffs.push_back(gamgTermInt_[k].data());
        }
        // (their upload counts with the solve's)
        const gpuLdu::Stopwatch coeffsWatch;
        gamg_->setDeviceCouplingCoeffs(bou, intCoeffs);
        const double coeffsSeconds = coeffsWatch.seconds();
        gamg_->setTimed(timed);
        // directSolveCoarsest: OpenFOAM's LU of the coarsest level with the
        // coefficients of its processor faces from this hand-over
        if (directSolveCoarsest)
        {
            if (!gamgCoarsestLU_)
            {
                FatalErrorInFunction
                    << "directSolveCoarsest: the group's hierarchy is not"
                    << " every rank's (its coarsest level is not the whole"
                    << " mesh's)" << abort(FatalError);
            }
            gamgCoarsestLU_->setTermCoeffs
            (
                nLevels > 1 ? gamgTermBou_[nLevels - 1] : termCoeffs_
            );
        }
        gamg_->setCoarsestSolver
        (
            directSolveCoarsest ? gamgCoarsestLU_.get() : nullptr
        );
        // each level's: the owner's own coupling of the level, the ranks'
        // host cells there
        std::vector<ownerCoupling> group;
        group.reserve(nLevels);
        for (label k = 0; k < nLevels; ++k)
        {
            group.emplace_back
            (
                *this, &couplings.coupling(k), gamgHosts_[k], k,
                matrix.mesh().comm(), gamgLocalSums_,
                gamg.gatheredLevelRows > 0
            );
        }
        std::vector<const gpuLdu::Coupling*> levels;
        for (const ownerCoupling& level : group)
        {
            levels.push_back(&level);
        }
        gpuLdu::SolveResult result =
            gamg_->solve(values_.psi, values_.source, controls, gamg, levels);
        result.times.upload += coeffsSeconds;
        gamg_->setCoarsestSolver(nullptr);
        if (!gamgCoarsestGatheredSaid_)
        {
            gamgCoarsestGatheredSaid_ = sayGathered(ownerLog(), result.times);
        }
        return result;
    };
    return solveTogether
    (
        matrix, interfaceBouCoeffs, interfaceIntCoeffs, &mine,
        couplings.rankCouplings(), psi, source, ownerSolve,
        owner() ? aheadTo(*gamg_, gamgMatrix_, matrix) : nullptr
    );
}


// ************************************************************************* //
