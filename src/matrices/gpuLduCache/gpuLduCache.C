/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduCache.H"
#include "gpuLduDevices.H"
#include "GAMGAgglomeration.H"

namespace Foam
{
    defineTypeNameAndDebug(gpuLduCache, 0);
}


Foam::gpuLduCache::gpuLduCache(const fvMesh& mesh)
:
    gpuLduMeshObject<gpuLduCache>(mesh),
    addr_(nullptr),
    gamgAgglomerations_{nullptr, nullptr},
    globalCells_(gpuLduCompat::globalCells(mesh.nCells(), mesh.comm()))
{}


bool Foam::gpuLduCache::noteKeywordCheck
(
    const word& fieldName,
    const word& solverType
)
{
    return checkedDictionaries_.insert(word(fieldName + " " + solverType, false));
}


void Foam::gpuLduCache::restart(const lduAddressing& addr)
{
    for (label e = 0; e < 2; ++e)
    {
        systems_[e].reset();
        groups_[e].reset();
    }
    forgetGamgHierarchies();
    formats_.clear();
    addr_ = &addr;
}


gpuLdu::LduSystem& Foam::gpuLduCache::system
(
    gpuLdu::Executor executor,
    const lduAddressing& addr
)
{
    const label nFaces = addr.lowerAddr().size();

    // A different addressing object (or size) means the topology changed
    // without the mesh clearing us: start again
    if
    (
        addr_ != &addr
     || (systems_[0] && systems_[0]->nFaces() != nFaces)
     || (systems_[1] && systems_[1]->nFaces() != nFaces)
    )
    {
        restart(addr);
    }

    std::unique_ptr<gpuLdu::LduSystem>& sys = systems_[int(executor)];
    if (!sys || sys->nCells() != addr.size())
    {
        gpuLdu::LduAddressingView view;
        view.nCells = addr.size();
        view.nFaces = nFaces;
        view.lower = addr.lowerAddr().cdata();
        view.upper = addr.upperAddr().cdata();
        if (executor == gpuLdu::Executor::gpu)
        {
            gpuLduDevices::makeDeviceCurrent();
        }
        sys = gpuLdu::makeLduSystem(executor, view);

        if (debug)
        {
            Info<< "gpuLduCache: built the "
                << (executor == gpuLdu::Executor::gpu ? "gpu" : "cpu")
                << " system for " << addr.size() << " cells, "
                << nFaces << " faces" << endl;
        }
    }
    return *sys;
}


gpuLdu::GamgHierarchy& Foam::gpuLduCache::gamgHierarchy
(
    gpuLdu::Executor executor,
    const lduAddressing& addr,
    const GAMGAgglomeration& agglomeration
)
{
    if (addr_ != &addr)
    {
        restart(addr);
    }

    const int e = int(executor);
    if (!gamgHierarchies_[e] || gamgAgglomerations_[e] != &agglomeration)
    {
        gpuLdu::LduAddressingView fine;
        fine.nCells = addr.size();
        fine.nFaces = addr.lowerAddr().size();
        fine.lower = addr.lowerAddr().cdata();
        fine.upper = addr.upperAddr().cdata();

        // Level i of the agglomeration coarsens meshLevel(i) into
        // meshLevel(i + 1)
        std::vector<gpuLdu::GamgLevelView> levels(agglomeration.size());
        forAll(agglomeration, i)
        {
            const lduAddressing& coarse =
                agglomeration.meshLevel(i + 1).lduAddr();
            gpuLdu::GamgLevelView& level = levels[i];
            level.coarse.nCells = coarse.size();
            level.coarse.nFaces = coarse.lowerAddr().size();
            level.coarse.lower = coarse.lowerAddr().cdata();
            level.coarse.upper = coarse.upperAddr().cdata();
            level.restrictAddressing =
                agglomeration.restrictAddressing(i).cdata();
            level.faceRestrictAddressing =
                agglomeration.faceRestrictAddressing(i).cdata();
            level.faceFlipMap = agglomeration.faceFlipMap(i).cdata();
        }
        if (executor == gpuLdu::Executor::gpu)
        {
            gpuLduDevices::makeDeviceCurrent();
        }
        gamgHierarchies_[e] = gpuLdu::makeGamgHierarchy(executor, fine, levels);
        gamgAgglomerations_[e] = &agglomeration;

        if (debug)
        {
            Info<< "gpuLduCache: built the "
                << (executor == gpuLdu::Executor::gpu ? "gpu" : "cpu")
                << " GAMG hierarchy of " << levels.size() + 1
                << " levels for " << fine.nCells << " cells" << endl;
        }
    }
    return *gamgHierarchies_[e];
}


void Foam::gpuLduCache::forgetGamgHierarchies()
{
    for (label e = 0; e < 2; ++e)
    {
        gamgHierarchies_[e].reset();
        gamgAgglomerations_[e] = nullptr;
        if (groups_[e])
        {
            groups_[e]->forgetGamg();
        }
    }
}


Foam::gpuLduRankGroup* Foam::gpuLduCache::rankGroup
(
    gpuLdu::Executor executor,
    const lduAddressing& addr,
    const lduInterfaceFieldPtrsList& interfaces
)
{
    // The one decision whether this rank's group solves as one: it has
    // several ranks, or every rank of the run is in a group (a rank alone
    // on its device beside groups of several: a group of one)
    if (gpuLduDevices::group().size() < 2 && !gpuLduDevices::everyRankGrouped())
    {
        return nullptr;
    }
    // A different addressing object means the topology changed without the
    // mesh clearing us: start again (on every rank of the group alike)
    if (addr_ != &addr)
    {
        restart(addr);
    }

    std::unique_ptr<gpuLduRankGroup>& group = groups_[int(executor)];
    if (!group)
    {
        group.reset
        (
            new gpuLduRankGroup
            (
                gpuLduDevices::group(),
                gpuLduDevices::groupComm(),
                executor,
                addr,
                interfaces
            )
        );
    }
    return group.get();
}


bool Foam::gpuLduCache::noteFormat
(
    const word& fieldName,
    gpuLdu::Executor executor,
    gpuLdu::MatrixFormat format
)
{
    const word key =
        fieldName + (executor == gpuLdu::Executor::gpu ? " gpu" : " cpu");
    const word name = gpuLdu::formatName(format);

    auto iter = formats_.find(key);
    if (iter != formats_.end() && *iter == name)
    {
        return false;
    }
    formats_.set(key, name);
    return true;
}
