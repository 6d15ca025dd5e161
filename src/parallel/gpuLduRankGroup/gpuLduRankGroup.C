/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduRankGroup.H"
#include "gpuLduCoupling.H"
#include "gpuLduRankGroupOwnerCoupling.H"
#include "gpuLduDevices.H"
#include "processorLduInterface.H"
#include "PstreamReduceOps.H"
#include "UIPstream.H"
#include "UOPstream.H"

#include <cstdlib>

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(gpuLduRankGroup, 0);
}


// * * * * * * * * * * * * * * * Local Functions * * * * * * * * * * * * * * * //

namespace
{

//- A rank's places of its coupled patches as gpuLduCoupling takes them
Foam::labelList couplingPlaces(const std::vector<gpuLdu::PatchPlace>& places)
{
    Foam::labelList phase(Foam::label(places.size()));
    forAll(phase, patchi)
    {
        switch (places[patchi])
        {
            case gpuLdu::PatchPlace::early:
                phase[patchi] = Foam::gpuLduCoupling::early;
                break;
            case gpuLdu::PatchPlace::late:
                phase[patchi] = Foam::gpuLduCoupling::late;
                break;
            case gpuLdu::PatchPlace::inSystem:
                phase[patchi] = Foam::gpuLduCoupling::inSystem;
                break;
        }
    }
    return phase;
}

//- The group rank across each of a rank's coupled patches: a plain
//  processor patch's (processorCyclic may transform: host), or where every
//  rank is in a group of several (groupsMeet) a processor patch to another
//  group's rank as gpuLdu::remotePatch (their owners exchange those faces)
Foam::labelList patchNeighbours
(
    const Foam::lduInterfaceFieldPtrsList& interfaces,
    const Foam::labelList& ranks,
    const bool groupsMeet
)
{
    using namespace Foam;
    labelList nbr(interfaces.size(), gpuLdu::noPatch);
    forAll(interfaces, patchi)
    {
        if (!interfaces.set(patchi))
        {
            continue;
        }
        nbr[patchi] = gpuLdu::hostPatch;
        const lduInterfaceField& field = interfaces[patchi];
        const processorLduInterface* proc =
            dynamic_cast<const processorLduInterface*>(&field.interface());
        if
        (
            proc
         && field.type() == "processor"
         && proc->comm() == UPstream::worldComm
        )
        {
            const label r = gpuLduCompat::indexOf(ranks, proc->neighbProcNo());
            nbr[patchi] = r >= 0 || !groupsMeet
                ? r : gpuLdu::remotePatch(proc->neighbProcNo());
        }
    }
    return nbr;
}


//- Whether a rank updates its interfaces in patch order: under commsType
//  scheduled OpenFOAM follows the mesh's patch schedule instead, and a cell
//  on two patches takes their terms in the schedule's order, which the
//  system's terms (patch and face order) follow only where the two agree
bool updatedInPatchOrder
(
    const Foam::lduAddressing& addr,
    const Foam::lduInterfaceFieldPtrsList& interfaces
)
{
    using namespace Foam;
    if (UPstream::defaultCommsType != UPstream::commsTypes::scheduled)
    {
        return true;
    }
    label last = -1;
    for (const lduScheduleEntry& entry : addr.patchSchedule())
    {
        if (!entry.init && entry.patch < interfaces.size()
         && interfaces.set(entry.patch))
        {
            if (entry.patch <= last)
            {
                return false;
            }
            last = entry.patch;
        }
    }
    return true;
}


//- Whether every rank is in a group of several and there are two groups or
//  more (several devices or nodes): then the groups' faces to each other may
//  be read across
bool groupsMeet()
{
    using namespace Foam;
    label nGroups = 0;
    forAll(gpuLduDevices::groupOwners(), r)
    {
        nGroups += gpuLduDevices::groupOwners()[r] == r;
    }
    return gpuLduDevices::everyRankGrouped() && nGroups > 1;
}


//- Whether the groups' owners exchange the faces between groups: where
//  every rank of the mesh keeps its processor patches in its system (one
//  stretch, in patch order; collective: every rank holds a group); else
//  patchNbr's patches to other groups become each rank's own interfaces
bool readAcross(Foam::labelList& patchNbr, const bool inPatchOrder)
{
    using namespace Foam;
    const bool halo = returnReduce
    (
        inPatchOrder
     && gpuLdu::groupPatchesContiguous
        (
            std::vector<int>(patchNbr.begin(), patchNbr.end())
        ),
        andOp<bool>(), Pstream::msgType(), UPstream::worldComm
    );
    for (label& nbr : patchNbr)
    {
        nbr = !halo && gpuLdu::isRemotePatch(nbr) ? label(gpuLdu::hostPatch) : nbr;
    }
    Info<< "gpuLduRankGroup: the groups' processor faces to each other "
        << (
               halo
             ? "read across: their owners exchange x there, one message per"
               " neighbouring group"
             : "are each rank's own interfaces (a rank's processor patches"
               " are not one stretch of its patches, processorCyclic between"
               " them, or are updated out of patch order)"
           ) << endl;
    return halo;
}

} // End anonymous namespace


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduRankGroup::gpuLduRankGroup
(
    const labelList& ranks,
    const label comm,
    gpuLdu::Executor executor,
    const lduAddressing& addr,
    const lduInterfaceFieldPtrsList& interfaces
)
:
    ranks_(ranks),
    comm_(comm),
    executor_(executor),
    patchPhase_(interfaces.size(), gpuLduCoupling::late),
    patchNbr_(interfaces.size(), gpuLdu::noPatch),
    inPatchOrder_(true),
    nCells_(addr.size()),
    nFaces_(addr.lowerAddr().size()),
    nTerms_(0),
    nHostCells_(0),
    matrixVersion_(0),
    gamgAgglomeration_(nullptr),
    gamgShared_(false),
    gamgLocalSums_(false),
    gamgCoarsestGatheredSaid_(false),
    allInSystem_(false),
    directCoarsestLogged_(false)
{
    const bool meet = groupsMeet();
    patchNbr_ = patchNeighbours(interfaces, ranks_, meet);
    world_.rank.assign(ranks_.begin(), ranks_.end());
    world_.ownerOf.assign
    (
        gpuLduDevices::groupOwners().begin(), gpuLduDevices::groupOwners().end()
    );
    inPatchOrder_ = updatedInPatchOrder(addr, interfaces);
    const bool halo = meet && readAcross(patchNbr_, inPatchOrder_);

    // The owner combines the ranks' addressing and decides whether the
    // group keeps its patches on the host; this rank's patches kept to find
    // its own places then
    rankSetup mine;
    mine.levels.push_back(rankLevel(addr));
    gpuLdu::RankLevel level;
    level.patchNeighbour = mine.levels[0].patchNeighbour;
    level.patchCells = mine.levels[0].patchCells;
    const bool onHost = agree
    (
        std::move(mine),
        [this](std::vector<rankSetup>& setups, double receivedSeconds) -> bool
        {
            std::vector<gpuLdu::RankLevel> levels;
            for (rankSetup& s : setups)
            {
                levels.push_back(std::move(s.levels[0]));
            }
            return combine(levels, receivedSeconds);
        }
    );

    const std::vector<gpuLdu::PatchPlace> places =
        gpuLdu::patchPlaces(level.patchNeighbour, onHost);
    patchPhase_ = couplingPlaces(places);
    nTerms_ = gpuLdu::systemTermCount(level, places);
    nHostCells_ = gpuLdu::hostInterfaceCells(level, places).size();
    bool allInSystem = true;
    forAll(patchNbr_, patchi)
    {
        allInSystem = allInSystem && (patchNbr_[patchi] == gpuLdu::noPatch
            || places[patchi] == gpuLdu::PatchPlace::inSystem);
    }
    allInSystem_ =
        returnReduce(allInSystem, andOp<bool>(), groupTag + 1, comm_);
    if (halo && executor_ == gpuLdu::Executor::gpu && owner())
    {
        openDeviceExchange();
    }
    const gpuLdu::Stopwatch watch;
    shareValues();
    if (debug)
    {
        Info<< "gpuLduRankGroup: the shared values made and mapped in "
            << watch.seconds() << " s" << endl;
    }
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

void Foam::gpuLduRankGroup::openDeviceExchange()
{
    // The owners' communicator lists them in ascending mesh rank
    const label comm = gpuLduDevices::ownersComm();
    std::vector<int> owners;
    forAll(gpuLduDevices::groupOwners(), r)
    {
        if (gpuLduDevices::groupOwners()[r] == r)
        {
            owners.push_back(r);
        }
    }
    // (NCCL takes one rank a device)
    const char* choice = std::getenv("GPULDU_GROUP_EXCHANGE");
    const std::string why = choice && std::string(choice) == "host"
        ? "GPULDU_GROUP_EXCHANGE=host"
      : !gpuLduDevices::ownersOnTheirOwnDevices()
        ? "two groups' owners share a device"
      : gpuLdu::deviceExchangeUnavailable();
    if (!returnReduce(why.empty(), andOp<bool>(), Pstream::msgType(), comm))
    {
        Info<< "gpuLduRankGroup: the owners exchange the faces between groups"
            << " through the host (" << (why.empty() ? "not on every owner" : why.c_str())
            << ")" << endl;
        return;
    }

    // owner 0 makes the communicator's id and hands it to the others
    const label me = UPstream::myProcNo(comm);
    std::vector<char> id(128);
    if (me == 0)
    {
        id = gpuLdu::deviceExchangeId();
        for (label k = 1; k < UPstream::nProcs(comm); ++k)
        {
            UOPstream::write
            (
                UPstream::commsTypes::scheduled, k, id.data(), id.size(),
                groupTag, comm
            );
        }
    }
    else
    {
        UIPstream::read
        (
            UPstream::commsTypes::scheduled, 0, id.data(), id.size(),
            groupTag, comm
        );
    }
    try
    {
        deviceExchange_ = gpuLdu::openDeviceExchange(id, owners, me);
    }
    catch (const gpuLdu::Error& e)
    {
        FatalErrorInFunction
            << "owner " << me << " of " << owners.size() << ": " << e.what()
            << exit(FatalError);
    }
    Info<< "gpuLduRankGroup: the owners exchange the faces between groups on"
        << " the device: " << deviceExchange_->describe().c_str() << endl;
}


gpuLdu::RankLevel Foam::gpuLduRankGroup::rankLevel
(
    const lduAddressing& addr
) const
{
    gpuLdu::RankLevel level;
    level.nCells = addr.size();
    gpuLdu::reserveOnHugePages(level.lower, addr.lowerAddr().size());
    level.lower.assign(addr.lowerAddr().begin(), addr.lowerAddr().end());
    gpuLdu::reserveOnHugePages(level.upper, addr.upperAddr().size());
    level.upper.assign(addr.upperAddr().begin(), addr.upperAddr().end());
    level.patchNeighbour.assign(patchNbr_.begin(), patchNbr_.end());
    level.patchCells.resize(patchNbr_.size());
    forAll(patchNbr_, patchi)
    {
        if (patchNbr_[patchi] != gpuLdu::noPatch)
        {
            const labelUList& cells = addr.patchAddr(patchi);
            level.patchCells[patchi].assign(cells.begin(), cells.end());
        }
    }
    level.inPatchOrder = inPatchOrder_;
    return level;
}


bool Foam::gpuLduRankGroup::combine
(
    const std::vector<gpuLdu::RankLevel>& levels,
    const double receivedSeconds
)
{
    const gpuLdu::Stopwatch watch;
    try
    {
        combined_ = gpuLdu::combineRanks(levels, ranks_.size(), &world_);
    }
    catch (const gpuLdu::Error& e)
    {
        FatalErrorInFunction
            << "the ranks of the group " << ranks_ << ": " << e.what()
            << exit(FatalError);
    }
    systemHosts_ = gpuLdu::hostPhases(combined_);
    termDest_.assign(1, gpuLdu::termDestinations(combined_.termSource));
    systemCoeffLocks_.clear();
    termCoeffs_.resize(combined_.termSource.size());
    termIntCoeffs_.resize(combined_.termSource.size());
    if (owner() && executor_ == gpuLdu::Executor::gpu)
    {
        for (std::vector<double>* c : {&termCoeffs_, &termIntCoeffs_})
        {
            systemCoeffLocks_.emplace_back(c->data(), c->size());
        }
    }
    const label nCells = combined_.nCells();

    OSstream& log = ownerLog();
    log<< "gpuLduRankGroup: one system for ranks";
    forAll(ranks_, r)
    {
        log<< " " << ranks_[r];
    }
    log<< ": " << nCells << " cells, " << combined_.termSource.size()
        << " processor-face terms in the system ("
        << combined_.halo.nHalo() << " across to "
        << combined_.halo.neighbours.size() << " other groups), "
        << combined_.hostCells.size() << " interface cells on the host"
        << (combined_.onHost ? " (patches to the group not one stretch, not"
            " matching, or updated out of patch order by commsType scheduled:"
            " all on the host)" : "")
        << "; the ranks' addressing in " << receivedSeconds
        << " s, combined in " << watch.seconds() << " s" << endl;

    return combined_.onHost;
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

gpuLdu::LduSystem* Foam::gpuLduRankGroup::system()
{
    if (!owner() || system_)
    {
        return system_.get();
    }
    const gpuLdu::Stopwatch watch;
    system_ = gpuLdu::makeLduSystem(executor_, combined_.view());
    systemMatrix_ = heldMatrix();
    // the world's ranks (a group solves together only where its ranks share
    // the mesh: the system is made before a mesh is seen)
    system_->setParts(combined_.rowStart);
    const std::vector<int> slots =
        ownerCoupling::partSlots(ranks_, UPstream::worldComm);
    if (!slots.empty())
    {
        system_->setPartSlots(slots, UPstream::nProcs(UPstream::worldComm));
    }
    system_->setDeviceCouplings(combined_.couplings);
    system_->setInterfaces(combined_.hostCells);
    Info<< "gpuLduRankGroup: the group's system built in "
        << watch.seconds() << " s" << endl;
    return system_.get();
}


void Foam::gpuLduRankGroup::locate
(
    const label index,
    const bool isFace,
    label& rank,
    label& local
) const
{
    // rank k's rows (faces) are [start[k], start[k + 1])
    const gpuLdu::PartIndex p = gpuLdu::locatePart
    (
        isFace ? combined_.faceStart : combined_.rowStart, index
    );
    rank = p.part < 0 ? -1 : ranks_[p.part];
    local = p.local;
}


gpuLdu::SolveResult Foam::gpuLduRankGroup::solve
(
    gpuLdu::KrylovMethod method,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const gpuLduCoupling& coupling,
    scalarField& psi,
    const scalarField& source,
    const gpuLdu::SolverControls& controls,
    gpuLdu::Preconditioner preconditioner
)
{
    const auto ownerSolve = [&]() -> gpuLdu::SolveResult
    {
        gpuLdu::LduSystem& sys = *system();
        giveMatrix(sys, systemMatrix_, matrix);
        sys.setDeviceCouplingCoeffs(termCoeffs_.data(), termIntCoeffs_.data());
        const ownerCoupling group
        (
            *this, &coupling, systemHosts_, 0, matrix.mesh().comm(),
            ownerCoupling::localSums(ranks_.size(), executor_, UPstream::worldComm)
        );
        return sys.solve
        (
            method, values_.psi, values_.source, controls, preconditioner, group
        );
    };
    return solveTogether
    (
        matrix, interfaceBouCoeffs, interfaceIntCoeffs, nullptr, {&coupling},
        psi, source, ownerSolve,
        owner() ? aheadTo(*system(), systemMatrix_, matrix) : nullptr
    );
}


// ************************************************************************* //
