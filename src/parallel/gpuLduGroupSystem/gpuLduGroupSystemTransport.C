/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    The transport of a group: its messages between the owner and the other
    ranks, on the group's communicator under one tag. A set-up: each rank's
    levels to the owner (writeSetup/readSetup), the owner's decision back
    (agree). A solve (solveTogether, Krylov and GAMG alike): each rank's
    values to the owner (exchangeValues), then the owner's requests
    (gpuLdu::GroupRequest, their doubles the core's encodeRequest) that a
    rank serves until done, and its psi back (finish).

\*---------------------------------------------------------------------------*/

#include "gpuLduGroupSystem.H"
#include "gpuLduCoupling.H"
#include "IPstream.H"
#include "OPstream.H"
#include "PstreamReduceOps.H"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <type_traits>

// * * * * * * * * * * * * * * * Local Functions * * * * * * * * * * * * * * //

namespace
{

static_assert
(
    std::is_same<Foam::label, int>::value,
    "the core's indices are int: 32-bit labels"
);

//- A std::vector<int> as OpenFOAM's list (no copy)
Foam::labelUList listOf(const std::vector<int>& v)
{
    return Foam::labelUList(const_cast<int*>(v.data()), Foam::label(v.size()));
}

std::vector<int> readInts(Foam::Istream& is)
{
    Foam::labelList l;
    is >> l;
    return std::vector<int>(l.begin(), l.end());
}

} // End anonymous namespace


// * * * * * * * * * * * * * Static Member Functions * * * * * * * * * * * * //

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


void Foam::gpuLduGroupSystem::writeSetup(Ostream& os, const rankSetup& setup)
{
    os << setup.eligible;
    if (!setup.eligible)
    {
        return;
    }
    os << label(setup.levels.size());
    for (const gpuLdu::RankLevel& level : setup.levels)
    {
        os  << label(level.nCells) << listOf(level.lower) << listOf(level.upper)
            << listOf(level.patchNeighbour) << label(level.patchCells.size());
        for (const std::vector<int>& cells : level.patchCells)
        {
            os << listOf(cells);
        }
        os << level.inPatchOrder;
    }
    os << label(setup.steps.size());
    for (const gpuLdu::Coarsening& step : setup.steps)
    {
        const std::vector<int> flip
        (
            step.faceFlipMap.begin(), step.faceFlipMap.end()
        );
        os  << listOf(step.restrictAddressing)
            << listOf(step.faceRestrictAddressing) << listOf(flip);
    }
}


Foam::gpuLduGroupSystem::rankSetup Foam::gpuLduGroupSystem::readSetup
(
    Istream& is
)
{
    rankSetup setup;
    is >> setup.eligible;
    if (!setup.eligible)
    {
        return setup;
    }
    label nLevels = 0;
    is >> nLevels;
    setup.levels.resize(nLevels);
    for (gpuLdu::RankLevel& level : setup.levels)
    {
        label nCells = 0, nPatches = 0;
        is >> nCells;
        level.nCells = nCells;
        level.lower = readInts(is);
        level.upper = readInts(is);
        level.patchNeighbour = readInts(is);
        is >> nPatches;
        level.patchCells.resize(nPatches);
        for (std::vector<int>& cells : level.patchCells)
        {
            cells = readInts(is);
        }
        is >> level.inPatchOrder;
    }
    label nSteps = 0;
    is >> nSteps;
    setup.steps.resize(nSteps);
    for (gpuLdu::Coarsening& step : setup.steps)
    {
        step.restrictAddressing = readInts(is);
        step.faceRestrictAddressing = readInts(is);
        const std::vector<int> flip = readInts(is);
        step.faceFlipMap.assign(flip.begin(), flip.end());
    }
    return setup;
}


void Foam::gpuLduGroupSystem::applyProduct
(
    const gpuLduCoupling& coupling,
    const gpuLdu::InterfaceProduct kind,
    const gpuLdu::InterfacePhase phase,
    const double* x,
    double* y
)
{
    switch (kind)
    {
        case gpuLdu::InterfaceProduct::a:
            coupling.interfaceProduct(phase, x, y);
            break;
        case gpuLdu::InterfaceProduct::transposed:
            coupling.interfaceProductT(phase, x, y);
            break;
        case gpuLdu::InterfaceProduct::rowSums:
            coupling.interfaceRowSums(phase, y);
            break;
    }
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

bool Foam::gpuLduGroupSystem::agree(rankSetup mine, const decision& decide) const
{
    bool decided = false;
    if (owner())
    {
        const label n = ranks_.size();
        std::vector<rankSetup> setups(n);
        setups[0] = std::move(mine);
        const auto start = std::chrono::steady_clock::now();
        for (label r = 1; r < n; ++r)
        {
            IPstream from(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            setups[r] = readSetup(from);
        }
        decided = decide(setups, secondsSince(start));
        for (label r = 1; r < n; ++r)
        {
            OPstream to(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            to << decided;
        }
    }
    else
    {
        {
            OPstream to(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
            writeSetup(to, mine);
        }
        IPstream from(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
        from >> decided;
    }
    return decided;
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

    // diag, upper, lower: only those the owner does not hold already (the
    // header: bits 1, 2, 4)
    const label changed = changedArrays(matrix);
    if (!owner())
    {
        const double header = changed;
        sendDoubles(0, &header, 1, comm_);
        sendDoubles(0, psi.cdata(), nCells_, comm_);
        sendDoubles(0, source.cdata(), nCells_, comm_);
        if (changed & 1)
        {
            sendDoubles(0, matrix.diag().cdata(), nCells_, comm_);
        }
        if (changed & 2)
        {
            sendDoubles(0, matrix.upper().cdata(), nFaces_, comm_);
        }
        if (changed & 4)
        {
            sendDoubles(0, matrix.lower().cdata(), nFaces_, comm_);
        }
        sendDoubles(0, bou.data(), nTerms_, comm_);
        sendDoubles(0, intc.data(), nTerms_, comm_);
        return;
    }

    std::copy(psi.begin(), psi.end(), psi_.begin());
    std::copy(source.begin(), source.end(), source_.begin());
    if (changed & 1)
    {
        std::copy(matrix.diag().begin(), matrix.diag().end(), diag_.begin());
    }
    if (changed & 2)
    {
        std::copy(matrix.upper().begin(), matrix.upper().end(), upper_.begin());
    }
    if (changed & 4)
    {
        std::copy(matrix.lower().begin(), matrix.lower().end(), lower_.begin());
    }
    std::copy(bou.begin(), bou.end(), coeffs_.begin());
    std::copy(intc.begin(), intc.end(), intCoeffs_.begin());

    const gpuLdu::CombinedLevel& g = combined_;
    for (label r = 1; r < ranks_.size(); ++r)
    {
        const label c = g.rowStart[r], nc = g.rowStart[r + 1] - c;
        const label f = g.faceStart[r], nf = g.faceStart[r + 1] - f;
        const label t = g.termStart[r], nt = g.termStart[r + 1] - t;
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

    termCoeffs_ = gpuLdu::termCoefficients(g.termSource, coeffs_.data());
    termIntCoeffs_ = gpuLdu::termCoefficients(g.termSource, intCoeffs_.data());
}


gpuLdu::SolveResult Foam::gpuLduGroupSystem::serve
(
    const gpuLduCoupling* coupling,
    const label meshComm,
    scalarField& psi
)
{
    std::vector<double> message(gpuLdu::maxRequestSize(nHostCells_));
    const std::size_t m = nHostCells_;
    for (;;)
    {
        const label n =
            UIPstream::read
            (
                UPstream::commsTypes::scheduled, 0,
                reinterpret_cast<char*>(message.data()),
                message.size()*sizeof(double), groupTag, comm_
            )/sizeof(double);

        gpuLdu::GroupRequest request;
        try
        {
            request = gpuLdu::decodeRequest(message.data(), n);
        }
        catch (const std::runtime_error& e)
        {
            FatalErrorInFunction
                << e.what() << abort(FatalError);
        }

        switch (request.kind)
        {
            // the calls the owner makes (ownerCoupling::sum, maximum) and a
            // rank's own coupling makes (gpuLduCoupling::sum)
            case gpuLdu::GroupRequestKind::sum:
                returnReduce
                (
                    request.value, sumOp<scalar>(), Pstream::msgType(), meshComm
                );
                break;
            case gpuLdu::GroupRequestKind::maximum:
                returnReduce
                (
                    request.value, maxOp<scalar>(), Pstream::msgType(), meshComm
                );
                break;
            case gpuLdu::GroupRequestKind::product:
            {
                const bool hasX =
                    request.product != gpuLdu::InterfaceProduct::rowSums;
                if (!coupling || request.y.size() != m || (hasX && request.x.size() != m))
                {
                    FatalErrorInFunction
                        << "a request of " << n << " values from the group's"
                        << " owner" << abort(FatalError);
                }
                applyProduct
                (
                    *coupling, request.product, request.phase,
                    request.x.data(), request.y.data()
                );
                sendDoubles(0, request.y.data(), m, comm_);
                break;
            }
            case gpuLdu::GroupRequestKind::done:
                receiveDoubles(0, psi.data(), nCells_, comm_);
                return request.result;
        }
    }
}


void Foam::gpuLduGroupSystem::finish
(
    gpuLdu::SolveResult& r,
    const double handOverSeconds,
    scalarField& psi
)
{
    const auto handStart = std::chrono::steady_clock::now();
    gpuLdu::GroupRequest done;
    done.kind = gpuLdu::GroupRequestKind::done;
    done.result = r;
    done.result.handOverSeconds = handOverSeconds;
    std::vector<double> message;
    gpuLdu::encodeRequest(done, message);
    const std::vector<int>& rowStart = combined_.rowStart;
    for (label k = 1; k < ranks_.size(); ++k)
    {
        sendDoubles(k, message.data(), message.size(), comm_);
        sendDoubles
        (
            k, psi_.data() + rowStart[k], rowStart[k + 1] - rowStart[k], comm_
        );
    }
    std::copy(psi_.begin(), psi_.begin() + nCells_, psi.begin());
    r.handOverSeconds = handOverSeconds + secondsSince(handStart);
}


gpuLdu::SolveResult Foam::gpuLduGroupSystem::solveTogether
(
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const std::vector<double>* levelCoeffs,
    const gpuLduCoupling* coupling,
    scalarField& psi,
    const scalarField& source,
    const std::function<gpuLdu::SolveResult()>& ownerSolve
)
{
    // The owner's hand-over: the values received here, psi sent in finish
    const auto start = std::chrono::steady_clock::now();
    exchangeValues(matrix, psi, source, interfaceBouCoeffs, interfaceIntCoeffs);
    if (levelCoeffs)
    {
        exchangeLevelCoeffs(*levelCoeffs);
    }
    if (!owner())
    {
        return serve(coupling, matrix.mesh().comm(), psi);
    }
    const double handOver = secondsSince(start);

    gpuLdu::SolveResult r = ownerSolve();
    finish(r, handOver, psi);
    return r;
}


// ************************************************************************* //
