// SPDX-License-Identifier: GPL-3.0-or-later
// The messages of a group (gpuLdu/rankGroup.hpp): a rank's set-up as ints (its levels and
// coarsening steps, the flips packed); the group's values in host memory its ranks share and where
// each rank writes its own there; a rank's values message (the sizes and the coarse levels'
// coefficients), the owner's requests and a rank's product replies as doubles. The one place
// that knows their layouts.

#include "gpuLdu/rankGroup.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace gpuLdu
{

namespace
{

//- Every request starts with kind, product, phase, level
constexpr int headerSize = 4;

//- A rank's values start with their kind, when it arrived and the sizes of its eight parts
constexpr int nValueParts = 8;
constexpr int valuesHeaderSize = 2 + nValueParts;

//- The result's fields as a done request carries them, in this order (of its times, the four
//  every solve has: the owner logs GAMG's own)
constexpr int resultSize = 10;

void encodeResult(const SolveResult& r, std::vector<double>& message)
{
    message.insert
    (
        message.end(),
        {
            r.initialResidual, r.finalResidual, double(r.nIterations), double(r.converged),
            double(r.singular), double(r.nonFinite), r.times.upload, r.times.setup,
            r.times.iterate, r.times.handOver
        }
    );
}

SolveResult decodeResult(const double* v)
{
    SolveResult r;
    r.initialResidual = v[0];
    r.finalResidual = v[1];
    r.nIterations = int(v[2]);
    r.converged = v[3] != 0;
    r.singular = v[4] != 0;
    r.nonFinite = v[5] != 0;
    r.times.upload = v[6];
    r.times.setup = v[7];
    r.times.iterate = v[8];
    r.times.handOver = v[9];
    return r;
}

[[noreturn]] void notSetup(const std::string& why)
{
    throw Error("gpuLdu: not a rank's set-up message: " + why);
}

//- A list after its length
void putList(std::vector<int>& message, const std::vector<int>& list)
{
    message.push_back(int(list.size()));
    message.insert(message.end(), list.begin(), list.end());
}

//- The ints of a set-up message read in order, each checked to be there
struct SetupReader
{
    const int* at;
    const int* end;

    int next(const char* what)
    {
        if (at == end)
        {
            notSetup(std::string("it ends before ") + what);
        }
        return *at++;
    }

    //- A count of what follows, each taking at least one int: not more than are left
    int count(const char* what)
    {
        const int n = next(what);
        if (n < 0 || n > end - at)
        {
            notSetup(std::string(what) + " of " + std::to_string(n) + " ints, "
                + std::to_string(end - at) + " left");
        }
        return n;
    }

    std::vector<int> list(const char* what)
    {
        const int n = count(what);
        std::vector<int> l;
        reserveOnHugePages(l, n);
        l.assign(at, at + n);
        at += n;
        return l;
    }
};

[[noreturn]] void notARequest(const std::string& why)
{
    throw std::runtime_error("not a request of the group's owner: " + why);
}

[[noreturn]] void notValues(const std::string& why)
{
    throw std::runtime_error("not a rank's values: " + why);
}

//- RankValues' parts in their order in the message (const or not as values)
template<class Values>
auto partsOf(Values& v) -> std::array<decltype(&v.psi), nValueParts>
{
    return {&v.psi, &v.source, &v.diag, &v.upper, &v.lower, &v.interfaceBou, &v.interfaceInt,
        &v.levelCoeffs};
}

//- A size read from a message: a whole number from 0 to INT_MAX
int sizeOf(double s)
{
    if (!(s >= 0 && s <= double(INT_MAX)) || s != std::floor(s))
    {
        notValues("a part of " + std::to_string(s) + " values");
    }
    return int(s);
}

//- Whether a part of a rank's values has size n (or, sentOrNot, 0: not sent)
void expectSize(const DoublesView& part, int n, bool sentOrNot, const char* name)
{
    if (part.size != n && !(sentOrNot && part.size == 0))
    {
        throw std::runtime_error
        (
            std::string("a rank's ") + name + " of " + std::to_string(part.size)
          + " values, its part of the system " + std::to_string(n)
        );
    }
}

//- part's values at at (none where the part is empty)
void copyPart(const DoublesView& part, double* at)
{
    std::copy(part.begin(), part.end(), at);
}

//- Whether a rank's finest-level parts fit its places: psi, source and the interface
//  coefficients the rank's size, diag, upper and lower the rank's or 0 (not written)
void expectFinestSizes(const RankValues& values, const RankPlaces& at)
{
    expectSize(values.psi, at.nCells, false, "psi");
    expectSize(values.source, at.nCells, false, "source");
    expectSize(values.diag, at.nCells, true, "diag");
    expectSize(values.upper, at.nFaces, true, "upper");
    expectSize(values.lower, at.nFaces, true, "lower");
    expectSize(values.interfaceBou, at.nTerms, false, "interface coefficients");
    expectSize(values.interfaceInt, at.nTerms, false, "interface coefficients");
}

//- The number of group rank r's coarse level coefficients (A's and A^T's)
int levelCoeffCount(int r, const GroupValues& into)
{
    int n = 0;
    if (into.levelTermStart)
    {
        const std::vector<std::vector<int>>& start = *into.levelTermStart;
        for (std::size_t k = 1; k < start.size(); ++k)
        {
            n += 2*(start[k][r + 1] - start[k][r]);
        }
    }
    return n;
}

} // namespace


std::vector<int> packFlags(const std::vector<char>& flags)
{
    std::vector<int> packed((flags.size() + 31)/32, 0);
    for (std::size_t w = 0; w < packed.size(); ++w)
    {
        const std::size_t begin = 32*w;
        const std::size_t end = std::min(flags.size(), begin + 32);
        std::uint32_t bits = 0u;
        for (std::size_t k = begin; k < end; ++k)
        {
            bits |= std::uint32_t(flags[k] != 0) << (k - begin);
        }
        packed[w] = int(bits);
    }
    return packed;
}


std::vector<char> unpackFlags(const std::vector<int>& packed, std::size_t n)
{
    if (packed.size() != (n + 31)/32)
    {
        throw Error("gpuLdu: " + std::to_string(packed.size()) + " packed ints for " + std::to_string(n)
                    + " flags (" + std::to_string((n + 31)/32) + " expected)");
    }
    std::vector<char> flags(n);
    for (std::size_t k = 0; k < n; ++k)
    {
        flags[k] = char((std::uint32_t(packed[k/32]) >> (k % 32)) & 1u);
    }
    return flags;
}


void packRankSetup(const RankSetup& setup, std::vector<int>& message)
{
    std::size_t size = 3;
    for (const RankLevel& level : setup.levels)
    {
        size += 6 + level.lower.size() + level.upper.size() + 2*level.patchNeighbour.size();
        for (const std::vector<int>& cells : level.patchCells)
        {
            size += cells.size();
        }
    }
    for (const Coarsening& step : setup.steps)
    {
        size += 4 + step.restrictAddressing.size() + step.faceRestrictAddressing.size()
            + (step.faceFlipMap.size() + 31)/32;
    }
    message.clear();
    reserveOnHugePages(message, size);
    message.push_back(setup.eligible);
    message.push_back(int(setup.levels.size()));
    for (const RankLevel& level : setup.levels)
    {
        message.push_back(level.nCells);
        putList(message, level.lower);
        putList(message, level.upper);
        putList(message, level.patchNeighbour);
        message.push_back(int(level.patchCells.size()));
        for (const std::vector<int>& cells : level.patchCells)
        {
            putList(message, cells);
        }
        message.push_back(level.inPatchOrder);
    }
    message.push_back(int(setup.steps.size()));
    for (const Coarsening& step : setup.steps)
    {
        putList(message, step.restrictAddressing);
        putList(message, step.faceRestrictAddressing);
        message.push_back(int(step.faceFlipMap.size()));
        putList(message, packFlags(step.faceFlipMap));
    }
}


RankSetup unpackRankSetup(const int* message, std::size_t n)
{
    SetupReader in{message, message + n};
    RankSetup setup;
    setup.eligible = in.next("whether eligible") != 0;
    setup.levels.resize(in.count("levels"));
    for (RankLevel& level : setup.levels)
    {
        level.nCells = in.next("a level's cells");
        level.lower = in.list("lower addressing");
        level.upper = in.list("upper addressing");
        level.patchNeighbour = in.list("patch neighbours");
        level.patchCells.resize(in.count("patches"));
        for (std::vector<int>& cells : level.patchCells)
        {
            cells = in.list("patch cells");
        }
        level.inPatchOrder = in.next("the patch order") != 0;
    }
    setup.steps.resize(in.count("coarsening steps"));
    for (Coarsening& step : setup.steps)
    {
        step.restrictAddressing = in.list("restrict addressing");
        step.faceRestrictAddressing = in.list("face restrict addressing");
        const int nFlips = in.next("the flips' count");
        if (nFlips < 0)
        {
            notSetup(std::to_string(nFlips) + " flips");
        }
        step.faceFlipMap = unpackFlags(in.list("packed flips"), std::size_t(nFlips));
    }
    if (in.at != in.end)
    {
        notSetup(std::to_string(in.end - in.at) + " ints left over");
    }
    return setup;
}


void encodeRequest(const GroupRequest& request, std::vector<double>& message)
{
    message.assign
    (
        {double(request.kind), double(request.product), double(request.phase), double(request.level)}
    );
    switch (request.kind)
    {
        case GroupRequestKind::sum:
        case GroupRequestKind::maximum:
            message.push_back(request.value);
            break;
        case GroupRequestKind::product:
            if (productTakesX(request.product))
            {
                message.insert(message.end(), request.x.begin(), request.x.end());
            }
            message.insert(message.end(), request.y.begin(), request.y.end());
            break;
        case GroupRequestKind::done:
            encodeResult(request.result, message);
            break;
    }
}


GroupRequest decodeRequest(const double* message, int n)
{
    if (n < headerSize)
    {
        notARequest(std::to_string(n) + " values");
    }
    GroupRequest request;
    const int kind = int(message[0]);
    const int product = int(message[1]);
    const int phase = int(message[2]);
    const double level = message[3];
    if (kind < 0 || kind > int(GroupRequestKind::maximum) || product < 0
     || product > int(InterfaceProduct::magnitudes) || phase < 0 || phase > 1
     || !(level >= 0 && level < 1024) || level != int(level))
    {
        notARequest("kind, product, phase, level " + std::to_string(kind) + " "
            + std::to_string(product) + " " + std::to_string(phase) + " " + std::to_string(level));
    }
    request.kind = GroupRequestKind(kind);
    request.product = InterfaceProduct(product);
    request.phase = InterfacePhase(phase);
    request.level = int(level);
    const double* payload = message + headerSize;
    const int size = n - headerSize;
    switch (request.kind)
    {
        case GroupRequestKind::sum:
        case GroupRequestKind::maximum:
            if (size != 1)
            {
                notARequest("a reduce of " + std::to_string(size) + " values");
            }
            request.value = payload[0];
            break;
        case GroupRequestKind::product:
        {
            // x and y (only y for row sums and magnitudes), as many of each
            const bool hasX = productTakesX(request.product);
            if (hasX && size % 2 != 0)
            {
                notARequest("a product of " + std::to_string(size) + " values");
            }
            const int m = hasX ? size/2 : size;
            if (hasX)
            {
                request.x.assign(payload, payload + m);
            }
            request.y.assign(payload + (hasX ? m : 0), payload + size);
            break;
        }
        case GroupRequestKind::done:
            if (size != resultSize)
            {
                notARequest("a result of " + std::to_string(size) + " values");
            }
            request.result = decodeResult(payload);
            break;
    }
    return request;
}


int maxRequestSize(int nHostCells)
{
    return headerSize + std::max(2*nHostCells, resultSize);
}


void packRankValues(const RankValues& values, std::vector<double>& message)
{
    const auto parts = partsOf(values);
    message.assign({double(MessageKind::values), values.arrivedAt});
    for (const DoublesView* part : parts)
    {
        message.push_back(part->size);
    }
    message.insert(message.end(), values.levelCoeffs.begin(), values.levelCoeffs.end());
}


RankValues unpackRankValues(const double* message, int n)
{
    if (n < valuesHeaderSize || message[0] != double(MessageKind::values))
    {
        notValues(std::to_string(n) + " values of kind "
            + (n > 0 ? std::to_string(message[0]) : std::string("none")));
    }
    RankValues values;
    values.arrivedAt = message[1];
    const auto parts = partsOf(values);
    for (int i = 0; i < nValueParts; ++i)
    {
        parts[i]->size = sizeOf(message[2 + i]);
    }
    // the finest level's parts are at the rank's places already (writeRankValues)
    if (values.levelCoeffs.size != n - valuesHeaderSize)
    {
        notValues("coarse levels' coefficients of " + std::to_string(values.levelCoeffs.size)
            + " values in a message of " + std::to_string(n));
    }
    values.levelCoeffs.data = message + valuesHeaderSize;
    return values;
}


RankPlaces rankPlaces(const CombinedLevel& finest, int r)
{
    if (r < 0 || r >= finest.nRanks())
    {
        throw std::runtime_error("no rank " + std::to_string(r) + " in the group");
    }
    RankPlaces at;
    at.cell = finest.rowStart[r];
    at.nCells = finest.rowStart[r + 1] - at.cell;
    at.face = finest.faceStart[r];
    at.nFaces = finest.faceStart[r + 1] - at.face;
    at.term = finest.termStart[r];
    at.nTerms = finest.termStart[r + 1] - at.term;
    return at;
}


std::size_t sharedValuesSize(const RankPlaces& group)
{
    return 3*std::size_t(group.nCells) + 2*std::size_t(group.nFaces)
        + 2*std::size_t(group.nTerms);
}


GroupValues sharedValues(double* base, const RankPlaces& group)
{
    GroupValues v;
    v.psi = base;
    v.source = v.psi + group.nCells;
    v.diag = v.source + group.nCells;
    v.upper = v.diag + group.nCells;
    v.lower = v.upper + group.nFaces;
    v.interfaceBou = v.lower + group.nFaces;
    v.interfaceInt = v.interfaceBou + group.nTerms;
    return v;
}


void writeRankValues(const RankValues& values, const RankPlaces& at, GroupValues& into)
{
    expectFinestSizes(values, at);
    copyPart(values.psi, into.psi + at.cell);
    copyPart(values.source, into.source + at.cell);
    copyPart(values.diag, into.diag + at.cell);
    copyPart(values.upper, into.upper + at.face);
    copyPart(values.lower, into.lower + at.face);
    copyPart(values.interfaceBou, into.interfaceBou + at.term);
    copyPart(values.interfaceInt, into.interfaceInt + at.term);
}


void placeRankValues
(
    const RankValues& values,
    int r,
    const CombinedLevel& finest,
    GroupValues& into
)
{
    const RankPlaces at = rankPlaces(finest, r);
    expectFinestSizes(values, at);
    expectSize(values.levelCoeffs, levelCoeffCount(r, into), false, "coarse levels' coefficients");
    if (!into.termDest)
    {
        return;
    }
    const std::vector<std::vector<int>>& dest = *into.termDest;
    const std::size_t nLevels = into.levelTermStart ? into.levelTermStart->size() : 1;
    if (dest.size() != nLevels || into.termBou.size() != nLevels || into.termInt.size() != nLevels)
    {
        throw std::runtime_error
        (
            "the device coupling terms of " + std::to_string(dest.size()) + " levels for "
          + std::to_string(nLevels)
        );
    }

    // rank r's j-th term of a level to its device coupling term: the finest level's from the
    // shared values, then level after level (from 1) its terms of A and of A^T from the message
    const auto place = [](const int* to, const double* bou, const double* intc, int m,
        double* toBou, double* toInt)
    {
        for (int j = 0; j < m; ++j)
        {
            toBou[to[j]] = bou[j];
            toInt[to[j]] = intc[j];
        }
    };
    place(dest[0].data() + at.term, into.interfaceBou + at.term, into.interfaceInt + at.term,
        at.nTerms, into.termBou[0], into.termInt[0]);
    const double* from = values.levelCoeffs.data;
    for (std::size_t k = 1; k < nLevels; ++k)
    {
        const std::vector<int>& start = (*into.levelTermStart)[k];
        const int m = start[r + 1] - start[r];
        place(dest[k].data() + start[r], from, from + m, m, into.termBou[k], into.termInt[k]);
        from += 2*m;
    }
}


int maxRankValuesSize(int r, const GroupValues& into)
{
    return valuesHeaderSize + levelCoeffCount(r, into);
}


void encodeReply(const ProductReply& reply, std::vector<double>& message)
{
    message.assign(1, double(MessageKind::reply));
    message.insert(message.end(), reply.y.begin(), reply.y.end());
}


ProductReply decodeReply(const double* message, int n)
{
    if (n < 1 || message[0] != double(MessageKind::reply))
    {
        throw std::runtime_error
        (
            "not a rank's product reply: " + std::to_string(n) + " values of kind "
          + (n > 0 ? std::to_string(message[0]) : std::string("none"))
        );
    }
    ProductReply reply;
    reply.y.data = message + 1;
    reply.y.size = n - 1;
    return reply;
}

} // namespace gpuLdu
