// SPDX-License-Identifier: GPL-3.0-or-later
// The messages of a rank group (gpuLdu/rankGroup.hpp): a rank's set-up, the owner's requests,
// a rank's values and product replies through their doubles and back, malformed ones refused,
// and a rank's values into the owner's arrays. (Plain host data: no backend takes part.)

#include "rankGroupTestSupport.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace gpuLdu::test
{

//- A step's flips 32 to an int and back: every flag where it was, for sizes around a word's
TEST(RankGroup, FlagsPackedAndUnpacked)
{
    std::mt19937 gen(17);
    for (std::size_t n : {0, 1, 31, 32, 33, 64, 1000})
    {
        std::vector<char> flags(n);
        for (std::size_t k = 0; k < n; ++k)
        {
            flags[k] = gen() % 2 == 1;
        }
        const std::vector<int> packed = packFlags(flags);
        EXPECT_EQ(packed.size(), (n + 31)/32);
        EXPECT_EQ(unpackFlags(packed, n), flags) << n << " flags";
    }
    // bit k % 32 of int k / 32
    EXPECT_EQ(packFlags({false, true, true}), (ints{6}));
    std::vector<char> high(32, false);
    high[31] = true;
    EXPECT_EQ(unpackFlags(packFlags(high), 32), high);
    EXPECT_THROW(unpackFlags({1, 2}, 32), Error);
}

//- A rank's set-up through its message of ints: every level and step back as it was; a message
//  cut short, with ints left over, or with a length past its end fails
TEST(RankGroup, RankSetupRoundTrip)
{
    RankSetup setup;
    RankLevel fine = chain(3, {1, noPatch}, {{2}, {}});
    fine.inPatchOrder = false;
    setup.levels = {fine, chain(2, {1}, {{0}})};
    Coarsening step;
    step.restrictAddressing = {0, 0, 1};
    step.faceRestrictAddressing = {-1, 0};
    step.faceFlipMap = std::vector<char>(40, false);
    step.faceFlipMap[33] = true;
    setup.steps = {step};

    std::vector<int> message;
    packRankSetup(setup, message);
    const RankSetup back = unpackRankSetup(message.data(), message.size());
    EXPECT_TRUE(back.eligible);
    ASSERT_EQ(back.levels.size(), 2u);
    for (std::size_t k = 0; k < 2; ++k)
    {
        const RankLevel& a = setup.levels[k];
        const RankLevel& b = back.levels[k];
        EXPECT_EQ(b.nCells, a.nCells);
        EXPECT_EQ(b.lower, a.lower);
        EXPECT_EQ(b.upper, a.upper);
        EXPECT_EQ(b.patchNeighbour, a.patchNeighbour);
        EXPECT_EQ(b.patchCells, a.patchCells);
        EXPECT_EQ(b.inPatchOrder, a.inPatchOrder);
    }
    ASSERT_EQ(back.steps.size(), 1u);
    EXPECT_EQ(back.steps[0].restrictAddressing, step.restrictAddressing);
    EXPECT_EQ(back.steps[0].faceRestrictAddressing, step.faceRestrictAddressing);
    EXPECT_EQ(back.steps[0].faceFlipMap, step.faceFlipMap);

    // a rank that cannot join: its flag, nothing else
    RankSetup none;
    none.eligible = false;
    packRankSetup(none, message);
    EXPECT_FALSE(unpackRankSetup(message.data(), message.size()).eligible);

    packRankSetup(setup, message);
    EXPECT_THROW(unpackRankSetup(message.data(), message.size() - 1), Error);
    std::vector<int> longer = message;
    longer.push_back(0);
    EXPECT_THROW(unpackRankSetup(longer.data(), longer.size()), Error);
    std::vector<int> wrong = message;
    wrong[3] = 1000;  // the first level's lower addressing past the end
    EXPECT_THROW(unpackRankSetup(wrong.data(), wrong.size()), Error);
    wrong[3] = -1;
    EXPECT_THROW(unpackRankSetup(wrong.data(), wrong.size()), Error);
    EXPECT_THROW(unpackRankSetup(message.data(), 0), Error);
}

TEST(RankGroup, LocatePart)
{
    EXPECT_EQ(locatePart({0, 2, 5}, 0).part, 0);
    EXPECT_EQ(locatePart({0, 2, 5}, 4).part, 1);
    EXPECT_EQ(locatePart({0, 2, 5}, 4).local, 2);
    EXPECT_EQ(locatePart({0, 2, 5}, 5).part, -1);
    EXPECT_EQ(locatePart({0, 2, 5}, 5).local, 5);
}

//- Every request through its doubles and back; the layout a rank reads
TEST(RankGroup, RequestsRoundTrip)
{
    std::vector<double> message;
    GroupRequest sum;
    sum.kind = GroupRequestKind::sum;
    sum.value = 2.5;
    encodeRequest(sum, message);
    EXPECT_EQ(message, (std::vector<double>{0, 0, 0, 0, 2.5}));
    GroupRequest back = decodeRequest(message.data(), int(message.size()));
    EXPECT_EQ(back.kind, GroupRequestKind::sum);
    EXPECT_EQ(back.value, 2.5);

    GroupRequest product;
    product.kind = GroupRequestKind::product;
    product.product = InterfaceProduct::transposed;
    product.phase = InterfacePhase::late;
    product.level = 3;
    product.x = {1, 2};
    product.y = {3, 4};
    encodeRequest(product, message);
    EXPECT_EQ(message, (std::vector<double>{1, 1, 1, 3, 1, 2, 3, 4}));
    back = decodeRequest(message.data(), int(message.size()));
    EXPECT_EQ(back.product, InterfaceProduct::transposed);
    EXPECT_EQ(back.phase, InterfacePhase::late);
    EXPECT_EQ(back.level, 3);
    EXPECT_EQ(back.x, product.x);
    EXPECT_EQ(back.y, product.y);

    // GAMG's smoothers' residual takes x; the row sums and the magnitudes do not
    product.product = InterfaceProduct::residual;
    encodeRequest(product, message);
    EXPECT_EQ(message.size(), 8u);
    back = decodeRequest(message.data(), int(message.size()));
    EXPECT_EQ(back.product, InterfaceProduct::residual);
    EXPECT_EQ(back.x, product.x);
    for (const InterfaceProduct withoutX : {InterfaceProduct::rowSums, InterfaceProduct::magnitudes})
    {
        product.product = withoutX;
        encodeRequest(product, message);
        EXPECT_EQ(message.size(), 6u);
        back = decodeRequest(message.data(), int(message.size()));
        EXPECT_EQ(back.product, withoutX);
        EXPECT_TRUE(back.x.empty());
        EXPECT_EQ(back.y, product.y);
    }

    GroupRequest done;
    done.result.initialResidual = 1;
    done.result.finalResidual = 1e-7;
    done.result.nIterations = 12;
    done.result.converged = true;
    done.result.nonFinite = true;
    done.result.times.iterate = 0.25;
    done.result.times.handOver = 0.5;
    encodeRequest(done, message);
    EXPECT_EQ(int(message.size()), 14);
    EXPECT_LE(int(message.size()), maxRequestSize(0));
    back = decodeRequest(message.data(), int(message.size()));
    EXPECT_EQ(back.kind, GroupRequestKind::done);
    EXPECT_EQ(back.result.nIterations, 12);
    EXPECT_TRUE(back.result.converged);
    EXPECT_FALSE(back.result.singular);
    EXPECT_TRUE(back.result.nonFinite);
    EXPECT_EQ(back.result.finalResidual, 1e-7);
    EXPECT_EQ(back.result.times.iterate, 0.25);
    EXPECT_EQ(back.result.times.handOver, 0.5);
    // a done with more than the result (psi travels in the shared values)
    message.push_back(1);
    EXPECT_THROW(decodeRequest(message.data(), int(message.size())), std::runtime_error);
    EXPECT_EQ(maxRequestSize(100), 204);
    EXPECT_EQ(maxRequestSize(1), 14);
}

TEST(RankGroup, MalformedRequestsThrow)
{
    const std::vector<double> unknownKind{7, 0, 0, 0, 1};
    EXPECT_THROW(decodeRequest(unknownKind.data(), 5), std::runtime_error);
    const std::vector<double> unknownProduct{1, 5, 0, 0, 1, 2};
    EXPECT_THROW(decodeRequest(unknownProduct.data(), 6), std::runtime_error);
    const std::vector<double> oddProduct{1, 0, 0, 0, 1, 2, 3};
    EXPECT_THROW(decodeRequest(oddProduct.data(), 7), std::runtime_error);
    for (const double level : {-1.0, 0.5, 1e9})
    {
        const std::vector<double> badLevel{1, 0, 0, level, 1, 2};
        EXPECT_THROW(decodeRequest(badLevel.data(), 6), std::runtime_error);
    }
    const std::vector<double> shortDone{2, 0, 0, 0, 1};
    EXPECT_THROW(decodeRequest(shortDone.data(), 5), std::runtime_error);
    EXPECT_THROW(decodeRequest(shortDone.data(), 2), std::runtime_error);
    // a rank's values or reply where a request was due
    const std::vector<double> reply{double(MessageKind::reply), 1, 2, 3, 4};
    EXPECT_THROW(decodeRequest(reply.data(), 5), std::runtime_error);
}

namespace
{

DoublesView viewOf(const std::vector<double>& v)
{
    DoublesView view;
    view.data = v.data();
    view.size = int(v.size());
    return view;
}

std::vector<double> copyOf(const DoublesView& v)
{
    return std::vector<double>(v.begin(), v.end());
}

//- TwoRanksOneFace's combined level: two chains of two cells, one processor face between them
CombinedLevel twoRanks()
{
    return combineRanks({chain(2, {1}, {{1}}), chain(2, {0}, {{0}})});
}

} // namespace

//- A rank's values message: the header (kind, arrival, the eight parts' sizes), then only the
//  coarse levels' coefficients (the finest level's parts are written to the shared values);
//  unpacked, the finest parts their sizes, the coefficients a view into the message
TEST(RankGroup, RankValuesRoundTrip)
{
    const std::vector<double> psi{1, 2}, source{3, -0.0}, upper{5}, bou{6}, intc{7},
        level{8, -0.0, 10, 11};
    RankValues values;
    values.psi = viewOf(psi);
    values.source = viewOf(source);
    values.upper = viewOf(upper);
    values.interfaceBou = viewOf(bou);
    values.interfaceInt = viewOf(intc);
    values.levelCoeffs = viewOf(level);
    values.arrivedAt = 12345.25;

    std::vector<double> message;
    packRankValues(values, message);
    EXPECT_EQ(message, (std::vector<double>{double(MessageKind::values), 12345.25, 2, 2, 0, 1,
        0, 1, 1, 4, 8, -0.0, 10, 11}));

    const RankValues back = unpackRankValues(message.data(), int(message.size()));
    EXPECT_EQ(back.arrivedAt, 12345.25);
    EXPECT_EQ(back.psi.size, 2);
    EXPECT_EQ(back.source.size, 2);
    EXPECT_EQ(back.diag.size, 0);
    EXPECT_EQ(back.upper.size, 1);
    EXPECT_EQ(back.lower.size, 0);
    EXPECT_EQ(back.interfaceBou.size, 1);
    EXPECT_EQ(back.interfaceInt.size, 1);
    EXPECT_EQ(back.psi.data, nullptr);
    EXPECT_EQ(copyOf(back.levelCoeffs), level);
    EXPECT_TRUE(std::signbit(back.levelCoeffs.data[1]));
    EXPECT_EQ(back.levelCoeffs.data, message.data() + 10);
}

TEST(RankGroup, MalformedRankValuesThrow)
{
    RankValues values;
    const std::vector<double> psi{1, 2}, level{3, 4};
    values.psi = viewOf(psi);
    values.levelCoeffs = viewOf(level);
    std::vector<double> message;
    packRankValues(values, message);
    EXPECT_NO_THROW(unpackRankValues(message.data(), int(message.size())));
    // shorter or longer than its coefficients, or shorter than its header
    EXPECT_THROW(unpackRankValues(message.data(), int(message.size()) - 1), std::runtime_error);
    std::vector<double> longer = message;
    longer.push_back(5);
    EXPECT_THROW(unpackRankValues(longer.data(), int(longer.size())), std::runtime_error);
    EXPECT_THROW(unpackRankValues(message.data(), 4), std::runtime_error);
    // another kind (a request)
    std::vector<double> wrong = message;
    wrong[0] = double(GroupRequestKind::done);
    EXPECT_THROW(unpackRankValues(wrong.data(), int(wrong.size())), std::runtime_error);
    // a size that is not a count
    wrong = message;
    wrong[2] = -1;
    EXPECT_THROW(unpackRankValues(wrong.data(), int(wrong.size())), std::runtime_error);
    wrong[2] = 0.5;
    EXPECT_THROW(unpackRankValues(wrong.data(), int(wrong.size())), std::runtime_error);
}

//- The shared values' layout (psi, source, diag by cells; upper, lower by faces; the interface
//  coefficients by terms) and rank 1 writing its values at its places there: cells from
//  rowStart[1], faces from faceStart[1], terms from termStart[1]; what it did not write kept
TEST(RankGroup, WriteRankValuesAtTheirPlaces)
{
    const CombinedLevel c = twoRanks();
    RankPlaces group;
    group.nCells = c.nCells();
    group.nFaces = c.nFaces();
    group.nTerms = c.termStart.back();
    ASSERT_EQ(sharedValuesSize(group), std::size_t(3*4 + 2*2 + 2*2));
    std::vector<double> shared(sharedValuesSize(group), -1);
    GroupValues into = sharedValues(shared.data(), group);
    EXPECT_EQ(into.source - into.psi, 4);
    EXPECT_EQ(into.upper - into.diag, 4);
    EXPECT_EQ(into.interfaceBou - into.lower, 2);
    EXPECT_EQ(into.interfaceInt + 2, shared.data() + shared.size());

    const RankPlaces at = rankPlaces(c, 1);
    EXPECT_EQ(at.cell, 2);
    EXPECT_EQ(at.nCells, 2);
    EXPECT_EQ(at.face, 1);
    EXPECT_EQ(at.nFaces, 1);
    EXPECT_EQ(at.term, 1);
    EXPECT_EQ(at.nTerms, 1);
    EXPECT_THROW(rankPlaces(c, 2), std::runtime_error);

    const std::vector<double> rPsi{1, 2}, rSource{3, 4}, rUpper{5}, rLower{6}, rBou{7}, rInt{8};
    RankValues values;
    values.psi = viewOf(rPsi);
    values.source = viewOf(rSource);
    values.upper = viewOf(rUpper);
    values.lower = viewOf(rLower);
    values.interfaceBou = viewOf(rBou);
    values.interfaceInt = viewOf(rInt);
    writeRankValues(values, at, into);
    EXPECT_EQ(shared, (std::vector<double>{-1, -1, 1, 2, -1, -1, 3, 4, -1, -1, -1, -1,
        -1, 5, -1, 6, -1, 7, -1, 8}));

    // parts that are not the rank's: psi of three cells, no interface coefficients
    RankValues bad = values;
    const std::vector<double> three{1, 2, 3};
    bad.psi = viewOf(three);
    EXPECT_THROW(writeRankValues(bad, at, into), std::runtime_error);
    bad = values;
    bad.interfaceBou = DoublesView();
    EXPECT_THROW(writeRankValues(bad, at, into), std::runtime_error);
}

//- The owner's check of rank 1's message, and its terms to their device coupling terms: the
//  finest level's from the shared values at its places, each coarse level's terms of A and of
//  A^T from the message (from that level's termStart[1]), each to termDest's place
TEST(RankGroup, PlaceRankValues)
{
    const CombinedLevel c = twoRanks();
    // the shared values' interface coefficients, as the ranks wrote them (one term each)
    std::vector<double> sharedBou{6, 7}, sharedInt{-6, -7};
    std::vector<double> bou0(2, -1), int0(2, -1), bou1(3, -1), int1(3, -1);
    // one coarse level: rank 0 with one term there, rank 1 with two, in the device coupling
    // terms' order: rank 1's first, then rank 0's
    const std::vector<std::vector<int>> levelTermStart{c.termStart, {0, 1, 3}};
    const std::vector<std::vector<int>> termDest{termDestinations(c.termSource), {2, 0, 1}};
    GroupValues into;
    into.interfaceBou = sharedBou.data();
    into.interfaceInt = sharedInt.data();
    into.levelTermStart = &levelTermStart;
    into.termDest = &termDest;
    into.termBou = {bou0.data(), bou1.data()};
    into.termInt = {int0.data(), int1.data()};

    const std::vector<double> rPsi{1, 2}, rSource{3, 4}, rUpper{5}, rBou{7}, rInt{-7},
        rLevel{9, 10, 11, 12};
    RankValues values;
    values.psi = viewOf(rPsi);
    values.source = viewOf(rSource);
    values.upper = viewOf(rUpper);
    values.interfaceBou = viewOf(rBou);
    values.interfaceInt = viewOf(rInt);
    values.levelCoeffs = viewOf(rLevel);
    std::vector<double> message;
    packRankValues(values, message);
    EXPECT_EQ(int(message.size()), maxRankValuesSize(1, into));
    placeRankValues(unpackRankValues(message.data(), int(message.size())), 1, c, into);
    EXPECT_EQ(bou0, (std::vector<double>{-1, 7}));
    EXPECT_EQ(int0, (std::vector<double>{-1, -7}));
    EXPECT_EQ(bou1, (std::vector<double>{9, 10, -1}));
    EXPECT_EQ(int1, (std::vector<double>{11, 12, -1}));

    // parts that are not the rank's: psi of rank 0's size is fine only for rank 0, coarse
    // coefficients of the wrong count, no interface coefficients, no such rank
    RankValues bad = values;
    const std::vector<double> three{1, 2, 3};
    bad.psi = viewOf(three);
    EXPECT_THROW(placeRankValues(bad, 1, c, into), std::runtime_error);
    bad = values;
    bad.levelCoeffs = viewOf(three);
    EXPECT_THROW(placeRankValues(bad, 1, c, into), std::runtime_error);
    bad = values;
    bad.interfaceBou = DoublesView();
    EXPECT_THROW(placeRankValues(bad, 1, c, into), std::runtime_error);
    EXPECT_THROW(placeRankValues(values, 2, c, into), std::runtime_error);
    // destinations for another number of levels
    const std::vector<std::vector<int>> finestOnly{termDest[0]};
    GroupValues wrongLevels = into;
    wrongLevels.termDest = &finestOnly;
    EXPECT_THROW(placeRankValues(values, 1, c, wrongLevels), std::runtime_error);

    // a Krylov group: no coarse coefficients; the finest level's terms placed
    GroupValues krylov;
    krylov.interfaceBou = sharedBou.data();
    krylov.interfaceInt = sharedInt.data();
    krylov.termDest = &finestOnly;
    std::fill(bou0.begin(), bou0.end(), -1);
    krylov.termBou = {bou0.data()};
    krylov.termInt = {int0.data()};
    EXPECT_THROW(placeRankValues(values, 1, c, krylov), std::runtime_error);
    values.levelCoeffs = DoublesView();
    EXPECT_NO_THROW(placeRankValues(values, 1, c, krylov));
    EXPECT_EQ(bou0, (std::vector<double>{-1, 7}));
    EXPECT_EQ(maxRankValuesSize(1, krylov), 10);
}

//- A product reply through its doubles; a request where a reply was due fails
TEST(RankGroup, ProductReplyRoundTrip)
{
    const std::vector<double> y{1.5, -2};
    ProductReply reply;
    reply.y = viewOf(y);
    std::vector<double> message;
    encodeReply(reply, message);
    EXPECT_EQ(message, (std::vector<double>{double(MessageKind::reply), 1.5, -2}));
    const ProductReply back = decodeReply(message.data(), int(message.size()));
    EXPECT_EQ(copyOf(back.y), y);

    GroupRequest sum;
    sum.kind = GroupRequestKind::sum;
    encodeRequest(sum, message);
    EXPECT_THROW(decodeReply(message.data(), int(message.size())), std::runtime_error);
    EXPECT_THROW(decodeReply(message.data(), 0), std::runtime_error);
}

} // namespace gpuLdu::test
