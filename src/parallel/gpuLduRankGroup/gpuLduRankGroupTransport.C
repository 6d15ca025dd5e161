/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    The transport of a group: its messages between the owner and the other
    ranks, on the group's communicator under one tag. A set-up: each rank's
    levels to the owner (writeSetup/readSetup), the owner's decision back
    (agree), the group's values in host memory its ranks share (shareValues:
    the owner makes it, the others map it by its handle). The messages of a
    solve (gpuLduRankGroupSolve.C), one typed message each, its doubles the
    core's (gpuLdu/rankGroup.hpp): each rank's values message to the owner
    (gpuLdu::RankValues: sendValues/receiveValues; the values themselves
    each rank writes into the shared values), the owner's requests
    (gpuLdu::GroupRequest: sendMessage, or sendToEach for done;
    receiveMessage) that a rank serves until done, and its replies to
    products (gpuLdu::ProductReply: sendReply/receiveReply).

\*---------------------------------------------------------------------------*/

#include "gpuLduRankGroup.H"
#include "IPstream.H"
#include "OPstream.H"

#include <algorithm>
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

double Foam::gpuLduRankGroup::secondsSince
(
    const std::chrono::steady_clock::time_point t
)
{
    return std::chrono::duration<double>
    (
        std::chrono::steady_clock::now() - t
    ).count();
}


double Foam::gpuLduRankGroup::clockSeconds
(
    const std::chrono::steady_clock::time_point t
)
{
    return std::chrono::duration<double>(t.time_since_epoch()).count();
}


void Foam::gpuLduRankGroup::writeSetup(Ostream& os, const rankSetup& setup)
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
        // the flips 32 to an int
        os  << listOf(step.restrictAddressing)
            << listOf(step.faceRestrictAddressing)
            << label(step.faceFlipMap.size())
            << listOf(gpuLdu::packFlags(step.faceFlipMap));
    }
}


Foam::gpuLduRankGroup::rankSetup Foam::gpuLduRankGroup::readSetup
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
        label nFlips = 0;
        is >> nFlips;
        try
        {
            step.faceFlipMap = gpuLdu::unpackFlags(readInts(is), nFlips);
        }
        catch (const gpuLdu::Error& e)
        {
            FatalErrorInFunction
                << "a rank's GAMG set-up message: " << e.what()
                << abort(FatalError);
        }
    }
    return setup;
}


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

void Foam::gpuLduRankGroup::sendMessage
(
    const label to,
    const std::vector<double>& message
) const
{
    UOPstream::write
    (
        UPstream::commsTypes::scheduled, to,
        reinterpret_cast<const char*>(message.data()),
        message.size()*sizeof(double), groupTag, comm_
    );
}


Foam::label Foam::gpuLduRankGroup::receiveMessage
(
    const label from,
    std::vector<double>& buffer
) const
{
    return UIPstream::read
    (
        UPstream::commsTypes::scheduled, from,
        reinterpret_cast<char*>(buffer.data()),
        buffer.size()*sizeof(double), groupTag, comm_
    )/sizeof(double);
}


void Foam::gpuLduRankGroup::sendToEach
(
    const std::vector<std::vector<double>>& messages
) const
{
    const label firstRequest = UPstream::nRequests();
    for (label r = 1; r < ranks_.size(); ++r)
    {
        UOPstream::write
        (
            UPstream::commsTypes::nonBlocking, r,
            reinterpret_cast<const char*>(messages[r].data()),
            messages[r].size()*sizeof(double), groupTag, comm_
        );
    }
    UPstream::waitRequests(firstRequest);
}


void Foam::gpuLduRankGroup::shareValues()
{
    // The owner's message to each rank: the shared values' handle, the
    // group's sizes and the rank's places
    gpuLdu::RankPlaces group;
    try
    {
        if (owner())
        {
            group.nCells = combined_.nCells();
            group.nFaces = combined_.nFaces();
            group.nTerms = combined_.termStart.back();
            shared_ = gpuLdu::SharedHostBuffer
            (
                executor_, gpuLdu::sharedValuesSize(group)
            );
            places_ = gpuLdu::rankPlaces(combined_, 0);
            for (label r = 1; r < ranks_.size(); ++r)
            {
                const gpuLdu::RankPlaces at = gpuLdu::rankPlaces(combined_, r);
                OPstream to(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
                to  << string(shared_.handle()) << group.nCells << group.nFaces
                    << group.nTerms << at.cell << at.nCells << at.face
                    << at.nFaces << at.term << at.nTerms;
            }
        }
        else
        {
            IPstream from(UPstream::commsTypes::scheduled, 0, 0, groupTag, comm_);
            string handle;
            from
                >> handle >> group.nCells >> group.nFaces >> group.nTerms
                >> places_.cell >> places_.nCells >> places_.face
                >> places_.nFaces >> places_.term >> places_.nTerms;
            shared_ = gpuLdu::SharedHostBuffer
            (
                handle, gpuLdu::sharedValuesSize(group)
            );
        }
    }
    catch (const gpuLdu::Error& e)
    {
        FatalErrorInFunction
            << "the values of the ranks " << ranks_ << " that share a device: "
            << e.what() << abort(FatalError);
    }
    values_ = gpuLdu::sharedValues(shared_.data(), group);
}


void Foam::gpuLduRankGroup::sendValues(const gpuLdu::RankValues& values)
{
    gpuLdu::packRankValues(values, message_);
    sendMessage(0, message_);
}


void Foam::gpuLduRankGroup::placeValues
(
    const label r,
    const gpuLdu::RankValues& values,
    gpuLdu::GroupValues& into
) const
{
    try
    {
        gpuLdu::placeRankValues(values, r, combined_, into);
    }
    catch (const std::runtime_error& e)
    {
        FatalErrorInFunction
            << "rank " << ranks_[r] << " of the group: " << e.what()
            << abort(FatalError);
    }
}


void Foam::gpuLduRankGroup::receiveValues
(
    const gpuLdu::RankValues& mine,
    gpuLdu::GroupValues& into,
    const std::function<void(label, bool)>& ahead
)
{
    // Every rank's message received at once (non-blocking), into a buffer
    // of its largest: a rank that arrives late delays no other
    const label n = ranks_.size();
    valuesReceived_.resize(n);
    const label firstRequest = UPstream::nRequests();
    for (label r = 1; r < n; ++r)
    {
        std::vector<double>& buffer = valuesReceived_[r];
        buffer.resize(gpuLdu::maxRankValuesSize(r, into));
        UIPstream::read
        (
            UPstream::commsTypes::nonBlocking, r,
            reinterpret_cast<char*>(buffer.data()),
            buffer.size()*sizeof(double), groupTag, comm_
        );
    }
    // whether a rank wrote its diag, upper or lower: a new matrix
    const auto wroteMatrix = [](const gpuLdu::RankValues& v)
    {
        return v.diag.size || v.upper.size || v.lower.size;
    };
    placeValues(0, mine, into);
    ahead(0, wroteMatrix(mine));
    lastArrivedAt_ = mine.arrivedAt;
    bool newMatrix = wroteMatrix(mine);

    // Each placed as it arrives (rank r's receive is request
    // firstRequest + r - 1)
    boolList placed(n, false);
    for (label left = n - 1; left > 0; )
    {
        for (label r = 1; r < n; ++r)
        {
            if (!placed[r] && UPstream::finishedRequest(firstRequest + r - 1))
            {
                const std::vector<double>& message = valuesReceived_[r];
                gpuLdu::RankValues values;
                try
                {
                    values = gpuLdu::unpackRankValues(message.data(), message.size());
                }
                catch (const std::runtime_error& e)
                {
                    FatalErrorInFunction
                        << "rank " << ranks_[r] << " of the group: " << e.what()
                        << abort(FatalError);
                }
                placeValues(r, values, into);
                ahead(r, wroteMatrix(values));
                lastArrivedAt_ = std::max(lastArrivedAt_, values.arrivedAt);
                newMatrix = newMatrix || wroteMatrix(values);
                placed[r] = true;
                --left;
            }
        }
    }
    UPstream::waitRequests(firstRequest);
    if (newMatrix)
    {
        ++matrixVersion_;
    }
}


void Foam::gpuLduRankGroup::sendReply(const std::vector<double>& y)
{
    gpuLdu::ProductReply reply;
    reply.y.data = y.data();
    reply.y.size = y.size();
    gpuLdu::encodeReply(reply, message_);
    sendMessage(0, message_);
}


void Foam::gpuLduRankGroup::receiveReply
(
    const label r,
    double* y,
    const label n
)
{
    message_.resize(n + 1);
    const label received = receiveMessage(r, message_);
    gpuLdu::ProductReply reply;
    try
    {
        reply = gpuLdu::decodeReply(message_.data(), received);
    }
    catch (const std::runtime_error& e)
    {
        FatalErrorInFunction
            << "rank " << ranks_[r] << " of the group: " << e.what()
            << abort(FatalError);
    }
    if (reply.y.size != n)
    {
        FatalErrorInFunction
            << "rank " << ranks_[r] << " of the group replied " << reply.y.size
            << " values to a product of " << n << abort(FatalError);
    }
    std::copy(reply.y.begin(), reply.y.end(), y);
}


bool Foam::gpuLduRankGroup::agree(rankSetup mine, const decision& decide) const
{
    bool decided = false;
    if (owner())
    {
        const label n = ranks_.size();
        std::vector<rankSetup> setups(n);
        setups[0] = std::move(mine);
        const auto start = std::chrono::steady_clock::now();
        // the time spent reading the messages once they are in (the rest is
        // waiting for them and their transfer)
        double readSeconds = 0;
        for (label r = 1; r < n; ++r)
        {
            IPstream from(UPstream::commsTypes::scheduled, r, 0, groupTag, comm_);
            const auto readStart = std::chrono::steady_clock::now();
            setups[r] = readSetup(from);
            readSeconds += secondsSince(readStart);
        }
        const double receivedSeconds = secondsSince(start);
        if (debug)
        {
            Info<< "gpuLduRankGroup: the set-up messages of " << n - 1
                << " ranks in " << receivedSeconds << " s (read in "
                << readSeconds << " s)" << endl;
        }
        decided = decide(setups, receivedSeconds);
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


// ************************************************************************* //
