// SPDX-License-Identifier: GPL-3.0-or-later
// The Krylov solvers' couplings and sums: a cell's several interface terms in OpenFOAM's order;
// sums through the host (as across ranks) and per part (the ranks of a consolidated system) the
// device's; interface terms held by the system (DeviceCouplings) the host coupling's; values in
// a SharedHostBuffer (the rank group's) those in ordinary memory.

#include "referenceKrylov.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace gpuLdu::test
{

//- A cell with several interface terms (a corner of a decomposed mesh, on two processor patches
//  or on two faces of one) gets them in OpenFOAM's order: on the host A x, the residuals and
//  normFactor are the reference's to the bit. Every interface cell of a periodic problem gets a
//  second term, to another cell, after its first.
TEST(Interfaces, CellsWithSeveralTermsTakeThemInOpenFOAMsOrder)
{
    using B = CpuBackend;
    LduProblem p = poisson3D(12, 9, 7, 31, -1, true);
    const std::size_t nPeriodic = p.ifCell.size();
    const std::vector<double> extra = randomVector(int(nPeriodic), 32, 0.1, 0.9);
    for (std::size_t k = 0; k < nPeriodic; ++k)
    {
        p.ifCell.push_back(p.ifCell[k]);
        p.ifNbr.push_back((p.ifNbr[k] + 12) % p.nCells);
        p.ifCoeff.push_back(extra[k]);
    }
    ProblemCoupling coupling(p);
    LduSystemImpl<B> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
    sys.setInterfaces(coupling.cells());
    const std::vector<double> x = randomVector(p.nCells, 33);
    B::Vector<double> dx(x.begin(), x.end());
    B::Vector<double> dy(p.nCells);
    sys.amul(ptr(dy), ptr(dx), coupling);
    EXPECT_EQ(toHost(dy), referenceAmul(p, x));

    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 34));
    SolverControls c;
    c.tolerance = 1e-9;
    c.maxIter = 200;
    std::vector<double> psi = randomVector(p.nCells, 35, -0.1, 0.1);
    std::vector<double> psiRef = psi;
    const SolveResult ref = referenceSolve(KrylovMethod::named("PCG"), p, psiRef, b, c, Preconditioner::named("DIC"));
    const SolveResult res = sys.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), coupling);
    EXPECT_EQ(res.initialResidual, ref.initialResidual);
    EXPECT_EQ(res.finalResidual, ref.finalResidual);
    EXPECT_EQ(res.nIterations, ref.nIterations);
    EXPECT_EQ(psi, psiRef);
}

//- A coupling whose sums go through the host, as across ranks (here of one rank's values; the
//  two-rank case, where a global sum differs from the local one, is tests/integration/parallel.sh)
class HostSumCoupling : public ProblemCoupling
{
public:
    using ProblemCoupling::ProblemCoupling;
    mutable int sums = 0;

    bool sumsAreLocal() const override
    {
        return false;
    }

    double sum(const double* partials, int nParts) const override
    {
        ++sums;
        return Coupling::sum(partials, nParts);
    }
};

//- PCG, PBiCG and PBiCGStab keep their sums on the device on one rank; through the host (as
//  across ranks) they give the same bits and iterations
TYPED_TEST(KrylovTest, SumsKeptOnTheDeviceEqualSumsThroughTheHost)
{
    const LduProblem symmetric = poisson3D(20, 18, 16, 71, -1, true);
    const LduProblem asymmetric = gpuLdu::test::asymmetric(18, 14, 12, 74, true);
    for (const auto& [p, method, type] : {std::tuple{&symmetric, KrylovMethod::named("PCG"), Preconditioner::named("DIC")},
                                          std::tuple{&asymmetric, KrylovMethod::named("PBiCG"), Preconditioner::named("DILU")},
                                          std::tuple{&asymmetric, KrylovMethod::named("PBiCGStab"), Preconditioner::named("DILU")}})
    {
        SCOPED_TRACE("method " + methodName(method));
        const std::vector<double> b = referenceAmul(*p, randomVector(p->nCells, 72));
        SolverControls c;
        c.tolerance = 1e-10;
        std::vector<std::vector<double>> psi;
        std::vector<SolveResult> res;
        int hostSums = 0;
        for (bool local : {true, false})
        {
            HostSumCoupling host(*p);
            ProblemCoupling plain(*p);
            ProblemCoupling* coupling = local ? &plain : &host;
            EXPECT_EQ(coupling->sumsAreLocal(), local);
            LduSystemImpl<TypeParam> sys(p->addressing());
            sys.setMatrix(p->diag.data(), p->upperCoeffs.data(), p->lowerOrNull());
            sys.setInterfaces(coupling->cells());
            psi.push_back(randomVector(p->nCells, 73, -0.1, 0.1));
            res.push_back(sys.solve(method, psi.back().data(), b.data(), c, type, *coupling));
            hostSums = host.sums;
        }
        // three (PCG, PBiCG) or five (PBiCGStab) reductions per iteration went through the host
        EXPECT_GE(hostSums, 3*res[1].nIterations);
        EXPECT_GT(res[0].nIterations, 3);
        EXPECT_EQ(res[0].nIterations, res[1].nIterations);
        EXPECT_EQ(res[0].finalResidual, res[1].finalResidual);
        EXPECT_EQ(psi[0], psi[1]);
    }
}

//- A problem's interface terms held by the system (DeviceCouplings: each row's terms in the
//  problem's order) give what the host's coupling gives: the same bits on the host (the same
//  subtractions in the same order), the same iterations on the GPU
TYPED_TEST(KrylovTest, DeviceCouplingsEqualHostCouplings)
{
    const LduProblem symmetric = poisson3D(20, 18, 16, 81, -1, true);
    const LduProblem asymmetric = gpuLdu::test::asymmetric(18, 14, 12, 84, true);
    for (const auto& [p, method, type] : {std::tuple{&symmetric, KrylovMethod::named("PCG"), Preconditioner::named("DIC")},
                                          std::tuple{&asymmetric, KrylovMethod::named("PBiCG"), Preconditioner::named("DILU")},
                                          std::tuple{&asymmetric, KrylovMethod::named("PBiCGStab"), Preconditioner::named("DILU")}})
    {
        SCOPED_TRACE("method " + methodName(method));
        ASSERT_GT(p->ifCell.size(), 0u);
        // the terms by row, each row's in the problem's order
        std::vector<double> coeffs;
        const DeviceCouplings dc = deviceCouplings(*p, coeffs);

        const std::vector<double> b = referenceAmul(*p, randomVector(p->nCells, 82));
        SolverControls c;
        c.tolerance = 1e-10;
        std::vector<std::vector<double>> psi;
        std::vector<SolveResult> res;
        for (bool onDevice : {false, true})
        {
            const ProblemCoupling host(*p);
            const Coupling none;
            LduSystemImpl<TypeParam> sys(p->addressing());
            sys.setMatrix(p->diag.data(), p->upperCoeffs.data(), p->lowerOrNull());
            if (onDevice)
            {
                sys.setDeviceCouplings(dc);
                sys.setDeviceCouplingCoeffs(coeffs.data(), coeffs.data());
            }
            else
            {
                sys.setInterfaces(host.cells());
            }
            psi.push_back(randomVector(p->nCells, 83, -0.1, 0.1));
            res.push_back(sys.solve(method, psi.back().data(), b.data(), c, type,
                onDevice ? static_cast<const Coupling&>(none) : host));
        }
        EXPECT_GT(res[0].nIterations, 3);
        if (TypeParam::executor == Executor::cpu)
        {
            EXPECT_EQ(res[0].nIterations, res[1].nIterations);
            EXPECT_EQ(res[0].initialResidual, res[1].initialResidual);
            EXPECT_EQ(res[0].finalResidual, res[1].finalResidual);
            EXPECT_EQ(psi[0], psi[1]);
        }
        else
        {
            EXPECT_NEAR(res[0].nIterations, res[1].nIterations, 1);
            EXPECT_NEAR(res[0].initialResidual, res[1].initialResidual, 1e-12*res[0].initialResidual);
            EXPECT_LT(relativeDifference(psi[0], psi[1]), 1e-7);
        }
    }
}

//- A coupling that records the partial sums it is handed
class PartsCoupling : public ProblemCoupling
{
public:
    using ProblemCoupling::ProblemCoupling;
    mutable std::vector<double> last;

    bool sumsAreLocal() const override
    {
        return false;
    }

    double sum(const double* partials, int nParts) const override
    {
        last.assign(partials, partials + nParts);
        return Coupling::sum(partials, nParts);
    }
};

//- Values in a SharedHostBuffer (page-locked for the GPU: copied straight to and from the
//  device) give the solve that the same values in ordinary memory give, bit for bit
TYPED_TEST(KrylovTest, SharedHostBufferValuesSolveAsOrdinaryMemory)
{
    const LduProblem p = gpuLdu::test::asymmetric(24, 20, 18, 91);
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 92));
    SolverControls c;
    c.tolerance = 1e-10;
    const auto copied = [](const std::vector<double>& v)
    {
        SharedHostBuffer h(TypeParam::executor, v.size());
        std::copy(v.begin(), v.end(), h.data());
        return h;
    };
    SharedHostBuffer diag = copied(p.diag), upper = copied(p.upperCoeffs), lower = copied(p.lowerCoeffs);
    SharedHostBuffer source = copied(b), psi = copied(std::vector<double>(p.nCells, 0.0));
    ASSERT_EQ(psi.size(), std::size_t(p.nCells));

    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerCoeffs.data());
    std::vector<double> x(p.nCells, 0.0);
    const SolveResult r = sys.solve(KrylovMethod::named("PBiCGStab"), x.data(), b.data(), c, Preconditioner::named("DILU"), Coupling());

    LduSystemImpl<TypeParam> pinnedSys(p.addressing());
    pinnedSys.setMatrix(diag.data(), upper.data(), lower.data());
    const SolveResult q =
        pinnedSys.solve(KrylovMethod::named("PBiCGStab"), psi.data(), source.data(), c, Preconditioner::named("DILU"), Coupling());
    EXPECT_GT(r.nIterations, 0);
    EXPECT_EQ(q.nIterations, r.nIterations);
    EXPECT_EQ(q.finalResidual, r.finalResidual);
    EXPECT_EQ(std::vector<double>(psi.data(), psi.data() + psi.size()), x);
}

//- Sums left on the backend (a coupling whose sums are local): a pair of sums in one pass
//  (more rows than the pair's blocks cover at once) and one after the other, the workspace's
//  maximum: the host's sums in index order (bit for bit on the host, to rounding on the GPU)
TYPED_TEST(KrylovTest, SumsAndMaximaOnTheBackend)
{
    const int n = 300001;
    const std::vector<double> x = randomVector(n, 94);
    const std::vector<double> y = randomVector(n, 95);
    typename TypeParam::template Vector<double> dx(x.begin(), x.end()), dy(y.begin(), y.end());
    typename TypeParam::Workspace ws;
    const Coupling local;
    const std::vector<int> starts{0, n};
    ws.setParts(starts, {0}, 1);
    DeviceScalars<TypeParam> sums(ws, local, starts);
    sums.sumInto(detail::Dot{ptr(dx), ptr(dy)}, detail::Sum{ptr(dy)}, 2);
    sums.sumInto(detail::Dot{ptr(dx), ptr(dy)}, 4);
    double got[3];
    ws.fetch(2, 3, got);
    double dot = 0;
    double sum = 0;
    double largest = -1e300;
    for (int i = 0; i < n; ++i)
    {
        dot += x[i]*y[i];
        sum += y[i];
        largest = std::max(largest, x[i]);
    }
    const double maximum = ws.maximum(n, detail::Sum{ptr(dx)});
    EXPECT_EQ(maximum, largest);
    if (TypeParam::executor == Executor::cpu)
    {
        EXPECT_EQ(got[0], dot);
        EXPECT_EQ(got[1], sum);
    }
    else
    {
        EXPECT_NEAR(got[0], dot, 1e-11*(1 + std::abs(dot)));
        EXPECT_NEAR(got[1], sum, 1e-11*(1 + std::abs(sum)));
    }
    EXPECT_NEAR(got[2], got[0], 1e-11*(1 + std::abs(dot)));
}

//- The parts' slots: each slot's part (-1: none), and a workspace refuses parts without
//  distinct slots in range (no part, a part without a slot, a slot twice or outside [0, nSlots))
TYPED_TEST(KrylovTest, PartsTakeDistinctSlotsInRange)
{
    EXPECT_EQ(partOfSlots({0, 3, 5}, {2, 0}, 4), (std::vector<int>{1, -1, 0, -1}));
    typename TypeParam::Workspace ws;
    EXPECT_THROW(ws.setParts({0}, {}, 1), Error);
    EXPECT_THROW(ws.setParts({0, 3, 5}, {0}, 2), Error);
    EXPECT_THROW(ws.setParts({0, 3, 5}, {1, 1}, 2), Error);
    EXPECT_THROW(ws.setParts({0, 3, 5}, {0, 2}, 2), Error);
    EXPECT_THROW(ws.setParts({0, 3, 5}, {-1, 0}, 2), Error);
    EXPECT_NO_THROW(ws.setParts({0, 3, 5}, {1, 0}, 2));
}

//- Sums per part (the ranks of a consolidated system): each part's partial is the sum over its
//  rows, in index order on the host; a solve with parts needs the iterations of one part
TYPED_TEST(KrylovTest, SumsPerPart)
{
    const LduProblem p = poisson3D(20, 18, 16, 91, -1, true);
    const std::vector<int> starts{0, 1000, 1001, 1001, p.nCells};
    const std::vector<double> x = randomVector(p.nCells, 92);
    PartsCoupling parts(p);
    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setParts(starts);
    typename TypeParam::template Vector<double> dx(x.begin(), x.end());
    DeviceScalars<TypeParam> sums(sys.workspace(), parts, starts);
    const double total = sums.gSum(detail::Sum{ptr(dx)});
    ASSERT_EQ(parts.last.size(), starts.size() - 1);
    for (std::size_t q = 0; q + 1 < starts.size(); ++q)
    {
        double expected = 0;
        for (int i = starts[q]; i < starts[q + 1]; ++i)
        {
            expected += x[i];
        }
        if (TypeParam::executor == Executor::cpu)
        {
            EXPECT_EQ(parts.last[q], expected);
        }
        else
        {
            EXPECT_NEAR(parts.last[q], expected, 1e-12*(1 + std::abs(expected)));
        }
    }
    EXPECT_EQ(sums.gCount(), double(p.nCells));
    EXPECT_NEAR(total, std::accumulate(x.begin(), x.end(), 0.0), 1e-10);

    // a solve with parts and one without: the same iterations
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 93));
    SolverControls c;
    c.tolerance = 1e-10;
    std::vector<int> iterations;
    for (bool split : {false, true})
    {
        LduSystemImpl<TypeParam> s(p.addressing());
        if (split)
        {
            s.setParts(starts);
        }
        s.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        s.setInterfaces(parts.cells());
        std::vector<double> psi(p.nCells, 0.0);
        iterations.push_back(s.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), parts).nIterations);
    }
    EXPECT_GT(iterations[0], 3);
    EXPECT_NEAR(iterations[0], iterations[1], 1);
    EXPECT_THROW(sys.setParts({0, 5}), Error);
}

} // namespace gpuLdu::test
