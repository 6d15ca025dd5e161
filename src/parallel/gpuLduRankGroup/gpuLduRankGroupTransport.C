/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    The transport of a group: its messages between the owner and the other
    ranks, on the group's communicator under one tag. A set-up: each rank's
    levels to the owner (gpuLdu::RankSetup as raw ints, every rank's
    received at once), the owner's decision back (agree), the group's
    values in host memory its ranks share (shareValues: the owner makes it,
    the others map it by its handle). The messages of a
    solve (gpuLduRankGroupSolve.C), one typed message each, its doubles the
    core's (gpuLdu/rankGroup.hpp): each rank's values message to the owner
    (gpuLdu::RankValues: sendValues/receiveValues; the values themselves
    each rank writes into the shared values), the owner's requests
    (gpuLdu::GroupRequest: sendMessage, or sendToEach for done;
    receiveMessage) that a rank serves until done, and its replies to
    products (gpuLdu::ProductReply: sendReply/receiveReply).

\*---------------------------------------------------------------------------*/

#include "gpuLduRankGroup.H"
#include "UIPstream.H"
#include "UOPstream.H"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
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

//- A shared buffer's handle into a raw message's field of N chars, ended by
//  a zero; an Error naming what is shared where it does not fit
template<std::size_t N>
void putHandle(const std::string& handle, char (&field)[N], const char* of)
{
    if (handle.size() >= N)
    {
        throw gpuLdu::Error
        (
            "the handle " + handle + " of the shared " + of + " is longer"
            " than " + std::to_string(N - 1) + " characters"
        );
    }
    std::copy(handle.begin(), handle.end(), field);
    field[handle.size()] = '\0';
}

//- The handle in a received message's field (its last char made a zero,
//  whatever came)
template<std::size_t N>
std::string takeHandle(char (&field)[N])
{
    field[N - 1] = '\0';
    return field;
}

//- The owner's: each other rank r's set-up (sizes[r] ints in the shared
//  buffer of handles[r]) unpacked into setups[r], a rank a thread; a
//  FatalError naming the rank whose set-up is not one
void unpackSetups
(
    const std::vector<std::string>& handles,
    const std::vector<std::int64_t>& sizes,
    std::vector<gpuLdu::RankSetup>& setups,
    const Foam::labelList& groupRanks
)
{
    using namespace Foam;
    const label n = setups.size();
    std::vector<std::string> errors(n);
    gpuLdu::onHostThreads
    (
        n - 1, n,
        [&](const int i)
        {
            const label r = i + 1;
            try
            {
                const gpuLdu::SharedHostBuffer message
                (
                    handles[r], std::size_t(sizes[r] + 1)/2
                );
                setups[r] = gpuLdu::unpackRankSetup
                (
                    reinterpret_cast<const int*>(message.data()),
                    std::size_t(sizes[r])
                );
            }
            catch (const gpuLdu::Error& e)
            {
                errors[r] = e.what();
            }
        }
    );
    for (label r = 1; r < n; ++r)
    {
        if (!errors[r].empty())
        {
            FatalErrorInFunction
                << "rank " << groupRanks[r] << " of the group: " << errors[r]
                << abort(FatalError);
        }
    }
}

} // End anonymous namespace


// * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * * //

void Foam::gpuLduRankGroup::waitWithoutSpinning
(
    char* buffer,
    const std::streamsize bytes
) const
{
    // MPI's blocking receive polls on its core; the owner's set-up takes
    // up to seconds, on threads that need those cores. A message that
    // comes while this rank sleeps waits at most one sleep to be seen.
    const label request = UPstream::nRequests();
    UIPstream::read
    (
        UPstream::commsTypes::nonBlocking, 0, buffer, bytes, groupTag, comm_
    );
    while (!UPstream::finishedRequest(request))
    {
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
    UPstream::waitRequests(request);
}


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
    // The owner's message to each rank (one raw message): the shared
    // values' handle, the group's sizes and the rank's places. The owner
    // makes the values on threads of its own (their pages mapped before they
    // are page-locked) while the ranks wait for it without spinning
    ValuesHandle message;
    try
    {
        if (owner())
        {
            message.group.nCells = combined_.nCells();
            message.group.nFaces = combined_.nFaces();
            message.group.nTerms = combined_.termStart.back();
            shared_ = gpuLdu::SharedHostBuffer
            (
                executor_, gpuLdu::sharedValuesSize(message.group),
                ranks_.size()
            );
            putHandle(shared_.handle(), message.handle, "values");
            places_ = gpuLdu::rankPlaces(combined_, 0);
            for (label r = 1; r < ranks_.size(); ++r)
            {
                message.at = gpuLdu::rankPlaces(combined_, r);
                UOPstream::write
                (
                    UPstream::commsTypes::scheduled, r,
                    reinterpret_cast<const char*>(&message), sizeof(message),
                    groupTag, comm_
                );
            }
        }
        else
        {
            waitWithoutSpinning
            (
                reinterpret_cast<char*>(&message), sizeof(message)
            );
            places_ = message.at;
            shared_ = gpuLdu::SharedHostBuffer
            (
                takeHandle(message.handle),
                gpuLdu::sharedValuesSize(message.group)
            );
        }
    }
    catch (const gpuLdu::Error& e)
    {
        FatalErrorInFunction
            << "the values of the ranks " << ranks_ << " that share a device: "
            << e.what() << abort(FatalError);
    }
    values_ = gpuLdu::sharedValues(shared_.data(), message.group);
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
    // each rank's part to the device as it is placed (where a system takes it)
    const auto place = [&](const label r, const gpuLdu::RankValues& values)
    {
        placeValues(r, values, into);
        if (ahead)
        {
            ahead(r, wroteMatrix(values));
        }
    };
    place(0, mine);
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
                place(r, values);
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
    // A rank's set-up (its ints: gpuLdu::packRankSetup) in host memory the
    // group's ranks share, made by the rank (a SharedHostBuffer); through MPI
    // only its size and the buffer's handle. The owner maps each rank's and
    // unpacks it in place, the ranks a thread each (onHostThreads: no copy by
    // MPI, no receive buffer), then decides, on threads too, while the other
    // ranks wait for its decision without spinning: their cores are the
    // threads'. A rank keeps its buffer until the decision.
    int decided = 0;
    if (owner())
    {
        const label n = ranks_.size();
        std::vector<rankSetup> setups(n);
        setups[0] = std::move(mine);
        const gpuLdu::Stopwatch watch;
        std::vector<std::int64_t> sizes(n, 0);
        std::vector<std::string> handles(n);
        for (label r = 1; r < n; ++r)
        {
            SetupHandle at;
            UIPstream::read
            (
                UPstream::commsTypes::scheduled, r,
                reinterpret_cast<char*>(&at), sizeof(at), groupTag, comm_
            );
            if (at.size < 0 || at.size > std::numeric_limits<std::streamsize>::max()/4)
            {
                FatalErrorInFunction
                    << "rank " << ranks_[r] << " of the group announced a set-up"
                    << " of " << at.size << " ints" << abort(FatalError);
            }
            sizes[r] = at.size;
            handles[r] = takeHandle(at.handle);
        }
        // the time spent reading the set-ups once every rank's is there (the
        // rest is waiting for the ranks to pack them)
        const gpuLdu::Stopwatch readWatch;
        unpackSetups(handles, sizes, setups, ranks_);
        const double readSeconds = readWatch.seconds();
        const double receivedSeconds = watch.seconds();
        if (debug)
        {
            Info<< "gpuLduRankGroup: the set-up messages of " << n - 1
                << " ranks in " << receivedSeconds << " s (read in "
                << readSeconds << " s)" << endl;
        }
        decided = decide(setups, receivedSeconds);
        for (label r = 1; r < n; ++r)
        {
            UOPstream::write
            (
                UPstream::commsTypes::scheduled, r,
                reinterpret_cast<const char*>(&decided), sizeof(decided),
                groupTag, comm_
            );
        }
    }
    else
    {
        std::vector<int> message;
        gpuLdu::packRankSetup(mine, message);
        SetupHandle at;
        at.size = message.size();
        gpuLdu::SharedHostBuffer shared;
        try
        {
            shared = gpuLdu::SharedHostBuffer
            (
                gpuLdu::Executor::cpu, (message.size() + 1)/2
            );
            putHandle(shared.handle(), at.handle, "set-up");
        }
        catch (const gpuLdu::Error& e)
        {
            FatalErrorInFunction
                << "the set-up of rank " << ranks_[UPstream::myProcNo(comm_)]
                << " for its group " << ranks_ << ": " << e.what()
                << abort(FatalError);
        }
        std::copy
        (
            message.begin(), message.end(),
            reinterpret_cast<int*>(shared.data())
        );
        std::vector<int>().swap(message);
        UOPstream::write
        (
            UPstream::commsTypes::scheduled, 0,
            reinterpret_cast<const char*>(&at), sizeof(at), groupTag, comm_
        );
        waitWithoutSpinning(reinterpret_cast<char*>(&decided), sizeof(decided));
    }
    return decided != 0;
}


// ************************************************************************* //
