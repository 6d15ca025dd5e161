// SPDX-License-Identifier: GPL-3.0-or-later
// PCG, PBiCG and PBiCGStab against OpenFOAM's loops (reference): iterations, residuals,
// solution; the solution actually solves the system; the exits (converged at the start,
// singular, non-finite).

#include "testSupport.hpp"

#include <tuple>
#include <type_traits>

namespace gpuLdu::test
{

template<class B>
class KrylovTest : public ::testing::Test {};
TYPED_TEST_SUITE(KrylovTest, Backends);

struct Case
{
    std::string name;
    LduProblem problem;
    SolverControls controls;
};

std::vector<Case> symmetricCases()
{
    SolverControls tight;
    tight.tolerance = 1e-10;
    SolverControls rel;
    rel.tolerance = 1e-12;
    rel.relTol = 1e-3;
    SolverControls minIter;
    minIter.tolerance = 1e3;
    minIter.minIter = 4;
    SolverControls capped;
    capped.tolerance = 0;
    capped.maxIter = 7;
    return {
        {"poisson 20x18x16", poisson3D(20, 18, 16, 11), tight},
        {"pressure-sign poisson 15^3", poisson3D(15, 15, 15, 12, -1), rel},
        {"periodic poisson 12x10x8", poisson3D(12, 10, 8, 13, -1, true), tight},
        {"minIter", poisson3D(8, 8, 8, 14), minIter},
        {"maxIter", poisson3D(8, 8, 8, 15), capped},
        {"nos4", readMatrixMarket(dataFile("nos4.mtx.gz")), tight},
        {"gr_30_30", readMatrixMarket(dataFile("gr_30_30.mtx.gz")), tight},
        {"1138_bus", readMatrixMarket(dataFile("1138_bus.mtx.gz")), tight},
        {"bcsstk14", readMatrixMarket(dataFile("bcsstk14.mtx.gz")), rel},
        {"sherman1", readMatrixMarket(dataFile("sherman1.mtx.gz")), tight},
        {"openfoam elbow p", readMatrixMarket(dataFile("openfoam_elbow_p0.mtx.gz")), rel},
    };
}

std::vector<Case> asymmetricCases()
{
    SolverControls tight;
    tight.tolerance = 1e-10;
    SolverControls rel;
    rel.tolerance = 1e-14;
    rel.relTol = 1e-4;
    return {
        {"periodic convection-diffusion 18x14x12", asymmetric(18, 14, 12, 16, true), tight},
        {"sherman5", readMatrixMarket(dataFile("sherman5.mtx.gz")), rel},
        {"orsirr_1", readMatrixMarket(dataFile("orsirr_1.mtx.gz")), rel},
        {"openfoam elbow Ux", readMatrixMarket(dataFile("openfoam_elbow_Ux0.mtx.gz")), tight},
    };
}

template<class B>
SolveResult solve(const LduProblem& p, std::vector<double>& psi, const std::vector<double>& b,
                  const SolverControls& c, Preconditioner type, KrylovMethod method = KrylovMethod::PCG)
{
    ProblemCoupling coupling(p);
    LduSystemImpl<B> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    sys.setInterfaces(coupling.cells());
    return sys.solve(method, psi.data(), b.data(), c, type, coupling);
}

//- One method with several preconditioners on several cases, against the reference loop.
template<class B>
void checkAgainstReference(KrylovMethod method, const std::vector<Case>& cases,
                           std::initializer_list<Preconditioner> preconditioners)
{
    for (const Case& c : cases)
    {
        for (Preconditioner type : preconditioners)
        {
            const LduProblem& p = c.problem;
            const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 21));
            std::vector<double> psi = randomVector(p.nCells, 22, -0.1, 0.1);
            std::vector<double> psiRef = psi;
            const SolveResult ref = referenceSolve(method, p, psiRef, b, c.controls, type);
            const SolveResult res = solve<B>(p, psi, b, c.controls, type, method);
            SCOPED_TRACE(c.name + ", method " + std::to_string(int(method)) + ", preconditioner "
                         + std::to_string(int(type)));

            EXPECT_NEAR(res.initialResidual, ref.initialResidual, 1e-12*ref.initialResidual);
            EXPECT_GT(ref.nIterations, 0);
            EXPECT_EQ(res.singular, ref.singular);
            EXPECT_FALSE(res.nonFinite);
            // Rounding may move a count by one; in long, badly conditioned solves (sherman1
            // with PCG and no preconditioner: 536 iterations) the loss of orthogonality makes
            // a different summation order worth a few more: 0.5% of the count. The BiCG-type
            // loops with a weak preconditioner (none, diagonal) converge irregularly, and there
            // the GPU's summation order moves counts by up to 10% (measured: sherman1 PBiCGStab
            // diagonal 215 vs 316 before the GPU stopped fusing multiply-adds); held to 10%.
            const bool irregular = method != KrylovMethod::PCG
                && (type == Preconditioner::none || type == Preconditioner::diagonal);
            const int allowed = irregular ? std::max(2, ref.nIterations/10) : std::max(1, ref.nIterations/200);
            EXPECT_NEAR(res.nIterations, ref.nIterations, allowed);
            // (within that band a solve that ends at maxIter may or may not have converged)
            if (ref.nIterations + allowed < c.controls.maxIter)
            {
                EXPECT_EQ(res.converged, ref.converged);
            }
            if (std::is_same<B, CpuBackend>::value && type != Preconditioner::ILU0)
            {
                // OpenFOAM's arithmetic in OpenFOAM's order: the same numbers (not for ILU0,
                // whose reference sweeps run by columns)
                EXPECT_EQ(res.nIterations, ref.nIterations);
                EXPECT_NEAR(res.finalResidual, ref.finalResidual, 1e-12*ref.finalResidual);
                EXPECT_LT(relativeDifference(psi, psiRef), 1e-12);
            }

        }
    }
}

TYPED_TEST(KrylovTest, PcgMatchesOpenFOAMLoop)
{
    checkAgainstReference<TypeParam>(KrylovMethod::PCG, symmetricCases(),
        {Preconditioner::DIC, Preconditioner::diagonal, Preconditioner::none, Preconditioner::ILU0});
}

TYPED_TEST(KrylovTest, PBiCGMatchesOpenFOAMLoop)
{
    checkAgainstReference<TypeParam>(KrylovMethod::PBiCG, asymmetricCases(),
        {Preconditioner::DILU, Preconditioner::diagonal, Preconditioner::none, Preconditioner::ILU0});
}

TYPED_TEST(KrylovTest, PBiCGStabMatchesOpenFOAMLoop)
{
    checkAgainstReference<TypeParam>(KrylovMethod::PBiCGStab, asymmetricCases(),
        {Preconditioner::DILU, Preconditioner::diagonal, Preconditioner::none, Preconditioner::ILU0});
    checkAgainstReference<TypeParam>(KrylovMethod::PBiCGStab, symmetricCases(),
        {Preconditioner::DIC, Preconditioner::diagonal});
}

TYPED_TEST(KrylovTest, SolutionSolvesTheSystem)
{
    const LduProblem p = poisson3D(16, 16, 16, 31, -1, true);
    const std::vector<double> exact = randomVector(p.nCells, 32);
    const std::vector<double> b = referenceAmul(p, exact);
    std::vector<double> psi(p.nCells, 0.0);
    SolverControls c;
    c.tolerance = 1e-12;
    const SolveResult res = solve<TypeParam>(p, psi, b, c, Preconditioner::DIC);
    EXPECT_TRUE(res.converged);
    EXPECT_GT(res.nIterations, 5);
    EXPECT_LT(relativeDifference(psi, exact), 1e-8);
}

TYPED_TEST(KrylovTest, ConvergedInitialGuessTakesNoIteration)
{
    const LduProblem p = poisson3D(6, 6, 6, 41);
    std::vector<double> psi = randomVector(p.nCells, 42);
    const std::vector<double> b = referenceAmul(p, psi);
    const std::vector<double> before = psi;
    const SolveResult res = solve<TypeParam>(p, psi, b, SolverControls(), Preconditioner::DIC);
    EXPECT_EQ(res.nIterations, 0);
    EXPECT_TRUE(res.converged);
    EXPECT_EQ(psi, before);
}

TYPED_TEST(KrylovTest, NonFiniteSourceIsReported)
{
    const LduProblem p = poisson3D(6, 6, 6, 51);
    std::vector<double> psi(p.nCells, 0.0);
    std::vector<double> b = randomVector(p.nCells, 52);
    b[17] = std::nan("");
    const SolveResult res = solve<TypeParam>(p, psi, b, SolverControls(), Preconditioner::DIC);
    EXPECT_TRUE(res.nonFinite);
    EXPECT_EQ(res.nIterations, 0);
}

TYPED_TEST(KrylovTest, ZeroMatrixIsSingular)
{
    // A zero matrix with a non-zero source: OpenFOAM's loop stops on its singularity test.
    LduProblem p = poisson3D(4, 4, 4, 61);
    std::fill(p.upperCoeffs.begin(), p.upperCoeffs.end(), 0.0);
    std::fill(p.diag.begin(), p.diag.end(), 0.0);
    std::vector<double> psi(p.nCells, 0.0);
    const std::vector<double> b = randomVector(p.nCells, 62);
    const SolveResult res = solve<TypeParam>(p, psi, b, SolverControls(), Preconditioner::none);
    EXPECT_TRUE(res.singular);
    EXPECT_EQ(res.nIterations, 0);
    // stopped before the update, like OpenFOAM's loop (the update kernel checks wApA too)
    EXPECT_EQ(psi, std::vector<double>(p.nCells, 0.0));
}

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
    const SolveResult ref = referenceSolve(KrylovMethod::PCG, p, psiRef, b, c, Preconditioner::DIC);
    const SolveResult res = sys.solve(KrylovMethod::PCG, psi.data(), b.data(), c, Preconditioner::DIC, coupling);
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

    double sum(double local) const override
    {
        ++sums;
        return local;
    }
};

//- PCG, PBiCG and PBiCGStab keep their sums on the device on one rank; through the host (as
//  across ranks) they give the same bits and iterations
TYPED_TEST(KrylovTest, SumsKeptOnTheDeviceEqualSumsThroughTheHost)
{
    const LduProblem symmetric = poisson3D(20, 18, 16, 71, -1, true);
    const LduProblem asymmetric = gpuLdu::test::asymmetric(18, 14, 12, 74, true);
    for (const auto& [p, method, type] : {std::tuple{&symmetric, KrylovMethod::PCG, Preconditioner::DIC},
                                          std::tuple{&asymmetric, KrylovMethod::PBiCG, Preconditioner::DILU},
                                          std::tuple{&asymmetric, KrylovMethod::PBiCGStab, Preconditioner::DILU}})
    {
        SCOPED_TRACE("method " + std::to_string(int(method)));
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

#ifdef __CUDACC__
//- The GPU backend against its portable twin on a problem of many thread blocks.
TEST(GpuTwin, PcgMatchesCpuBackend)
{
    const LduProblem p = poisson3D(40, 40, 40, 71, -1, true);
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 72));
    SolverControls c;
    c.tolerance = 1e-9;
    for (Preconditioner type : {Preconditioner::DIC, Preconditioner::diagonal})
    {
        std::vector<double> psiCpu(p.nCells, 0.0);
        std::vector<double> psiGpu(p.nCells, 0.0);
        const SolveResult cpu = solve<CpuBackend>(p, psiCpu, b, c, type);
        const SolveResult gpu = solve<GpuBackend>(p, psiGpu, b, c, type);
        EXPECT_NEAR(gpu.nIterations, cpu.nIterations, 1);
        EXPECT_NEAR(gpu.initialResidual, cpu.initialResidual, 1e-12*cpu.initialResidual);
        EXPECT_LT(relativeDifference(psiGpu, psiCpu), 1e-7);
    }
}
#endif

} // namespace gpuLdu::test
