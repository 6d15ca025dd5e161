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
    matrices, smoothers and factors of each block are the rank's own.

\*---------------------------------------------------------------------------*/

#include "gpuLduGroupSystemOwnerCoupling.H"
#include "gpuLduGamgCouplings.H"
#include "GAMGAgglomeration.H"
#include "IPstream.H"
#include "OPstream.H"

// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

bool Foam::gpuLduGroupSystem::combineGamg
(
    gpuLdu::Executor executor,
    const bool wholeMesh,
    const List<labelList>& patchNbr,
    const List<List<List<labelList>>>& levels
)
{
    // levels[r][k]: rank r's level k: lower, upper, {nCells}, then its
    // patches' face cells (empty where a patch has no interface); below the
    // coarsest the coarsening step's restrictAddressing and
    // faceRestrictAddressing and the flip map (0 or 1), as three more lists
    const auto start = std::chrono::steady_clock::now();
    const label n = ranks_.size();
    const label nLevels = levels[0].size();
    enum { lowerList, upperList, sizeList, nLists };

    std::vector<combinedLevel> combined(nLevels);
    bool oneHierarchy = true;
    for (label k = 0; k < nLevels && oneHierarchy; ++k)
    {
        List<labelList> lowers(n), uppers(n);
        labelList nCells(n);
        List<labelListList> patchCells(n);
        for (label r = 0; r < n; ++r)
        {
            const List<labelList>& level = levels[r][k];
            lowers[r] = level[lowerList];
            uppers[r] = level[upperList];
            nCells[r] = level[sizeList][0];
            patchCells[r].setSize(patchNbr[r].size());
            forAll(patchNbr[r], patchi)
            {
                patchCells[r][patchi] = level[nLists + patchi];
            }
        }
        combined[k] = combineRanks
        (
            lowers, uppers, nCells, patchNbr, patchCells, boolList(n, true)
        );
        const combinedLevel& c = combined[k];
        oneHierarchy = !c.fallback && c.ifCells.empty();
    }
    // The finest level's terms are those the Krylov system's exchange
    // brings (termCoeffs_): the same patches, combined alike
    oneHierarchy = oneHierarchy && combined[0].termSource == termSource_;
    if (!oneHierarchy)
    {
        return false;
    }

    // Each coarsening step of the ranks one after the other: a rank's coarse
    // cells and faces offset by the ranks' before it on the coarse level
    std::vector<gpuLdu::GamgLevelView> views(nLevels - 1);
    List<labelList> restrict(nLevels - 1), faceRestrict(nLevels - 1);
    List<boolList> flip(nLevels - 1);
    for (label k = 0; k + 1 < nLevels; ++k)
    {
        const combinedLevel& coarse = combined[k + 1];
        DynamicList<label> r, fr;
        DynamicList<bool> fl;
        for (label rank = 0; rank < n; ++rank)
        {
            // (after the rank's own patches, as many as it has)
            const List<labelList>& step = levels[rank][k];
            const label nPatches = patchNbr[rank].size();
            const label cells = coarse.rowStart[rank];
            const label faces = coarse.faceStart[rank];
            for (const label c : step[nLists + nPatches])
            {
                r.append(c + cells);
            }
            for (const label f : step[nLists + nPatches + 1])
            {
                fr.append(f >= 0 ? f + faces : -1 - (-1 - f + cells));
            }
            for (const label f : step[nLists + nPatches + 2])
            {
                fl.append(f != 0);
            }
        }
        restrict[k].transfer(r);
        faceRestrict[k].transfer(fr);
        flip[k].transfer(fl);

        gpuLdu::GamgLevelView& view = views[k];
        view.coarse.nCells = coarse.rowStart.back();
        view.coarse.nFaces = coarse.lower.size();
        view.coarse.lower = coarse.lower.data();
        view.coarse.upper = coarse.upper.data();
        view.restrictAddressing = restrict[k].cdata();
        view.faceRestrictAddressing = faceRestrict[k].cdata();
        view.faceFlipMap = flip[k].cdata();
    }

    gpuLdu::LduAddressingView fine;
    fine.nCells = combined[0].rowStart.back();
    fine.nFaces = combined[0].lower.size();
    fine.lower = combined[0].lower.data();
    fine.upper = combined[0].upper.data();
    const double combinedSeconds = secondsSince(start);

    gamg_ = gpuLdu::makeGamgSystem(executor, fine, views);
    std::vector<std::vector<int>> parts;
    std::vector<gpuLdu::DeviceCouplings> couplings;
    gamgTermStart_.clear();
    gamgTermSource_.clear();
    label nTerms = 0;
    for (const combinedLevel& c : combined)
    {
        parts.push_back(c.rowStart);
        couplings.push_back(c.couplings);
        gamgTermStart_.push_back(c.termStart);
        gamgTermSource_.push_back(c.termSource);
        nTerms += c.termSource.size();
    }
    gamgLocalSums_ = executor == gpuLdu::Executor::gpu && wholeMesh;
    if (!gamgLocalSums_)
    {
        gamg_->setParts(parts);
    }
    gamg_->setDeviceCouplings(couplings);

    Info<< "gpuLduGroupSystem: one GAMG hierarchy for ranks";
    forAll(ranks_, r)
    {
        Info<< " " << ranks_[r];
    }
    Info<< ": " << nLevels << " levels (" << fine.nCells << " to "
        << combined.back().rowStart.back() << " cells), " << nTerms
        << " processor-face terms on the levels, "
        << (gamgLocalSums_ ? "sums on the device" : "sums per rank")
        << "; set up in "
        << secondsSince(start) << " s (combined " << combinedSeconds
        << " s)" << endl;
    return true;
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

bool Foam::gpuLduGroupSystem::gamgShared
(
    gpuLdu::Executor executor,
    const GAMGAgglomeration& agglomeration
)
{
    if (!shared())
    {
        return false;
    }
    if (gamgAgglomeration_ == &agglomeration)
    {
        return gamgShared_;
    }
    gamgAgglomeration_ = &agglomeration;
    gamg_.reset();
    gamgShared_ = false;

    // This rank can be part of one hierarchy where each of its coupled
    // patches is a processor patch to the group, updated in patch order
    const bool eligible =
        inPatchOrder_ && !gpuLduCompat::contains(patchNbr_, -1);

    // Its levels: addressing, patch face cells, coarsening steps (the lists
    // combineGamg reads)
    const label nLevels = agglomeration.size() + 1;
    const auto levelLists = [&]()
    {
        List<List<labelList>> levels(nLevels);
        for (label k = 0; k < nLevels; ++k)
        {
            const lduAddressing& addr = agglomeration.meshLevel(k).lduAddr();
            List<labelList>& level = levels[k];
            const label nPatches = patchNbr_.size();
            level.setSize(3 + nPatches + (k + 1 < nLevels ? 3 : 0));
            level[0] = addr.lowerAddr();
            level[1] = addr.upperAddr();
            level[2] = labelList(1, addr.size());
            forAll(patchNbr_, patchi)
            {
                if (patchNbr_[patchi] != -2)
                {
                    level[3 + patchi] = addr.patchAddr(patchi);
                }
            }
            if (k + 1 < nLevels)
            {
                level[3 + nPatches] = agglomeration.restrictAddressing(k);
                level[4 + nPatches] = agglomeration.faceRestrictAddressing(k);
                const boolList& flip = agglomeration.faceFlipMap(k);
                labelList& f = level[5 + nPatches];
                f.setSize(flip.size());
                forAll(flip, facei)
                {
                    f[facei] = flip[facei];
                }
            }
        }
        return levels;
    };

    if (owner())
    {
        const label n = ranks_.size();
        boolList eligibleRanks(n, eligible);
        List<labelList> nbrs(n);
        List<List<List<labelList>>> levels(n);
        nbrs[0] = patchNbr_;
        if (eligible)
        {
            levels[0] = levelLists();
        }
        for (label r = 1; r < n; ++r)
        {
            IPstream from(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            bool e = false;
            from >> e;
            eligibleRanks[r] = e;
            if (e)
            {
                from >> nbrs[r] >> levels[r];
            }
        }
        bool sameLevels = true;
        for (label r = 1; r < n; ++r)
        {
            sameLevels = sameLevels && levels[r].size() == nLevels;
        }
        gamgShared_ =
            !gpuLduCompat::contains(eligibleRanks, false) && sameLevels
         && combineGamg
            (
                executor,
                UPstream::nProcs(agglomeration.meshLevel(0).comm()) == n,
                nbrs,
                levels
            );
        if (!gamgShared_)
        {
            Info<< "gpuLduGroupSystem: each rank of the group keeps its own"
                << " GAMG hierarchy (a rank has coupled patches other than"
                << " processor patches to the group, or updates them out of"
                << " patch order): exact, but slower than one hierarchy"
                << endl;
        }
        for (label r = 1; r < n; ++r)
        {
            OPstream to(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            to << gamgShared_;
        }
    }
    else
    {
        {
            OPstream to(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
            to << eligible;
            if (eligible)
            {
                to << patchNbr_ << levelLists();
            }
        }
        IPstream from(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
        from >> gamgShared_;
    }
    return gamgShared_;
}


void Foam::gpuLduGroupSystem::forgetGamg()
{
    gamgAgglomeration_ = nullptr;
    gamgShared_ = false;
    gamg_.reset();
}


gpuLdu::SolveResult Foam::gpuLduGroupSystem::solveGamg
(
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const gpuLduGamgCouplings& couplings,
    scalarField& psi,
    const scalarField& source,
    const gpuLdu::SolverControls& controls,
    const gpuLdu::GamgControls& gamg,
    const bool timed
)
{
    const label meshComm = matrix.mesh().comm();
    const label nLevels = couplings.couplings().size();

    // The hand-over: the finest level's values and terms as the Krylov
    // system's, then the coarse levels' interface coefficients of this
    // rank's processor patches (A's, then A^T's, level after level)
    const auto start = std::chrono::steady_clock::now();
    exchangeValues(matrix, psi, source, interfaceBouCoeffs, interfaceIntCoeffs);
    std::vector<double> mine;
    for (label k = 1; k < nLevels; ++k)
    {
        for (const auto* coeffs :
            {&couplings.interfaceBouCoeffs(k), &couplings.interfaceIntCoeffs(k)})
        {
            forAll(patchNbr_, patchi)
            {
                if (patchNbr_[patchi] >= 0)
                {
                    const scalarField& c = (*coeffs)[patchi];
                    mine.insert(mine.end(), c.begin(), c.end());
                }
            }
        }
    }
    if (!owner())
    {
        sendDoubles(0, mine.data(), mine.size(), comm_);
        return serve(nullptr, meshComm, psi);
    }

    gamg_->setMatrix
    (
        diag_.data(),
        upper_.data(),
        matrix.hasLower() ? lower_.data() : nullptr
    );
    gamg_->setDeviceCouplingCoeffs(0, termCoeffs_.data(), termIntCoeffs_.data());

    // Each rank's coarse coefficients into the level's ranks' terms one
    // after the other, then each device coupling term's
    std::vector<std::vector<double>> bou(nLevels), intc(nLevels);
    for (label k = 1; k < nLevels; ++k)
    {
        bou[k].resize(gamgTermStart_[k].back());
        intc[k].resize(gamgTermStart_[k].back());
    }
    std::vector<double> theirs;
    for (label r = 0; r < ranks_.size(); ++r)
    {
        label size = 0;
        for (label k = 1; k < nLevels; ++k)
        {
            size += 2*(gamgTermStart_[k][r + 1] - gamgTermStart_[k][r]);
        }
        if (r == 0)
        {
            theirs = mine;
        }
        else
        {
            theirs.resize(size);
            receiveDoubles(r, theirs.data(), size, comm_);
        }
        if (label(theirs.size()) != size)
        {
            FatalErrorInFunction
                << "rank " << ranks_[r] << " has " << theirs.size()
                << " coarse interface coefficients, its levels " << size
                << abort(FatalError);
        }
        const double* from = theirs.data();
        for (label k = 1; k < nLevels; ++k)
        {
            const label first = gamgTermStart_[k][r];
            const label m = gamgTermStart_[k][r + 1] - first;
            std::copy(from, from + m, bou[k].begin() + first);
            std::copy(from + m, from + 2*m, intc[k].begin() + first);
            from += 2*m;
        }
    }
    std::vector<double> termBou, termInt;
    for (label k = 1; k < nLevels; ++k)
    {
        const std::vector<int>& source = gamgTermSource_[k];
        termBou.resize(source.size());
        termInt.resize(source.size());
        for (std::size_t t = 0; t < source.size(); ++t)
        {
            termBou[t] = bou[k][source[t]];
            termInt[t] = intc[k][source[t]];
        }
        gamg_->setDeviceCouplingCoeffs(k, termBou.data(), termInt.data());
    }
    const double handOver = secondsSince(start);

    gamg_->setTimed(timed);
    const ownerCoupling group(*this, nullptr, meshComm, gamgLocalSums_);
    const std::vector<const gpuLdu::Coupling*> levels(nLevels, &group);
    gpuLdu::SolveResult r =
        gamg_->solve(psi_.data(), source_.data(), controls, gamg, levels);
    finish(r, handOver, psi);
    return r;
}


// ************************************************************************* //
