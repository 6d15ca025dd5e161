/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduDevices.H"
#include "gpuLduCompat.H"
#include "OSspecific.H"
#include "error.H"
#include "dictionary.H"
#include "debug.H"
#include "SubList.H"
#include "gpuLdu/gpuLdu.hpp"

#include <cstdlib>
#include <future>
#include <string>

// * * * * * * * * * * * * * * * Local Functions * * * * * * * * * * * * * * //

namespace
{

//- A positive integer from the environment, or 0 where the variable is unset
Foam::label positiveFromEnv(const char* name)
{
    const char* text = std::getenv(name);
    if (!text || !*text)
    {
        return 0;
    }
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*end != '\0' || value < 1 || value > 1000000)
    {
        FatalErrorInFunction
            << name << "=" << text << " is not a positive integer"
            << Foam::exit(Foam::FatalError);
    }
    return Foam::label(value);
}

//- Whether this process is its node's first rank, by the launcher's
//  environment (Open MPI, MPICH and Intel MPI, Slurm); one without it runs
//  alone. The node's first rank is the first of device 0's group (the local
//  ranks are numbered as placeRanks numbers them: by rank)
bool firstOfNode()
{
    for
    (
        const char* name
      : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"}
    )
    {
        const char* text = std::getenv(name);
        if (text && *text)
        {
            return std::string(text) == "0";
        }
    }
    return true;
}

//- CUDA's initialisation, begun when the library is loaded (the thread
//  touches CUDA only; a second call waits for the driver's first). The
//  node's first rank also makes device 0's context there (0.1-0.2 s), while
//  the case loads: it is the one that solves on device 0 with executor gpu,
//  alone or for its group (select); with executor cpu the context stays
//  unused. An error here is left to select's own call to report
std::future<std::string> cudaInitialisation = std::async
(
    std::launch::async,
    []
    {
        const std::string reason = gpuLdu::gpuUnavailableReason();
        if (reason.empty() && firstOfNode())
        {
            try
            {
                gpuLdu::useDevice(0);
            }
            catch (const gpuLdu::Error&)
            {}
        }
        return reason;
    }
);

} // End anonymous namespace


// * * * * * * * * * * * * * Static Member Functions * * * * * * * * * * * * //

const std::string& Foam::gpuLduDevices::gpuUnavailableReason()
{
    static const std::string reason = cudaInitialisation.get();
    return reason;
}


bool Foam::gpuLduDevices::pretending()
{
    return positiveFromEnv("GPULDU_PRETEND_DEVICES") > 0;
}


namespace
{
    //- The ranks whose solves this rank's system holds, and their
    //  communicator (set by select)
    Foam::labelList groupRanks;
    Foam::label groupCommunicator = -1;

    //- Every rank's group owner, whether every rank is in a group that
    //  solves as one (some group has several ranks), and whether the
    //  groups' owners are on devices of their own
    Foam::labelList ownerOfRank;
    bool everyRankInGroup = false;
    bool ownersApart = false;
    Foam::label ownersCommunicator = -1;

    //- This rank's device (set by select; -1 before), and whether it is
    //  this process's current CUDA device yet
    Foam::label rankDevice = -1;
    bool rankDeviceCurrent = false;

    //- Make device this process's current CUDA device; a FatalError naming
    //  the rank where it cannot be used. Returns the device's description.
    std::string useRankDevice(const Foam::label device, const std::string& rank)
    {
        try
        {
            const std::string what = gpuLdu::useDevice(device);
            rankDeviceCurrent = true;
            return what;
        }
        catch (const gpuLdu::Error& e)
        {
            FatalErrorInFunction
                << rank.c_str() << ": " << e.what() << Foam::exit(Foam::FatalError);
        }
        return std::string();
    }
}


void Foam::gpuLduDevices::makeDeviceCurrent()
{
    if (rankDevice >= 0 && !rankDeviceCurrent)
    {
        useRankDevice(rankDevice, "rank " + std::to_string(Pstream::myProcNo()));
    }
}


const Foam::labelList& Foam::gpuLduDevices::group()
{
    return groupRanks;
}


Foam::label Foam::gpuLduDevices::groupComm()
{
    return groupCommunicator;
}


const Foam::labelList& Foam::gpuLduDevices::groupOwners()
{
    return ownerOfRank;
}


bool Foam::gpuLduDevices::everyRankGrouped()
{
    return everyRankInGroup;
}


bool Foam::gpuLduDevices::ownersOnTheirOwnDevices()
{
    return ownersApart;
}


Foam::label Foam::gpuLduDevices::ownersComm()
{
    return ownersCommunicator;
}


Foam::label Foam::gpuLduDevices::ranksPerSystem
(
    const dictionary& controlDict
)
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


namespace
{

//- Where the ranks are: each rank's node (host name, or a pretended one),
//  this rank's place among the ranks of its node, each rank's device (its
//  number among the devices the rank sees) and that device's hardware (the
//  real host's name and the device's PCI bus id; empty where the rank sees
//  no such device)
struct rankPlaces
{
    Foam::List<Foam::word> hosts;
    Foam::label localRank = 0;
    Foam::label localSize = 0;
    Foam::labelList devices;
    Foam::List<Foam::word> hardware;

    //- Whether two ranks share a node and a device: the same hardware where
    //  known, as ranks whose CUDA_VISIBLE_DEVICES a site's wrapper narrowed
    //  may each call a different GPU device 0
    bool together(const Foam::label a, const Foam::label b) const
    {
        return hosts[a] == hosts[b]
            && (known(a, b) ? hardware[a] == hardware[b] : devices[a] == devices[b]);
    }

    //- Whether two ranks' devices are one GPU (pretended nodes of one host
    //  may share it): where the hardware is not known, together
    bool oneGpu(const Foam::label a, const Foam::label b) const
    {
        return known(a, b) ? hardware[a] == hardware[b] : together(a, b);
    }

    //- Whether both ranks' device hardware is known
    bool known(const Foam::label a, const Foam::label b) const
    {
        return !hardware[a].empty() && !hardware[b].empty();
    }

    //- Whether rank r is the first of its (node, device) pair
    bool firstOnItsDevice(const Foam::label r) const
    {
        for (Foam::label q = 0; q < r; ++q)
        {
            if (together(q, r))
            {
                return false;
            }
        }
        return true;
    }
};


//- Every rank's node and device, gathered to all (collective): a node's
//  ranks split over its devices by gpuLdu::deviceOfLocalRanks; the device's
//  hardware where the rank sees such a device (pretended devices too: the
//  pretended nodes of a test may share one GPU)
rankPlaces placeRanks(const Foam::label nDevices)
{
    using namespace Foam;
    const label nProcs = Pstream::nProcs();
    const label me = Pstream::myProcNo();

    rankPlaces places;
    const label ranksPerNode = positiveFromEnv("GPULDU_PRETEND_RANKS_PER_NODE");
    places.hosts.setSize(nProcs);
    places.hosts[me] =
        ranksPerNode
      ? word("node" + std::to_string(me/ranksPerNode))
      : word(hostName());
    gpuLduCompat::allGatherList(places.hosts);

    forAll(places.hosts, rank)
    {
        if (places.hosts[rank] == places.hosts[me])
        {
            places.localRank += (rank < me);
            ++places.localSize;
        }
    }

    places.devices.setSize(nProcs);
    places.devices[me] =
        gpuLdu::deviceOfLocalRanks(places.localSize, nDevices)[places.localRank];
    gpuLduCompat::allGatherList(places.devices);

    places.hardware.setSize(nProcs);
    const std::string busId = gpuLdu::deviceBusId(places.devices[me]);
    if (!busId.empty())
    {
        places.hardware[me] = word(hostName() + "-" + busId);
    }
    gpuLduCompat::allGatherList(places.hardware);
    return places;
}


//- The ranks of this rank's device, and how many of them (chunk) solve as
//  one system: runs of ranksPerSystem (0: all), the first of each solving
void formGroup
(
    const rankPlaces& places,
    const Foam::label ranksPerSystem,
    Foam::labelList& sharing,
    Foam::label& chunk
)
{
    using namespace Foam;
    const label me = Pstream::myProcNo();
    forAll(places.hosts, r)
    {
        if (places.together(r, me))
        {
            sharing.append(r);
        }
    }
    chunk = ranksPerSystem > 0 ? ranksPerSystem : sharing.size();
    const label first = chunk*(gpuLduCompat::indexOf(sharing, me)/chunk);
    groupRanks = labelList
    (
        SubList<label>(sharing, min(chunk, sharing.size() - first), first)
    );
    // (collective: every rank asks for its own group's)
    if (Pstream::parRun())
    {
        groupCommunicator =
            UPstream::allocateCommunicator(UPstream::worldComm, groupRanks);
    }
    ownerOfRank.setSize(Pstream::nProcs());
    ownerOfRank[me] = groupRanks[0];
    labelList sizes(Pstream::nProcs());
    sizes[me] = groupRanks.size();
    gpuLduCompat::allGatherList(ownerOfRank);
    gpuLduCompat::allGatherList(sizes);
    // A rank alone on its device beside groups of several is a group of
    // one, so that every group's faces to the others are read across
    everyRankInGroup = Pstream::parRun() && max(sizes) > 1;
    if (everyRankInGroup)
    {
        // (collective: every rank allocates it, the owners are in it)
        labelList owners;
        forAll(ownerOfRank, r)
        {
            if (ownerOfRank[r] == r)
            {
                owners.append(r);
            }
        }
        // (gpuLduRanksPerSystem N: several groups on one device)
        ownersApart = true;
        forAll(owners, i)
        {
            for (label j = 0; j < i; ++j)
            {
                ownersApart =
                    ownersApart && !places.oneGpu(owners[i], owners[j]);
            }
        }
        ownersCommunicator =
            UPstream::allocateCommunicator(UPstream::worldComm, owners);
    }
}


//- The master's table: per node and device, what the device is (names,
//  gathered from the ranks) and its ranks
void logPlaces
(
    const rankPlaces& places,
    Foam::List<Foam::string>& names,
    const Foam::label pretend
)
{
    using namespace Foam;
    Pstream::gatherList(names);

    label nNodes = 0;
    forAll(places.hosts, rank)
    {
        nNodes += (gpuLduCompat::indexOf(places.hosts, places.hosts[rank]) == rank);
    }
    Info<< "gpuLduSolvers: " << Pstream::nProcs() << " rank(s) on " << nNodes
        << " node(s) share their GPUs by node-local rank";
    if (pretend)
    {
        Info<< " (pretending " << pretend << " device(s) per node)";
    }
    Info<< nl;
    forAll(places.hosts, first)
    {
        // the first rank of each (node, device) pair lists the pair's ranks
        if (!places.firstOnItsDevice(first))
        {
            continue;
        }
        Info<< "    node " << places.hosts[first].c_str() << ", device "
            << places.devices[first] << " (" << names[first].c_str()
            << "): ranks";
        forAll(places.hosts, r)
        {
            if (places.together(r, first))
            {
                Info<< " " << r;
            }
        }
        Info<< nl;
    }
    Info<< endl;
}

} // End anonymous namespace


Foam::label Foam::gpuLduDevices::select
(
    const bool useIt,
    const label ranksPerSystem
)
{
    if (rankDevice >= 0)
    {
        return rankDevice;
    }
    const label me = Pstream::myProcNo();

    const label pretend = positiveFromEnv("GPULDU_PRETEND_DEVICES");
    // (after CUDA's initialisation)
    const label nDevices =
        pretend ? pretend
      : gpuUnavailableReason().empty() ? gpuLdu::visibleDevices() : 0;
    const rankPlaces places = placeRanks(nDevices);
    rankDevice = places.devices[me];

    labelList sharing;
    label chunk = 0;
    formGroup(places, ranksPerSystem, sharing, chunk);

    // Only the ranks that solve touch the device (a CUDA context each): the
    // group's first rank now, any other when it builds a system of its own
    // (makeDeviceCurrent)
    List<string> names(Pstream::nProcs());
    names[me] = "executor cpu: not used";
    if (useIt && groupRanks[0] == me)
    {
        names[me] = useRankDevice
        (
            rankDevice,
            "rank " + std::to_string(me) + " (local rank "
          + std::to_string(places.localRank) + " of "
          + std::to_string(places.localSize) + " on " + places.hosts[me] + ")"
        );
    }
    logPlaces(places, names, pretend);

    if (chunk > 1 && sharing.size() > 1)
    {
        // the (node, device) pairs of the run
        label nDevices = 0;
        forAll(places.hosts, r)
        {
            nDevices += places.firstOnItsDevice(r);
        }
        Info<< "gpuLduSolvers: the ranks of a device solve as one system"
            << " (OptimisationSwitch gpuLduRanksPerSystem "
            << (ranksPerSystem > 0 ? Foam::name(ranksPerSystem) : word("all"))
            << "): each group's processor patches to each other are matrix"
            << " entries, its preconditioners stay per rank";
        if (nDevices > 1)
        {
            Info<< "; the groups of the " << nDevices << " devices exchange"
                << " on every level of GAMG (their owners: how, logged at the"
                << " first solve)";
        }
        Info<< nl << endl;
    }

    return rankDevice;
}
