/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduGroupSystem.H"
#include "gpuLduCoupling.H"
#include "gpuLduGroupSystemOwnerCoupling.H"
#include "processorLduInterface.H"
#include "IPstream.H"
#include "OPstream.H"
#include "PstreamReduceOps.H"

#include <algorithm>
#include <chrono>
#include <cstring>

// * * * * * * * * * * * * * * * Local Functions * * * * * * * * * * * * * * //

namespace
{

using Foam::label;
using Foam::labelList;
using Foam::UPstream;

//- A rank's place for each coupled patch, from the group rank across each
//  (-2: no interface, -1: not a processor patch to the group): the patches
//  to the group in the system, the host's patches before them early, after
//  them late; all on the host (late) when the group falls back
labelList places(const labelList& nbr, const bool fallback)
{
    label first = -1;
    forAll(nbr, patchi)
    {
        if (nbr[patchi] >= 0 && first < 0)
        {
            first = patchi;
        }
    }
    labelList place(nbr.size(), Foam::gpuLduCoupling::late);
    forAll(nbr, patchi)
    {
        if (!fallback && nbr[patchi] >= 0)
        {
            place[patchi] = Foam::gpuLduCoupling::inSystem;
        }
        else if (!fallback && first >= 0 && patchi < first)
        {
            place[patchi] = Foam::gpuLduCoupling::early;
        }
    }
    return place;
}

//- The interface cells a rank's host evaluates (as gpuLduCoupling lists them)
std::vector<int> hostCells
(
    const labelList& nbr,
    const labelList& place,
    const Foam::labelListList& cells
)
{
    std::vector<int> c;
    forAll(nbr, patchi)
    {
        if (nbr[patchi] != -2 && place[patchi] != Foam::gpuLduCoupling::inSystem)
        {
            c.insert(c.end(), cells[patchi].begin(), cells[patchi].end());
        }
    }
    std::sort(c.begin(), c.end());
    c.erase(std::unique(c.begin(), c.end()), c.end());
    return c;
}

//- The patches of a rank to group rank j, in order
labelList patchesTo(const labelList& nbr, const label j)
{
    labelList p;
    forAll(nbr, patchi)
    {
        if (nbr[patchi] == j)
        {
            p.append(patchi);
        }
    }
    return p;
}

} // End anonymous namespace


// * * * * * * * * * * * * * * Static Member Functions * * * * * * * * * * * //

void Foam::gpuLduGroupSystem::sendDoubles
(
    const label to,
    const double* p,
    const label n,
    const label comm
)
{
    if (n > 0)
    {
        UOPstream::write
        (
            UPstream::commsTypes::scheduled, to,
            reinterpret_cast<const char*>(p), n*sizeof(double), groupTag, comm
        );
    }
}


void Foam::gpuLduGroupSystem::receiveDoubles
(
    const label from,
    double* p,
    const label n,
    const label comm
)
{
    if (n > 0)
    {
        UIPstream::read
        (
            UPstream::commsTypes::scheduled, from,
            reinterpret_cast<char*>(p), n*sizeof(double), groupTag, comm
        );
    }
}


double Foam::gpuLduGroupSystem::secondsSince
(
    const std::chrono::steady_clock::time_point t
)
{
    return std::chrono::duration<double>
    (
        std::chrono::steady_clock::now() - t
    ).count();
}


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduGroupSystem::gpuLduGroupSystem
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
    patchPhase_(interfaces.size(), gpuLduCoupling::late),
    patchNbr_(interfaces.size(), -2),
    inPatchOrder_(true),
    nCells_(addr.size()),
    nFaces_(addr.lowerAddr().size()),
    nTerms_(0),
    nHostCells_(0),
    gamgAgglomeration_(nullptr),
    gamgShared_(false),
    gamgLocalSums_(false)
{
    // This rank's coupled patches: which group rank each plain processor
    // patch leads to (processorCyclic may transform: host)
    labelList nbr(interfaces.size(), -2);
    labelListList cells(interfaces.size());
    forAll(interfaces, patchi)
    {
        if (!interfaces.set(patchi))
        {
            continue;
        }
        nbr[patchi] = -1;
        cells[patchi] = addr.patchAddr(patchi);
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
            nbr[patchi] =
                gpuLduCompat::indexOf(ranks_, proc->neighbProcNo());
        }
    }

    patchNbr_ = nbr;
    if (!shared())
    {
        return;
    }

    // Under commsType scheduled OpenFOAM updates the interfaces in the mesh's
    // patch schedule, not in patch order: a cell on two patches then takes
    // their terms in the schedule's order, which the system's terms (patch
    // and face order) follow only where the two agree
    bool inPatchOrder = true;
    if (UPstream::defaultCommsType == UPstream::commsTypes::scheduled)
    {
        label last = -1;
        for (const lduScheduleEntry& entry : addr.patchSchedule())
        {
            if (!entry.init && entry.patch < interfaces.size()
             && interfaces.set(entry.patch))
            {
                inPatchOrder = inPatchOrder && entry.patch > last;
                last = entry.patch;
            }
        }
    }
    inPatchOrder_ = inPatchOrder;

    bool fallback = false;
    if (owner())
    {
        const label n = ranks_.size();
        List<labelList> lowers(n), uppers(n), nbrs(n);
        List<labelListList> patchCells(n);
        labelList nCells(n);
        boolList ordered(n);
        ordered[0] = inPatchOrder;
        lowers[0] = addr.lowerAddr();
        uppers[0] = addr.upperAddr();
        nCells[0] = nCells_;
        nbrs[0] = nbr;
        patchCells[0] = cells;
        const auto start = std::chrono::steady_clock::now();
        for (label r = 1; r < n; ++r)
        {
            IPstream from(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            bool inOrder = true;
            from >> lowers[r] >> uppers[r] >> nCells[r] >> nbrs[r] >> patchCells[r]
                >> inOrder;
            ordered[r] = inOrder;
        }
        const double received = secondsSince(start);
        fallback = combine
        (
            executor, lowers, uppers, nCells, nbrs, patchCells, ordered,
            received
        );
        for (label r = 1; r < n; ++r)
        {
            OPstream to(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            to << fallback;
        }
    }
    else
    {
        {
            OPstream to(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
            to << addr.lowerAddr() << addr.upperAddr() << nCells_ << nbr
                << cells << inPatchOrder;
        }
        IPstream from(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
        from >> fallback;
    }

    patchPhase_ = places(nbr, fallback);
    forAll(nbr, patchi)
    {
        if (patchPhase_[patchi] == gpuLduCoupling::inSystem)
        {
            nTerms_ += cells[patchi].size();
        }
    }
    nHostCells_ = hostCells(nbr, patchPhase_, cells).size();
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

Foam::gpuLduGroupSystem::combinedLevel Foam::gpuLduGroupSystem::combineRanks
(
    const List<labelList>& lowers,
    const List<labelList>& uppers,
    const labelList& nCells,
    const List<labelList>& nbrs,
    const List<labelListList>& patchCells,
    const boolList& inPatchOrder
)
{
    const label n = nCells.size();
    combinedLevel c;

    // In the system only where every rank's patches to the group are one
    // stretch of its patch list, the two sides of each pair of patches
    // match face for face, and every rank updates its interfaces in patch
    // order
    bool fallback = gpuLduCompat::contains(inPatchOrder, false);
    for (label r = 0; r < n && !fallback; ++r)
    {
        const labelList& nbr = nbrs[r];
        label first = -1, last = -1;
        forAll(nbr, patchi)
        {
            if (nbr[patchi] >= 0)
            {
                last = patchi;
                first = first < 0 ? patchi : first;
            }
        }
        for (label patchi = first; first >= 0 && patchi <= last; ++patchi)
        {
            fallback = fallback || nbr[patchi] == -1;
        }
        for (label j = 0; j < n && !fallback; ++j)
        {
            const labelList mine = patchesTo(nbr, j);
            const labelList theirs = patchesTo(nbrs[j], r);
            fallback = mine.size() != theirs.size();
            forAll(mine, q)
            {
                fallback = fallback
                    || patchCells[r][mine[q]].size()
                    != patchCells[j][theirs[q]].size();
            }
        }
    }
    c.fallback = fallback;

    c.rowStart.assign(1, 0);
    c.faceStart.assign(1, 0);
    c.termStart.assign(1, 0);
    c.hostCellStart.assign(1, 0);
    c.hasPhase[0].assign(n, false);
    c.hasPhase[1].assign(n, false);

    struct term { int row, col, source; };
    std::vector<term> terms;
    List<labelList> place(n);
    forAll(place, r)
    {
        place[r] = places(nbrs[r], fallback);
    }
    label nFaces = 0;
    for (label r = 0; r < n; ++r)
    {
        c.rowStart.push_back(c.rowStart.back() + nCells[r]);
        nFaces += lowers[r].size();
    }
    c.lower.reserve(nFaces);
    c.upper.reserve(nFaces);
    for (label r = 0; r < n; ++r)
    {
        const int off = c.rowStart[r];
        for (const label i : lowers[r]) c.lower.push_back(off + i);
        for (const label i : uppers[r]) c.upper.push_back(off + i);
        c.faceStart.push_back(c.lower.size());

        int source = c.termStart.back();
        forAll(nbrs[r], patchi)
        {
            const label pl = place[r][patchi];
            if (nbrs[r][patchi] == -2)
            {
                continue;
            }
            if (pl != gpuLduCoupling::inSystem)
            {
                c.hasPhase[pl][r] = true;
                continue;
            }
            // the q-th patch to j meets j's q-th patch to r
            const label j = nbrs[r][patchi];
            const labelList mine = patchesTo(nbrs[r], j);
            const label theirs =
                patchesTo(nbrs[j], r)[gpuLduCompat::indexOf(mine, patchi)];
            const labelList& rowCells = patchCells[r][patchi];
            const labelList& colCells = patchCells[j][theirs];
            forAll(rowCells, f)
            {
                terms.push_back
                ({
                    off + int(rowCells[f]),
                    c.rowStart[j] + int(colCells[f]),
                    source++
                });
            }
        }
        c.termStart.push_back(source);

        for (const int i : hostCells(nbrs[r], place[r], patchCells[r]))
        {
            c.ifCells.push_back(off + i);
        }
        c.hostCellStart.push_back(c.ifCells.size());
    }

    // Rows in order, each row's terms in its patch and face order
    std::stable_sort
    (
        terms.begin(), terms.end(),
        [](const term& a, const term& b) { return a.row < b.row; }
    );
    for (const term& t : terms)
    {
        if (c.couplings.rows.empty() || c.couplings.rows.back() != t.row)
        {
            c.couplings.rows.push_back(t.row);
            c.couplings.start.push_back(c.couplings.start.back());
        }
        c.couplings.cols.push_back(t.col);
        ++c.couplings.start.back();
        c.termSource.push_back(t.source);
    }
    return c;
}


bool Foam::gpuLduGroupSystem::combine
(
    gpuLdu::Executor executor,
    const List<labelList>& lowers,
    const List<labelList>& uppers,
    const labelList& nCells,
    const List<labelList>& nbrs,
    const List<labelListList>& patchCells,
    const boolList& inPatchOrder,
    const double receivedSeconds
)
{
    const auto start = std::chrono::steady_clock::now();
    combinedLevel c =
        combineRanks(lowers, uppers, nCells, nbrs, patchCells, inPatchOrder);
    rowStart_ = c.rowStart;
    faceStart_ = c.faceStart;
    termStart_ = c.termStart;
    hostCellStart_ = c.hostCellStart;
    hasPhase_[0] = c.hasPhase[0];
    hasPhase_[1] = c.hasPhase[1];
    termSource_ = c.termSource;

    gpuLdu::LduAddressingView view;
    view.nCells = rowStart_.back();
    view.nFaces = c.lower.size();
    view.lower = c.lower.data();
    view.upper = c.upper.data();
    const double combinedSeconds = secondsSince(start);

    system_ = gpuLdu::makeLduSystem(executor, view);
    system_->setParts(rowStart_);
    system_->setDeviceCouplings(c.couplings);
    system_->setInterfaces(c.ifCells);

    Info<< "gpuLduGroupSystem: one system for ranks";
    forAll(ranks_, r)
    {
        Info<< " " << ranks_[r];
    }
    Info<< ": " << view.nCells << " cells, " << termSource_.size()
        << " processor-face terms in the system, " << c.ifCells.size()
        << " interface cells on the host"
        << (c.fallback ? " (patches to the group not one stretch, not"
            " matching, or updated out of patch order by commsType scheduled:"
            " all on the host)" : "")
        << "; set up in " << receivedSeconds + secondsSince(start)
        << " s (the ranks' addressing " << receivedSeconds
        << " s, combined " << combinedSeconds << " s, the system "
        << secondsSince(start) - combinedSeconds << " s)" << endl;

    diag_ = gpuLdu::HostBuffer(executor, view.nCells);
    psi_ = gpuLdu::HostBuffer(executor, view.nCells);
    source_ = gpuLdu::HostBuffer(executor, view.nCells);
    upper_ = gpuLdu::HostBuffer(executor, view.nFaces);
    lower_ = gpuLdu::HostBuffer(executor, view.nFaces);
    coeffs_.resize(termStart_.back());
    intCoeffs_.resize(termStart_.back());
    termCoeffs_.resize(termSource_.size());
    termIntCoeffs_.resize(termSource_.size());

    return c.fallback;
}


Foam::label Foam::gpuLduGroupSystem::changedArrays(const lduMatrix& matrix)
{
    const scalarField* arrays[3] =
    {
        &matrix.diag(),
        &matrix.upper(),
        matrix.hasLower() ? &matrix.lower() : nullptr
    };
    label changed = 0;
    for (label a = 0; a < 3; ++a)
    {
        if (!arrays[a])
        {
            continue;
        }
        const scalarField& v = *arrays[a];
        std::vector<double>& held = held_[a];
        // bit for bit: a value that compares equal but is not the same bits
        // (-0 and 0) is sent
        if
        (
            held.size() != std::size_t(v.size())
         || (v.size() && std::memcmp(held.data(), v.cdata(), v.byteSize()) != 0)
        )
        {
            held.assign(v.begin(), v.end());
            changed |= (1 << a);
        }
    }
    return changed;
}


void Foam::gpuLduGroupSystem::exchangeValues
(
    const lduMatrix& matrix,
    const scalarField& psi,
    const scalarField& source,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs
)
{
    // this rank's coefficients of its patches in the system, patch after patch
    std::vector<double> bou, intc;
    forAll(patchPhase_, patchi)
    {
        if (patchPhase_[patchi] == gpuLduCoupling::inSystem)
        {
            const scalarField& b = interfaceBouCoeffs[patchi];
            const scalarField& i = interfaceIntCoeffs[patchi];
            bou.insert(bou.end(), b.begin(), b.end());
            intc.insert(intc.end(), i.begin(), i.end());
        }
    }

    // diag, upper, lower: only those the owner does not hold already
    const label changed = changedArrays(matrix);
    const bool diagChanged = changed & 1;
    const bool upperChanged = changed & 2;
    const bool lowerChanged = changed & 4;

    if (!owner())
    {
        const double header = changed;
        sendDoubles(0, &header, 1, comm_);
        sendDoubles(0, psi.cdata(), nCells_, comm_);
        sendDoubles(0, source.cdata(), nCells_, comm_);
        if (diagChanged)
        {
            sendDoubles(0, matrix.diag().cdata(), nCells_, comm_);
        }
        if (upperChanged)
        {
            sendDoubles(0, matrix.upper().cdata(), nFaces_, comm_);
        }
        if (lowerChanged)
        {
            sendDoubles(0, matrix.lower().cdata(), nFaces_, comm_);
        }
        sendDoubles(0, bou.data(), nTerms_, comm_);
        sendDoubles(0, intc.data(), nTerms_, comm_);
        return;
    }

    std::copy(psi.begin(), psi.end(), psi_.begin());
    std::copy(source.begin(), source.end(), source_.begin());
    if (diagChanged)
    {
        std::copy(matrix.diag().begin(), matrix.diag().end(), diag_.begin());
    }
    if (upperChanged)
    {
        std::copy(matrix.upper().begin(), matrix.upper().end(), upper_.begin());
    }
    if (lowerChanged)
    {
        std::copy(matrix.lower().begin(), matrix.lower().end(), lower_.begin());
    }
    std::copy(bou.begin(), bou.end(), coeffs_.begin());
    std::copy(intc.begin(), intc.end(), intCoeffs_.begin());

    for (label r = 1; r < ranks_.size(); ++r)
    {
        const label c = rowStart_[r], nc = rowStart_[r + 1] - c;
        const label f = faceStart_[r], nf = faceStart_[r + 1] - f;
        const label t = termStart_[r], nt = termStart_[r + 1] - t;
        double header = 0;
        receiveDoubles(r, &header, 1, comm_);
        const label theirs = label(header);
        receiveDoubles(r, psi_.data() + c, nc, comm_);
        receiveDoubles(r, source_.data() + c, nc, comm_);
        if (theirs & 1)
        {
            receiveDoubles(r, diag_.data() + c, nc, comm_);
        }
        if (theirs & 2)
        {
            receiveDoubles(r, upper_.data() + f, nf, comm_);
        }
        if (theirs & 4)
        {
            receiveDoubles(r, lower_.data() + f, nf, comm_);
        }
        receiveDoubles(r, coeffs_.data() + t, nt, comm_);
        receiveDoubles(r, intCoeffs_.data() + t, nt, comm_);
    }

    for (std::size_t k = 0; k < termSource_.size(); ++k)
    {
        termCoeffs_[k] = coeffs_[termSource_[k]];
        termIntCoeffs_[k] = intCoeffs_[termSource_[k]];
    }
}


void Foam::gpuLduGroupSystem::applyProduct
(
    const gpuLduCoupling& coupling,
    const product kind,
    const gpuLdu::InterfacePhase phase,
    const double* x,
    double* y
)
{
    switch (kind)
    {
        case aProduct: coupling.interfaceProduct(phase, x, y); break;
        case tProduct: coupling.interfaceProductT(phase, x, y); break;
        case rowSums: coupling.interfaceRowSums(phase, y); break;
    }
}


gpuLdu::SolveResult Foam::gpuLduGroupSystem::serve
(
    const gpuLduCoupling* coupling,
    const label meshComm,
    scalarField& psi
)
{
    std::vector<double> message(3 + 2*nHostCells_ + 16);
    const label m = nHostCells_;
    for (;;)
    {
        const label n =
            UIPstream::read
            (
                UPstream::commsTypes::scheduled, 0,
                reinterpret_cast<char*>(message.data()),
                message.size()*sizeof(double), groupTag, comm_
            )/sizeof(double);

        const label what = label(message[0]);
        if (what == sumRequest)
        {
            // the call the owner makes (ownerCoupling::sum) and a rank's own
            // coupling makes (gpuLduCoupling::sum)
            const double partial = message[3];
            returnReduce(partial, sumOp<scalar>(), Pstream::msgType(), meshComm);
        }
        else if (what == maximumRequest)
        {
            returnReduce(message[3], maxOp<scalar>(), Pstream::msgType(), meshComm);
        }
        else if (what == productRequest)
        {
            const auto k = product(label(message[1]));
            const auto phase = gpuLdu::InterfacePhase(label(message[2]));
            double* x = message.data() + 3;
            double* y = (k == rowSums) ? x : x + m;
            if (!coupling || n != 3 + (k == rowSums ? m : 2*m))
            {
                FatalErrorInFunction
                    << "a request of " << n << " values from the group's owner"
                    << abort(FatalError);
            }
            applyProduct(*coupling, k, phase, x, y);
            sendDoubles(0, y, m, comm_);
        }
        else
        {
            gpuLdu::SolveResult r;
            const double* v = message.data() + 3;
            r.initialResidual = v[0];
            r.finalResidual = v[1];
            r.nIterations = int(v[2]);
            r.converged = v[3] != 0;
            r.singular = v[4] != 0;
            r.nonFinite = v[5] != 0;
            r.uploadSeconds = v[6];
            r.setupSeconds = v[7];
            r.iterateSeconds = v[8];
            r.handOverSeconds = v[9];
            receiveDoubles(0, psi.data(), nCells_, comm_);
            return r;
        }
    }
}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

void Foam::gpuLduGroupSystem::locate
(
    const label index,
    const bool isFace,
    label& rank,
    label& local
) const
{
    // rank k's rows (faces) are [start[k], start[k + 1])
    const std::vector<int>& start = isFace ? faceStart_ : rowStart_;
    rank = -1;
    local = index;
    for (label k = 0; k + 1 < label(start.size()); ++k)
    {
        if (index >= start[k] && index < start[k + 1])
        {
            rank = ranks_[k];
            local = index - start[k];
            return;
        }
    }
}


gpuLdu::SolveResult Foam::gpuLduGroupSystem::solve
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
    const label meshComm = matrix.mesh().comm();

    // The owner's hand-over: the values received here, psi sent below
    const auto start = std::chrono::steady_clock::now();
    exchangeValues(matrix, psi, source, interfaceBouCoeffs, interfaceIntCoeffs);
    if (!owner())
    {
        return serve(&coupling, meshComm, psi);
    }
    const double handOver = secondsSince(start);

    system_->setMatrix
    (
        diag_.data(),
        upper_.data(),
        matrix.hasLower() ? lower_.data() : nullptr
    );
    system_->setDeviceCouplingCoeffs(termCoeffs_.data(), termIntCoeffs_.data());

    const ownerCoupling group(*this, &coupling, meshComm);
    gpuLdu::SolveResult r = system_->solve
    (
        method, psi_.data(), source_.data(), controls, preconditioner, group
    );

    finish(r, handOver, psi);
    return r;
}


void Foam::gpuLduGroupSystem::finish
(
    gpuLdu::SolveResult& r,
    const double handOverSeconds,
    scalarField& psi
)
{
    const auto handStart = std::chrono::steady_clock::now();
    for (label k = 1; k < ranks_.size(); ++k)
    {
        const double done[13] =
        {
            double(doneRequest), 0, 0,
            r.initialResidual, r.finalResidual, double(r.nIterations),
            double(r.converged), double(r.singular), double(r.nonFinite),
            r.uploadSeconds, r.setupSeconds, r.iterateSeconds, handOverSeconds
        };
        sendDoubles(k, done, 13, comm_);
        sendDoubles
        (
            k, psi_.data() + rowStart_[k], rowStart_[k + 1] - rowStart_[k], comm_
        );
    }
    std::copy(psi_.begin(), psi_.begin() + nCells_, psi.begin());
    r.handOverSeconds = handOverSeconds + secondsSince(handStart);
}


// ************************************************************************* //
