// SPDX-License-Identifier: GPL-3.0-or-later
// PCG, PBiCG and PBiCGStab against OpenFOAM's loops (reference): iterations, residuals,
// solution; the solution actually solves the system; the exits (converged at the start,
// singular, non-finite).

#include "referenceKrylov.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>
#include <type_traits>

namespace gpuLdu::test
{

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
                  const SolverControls& c, Preconditioner type, KrylovMethod method = KrylovMethod::named("PCG"))
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
            SCOPED_TRACE(c.name + ", method " + methodName(method) + ", preconditioner "
                         + preconditionerName(type));

            EXPECT_NEAR(res.initialResidual, ref.initialResidual, 1e-12*ref.initialResidual);
            EXPECT_GT(ref.nIterations, 0);
            EXPECT_EQ(res.singular, ref.singular);
            EXPECT_FALSE(res.nonFinite);
            // Rounding may move a count by one (PBiCGStab, whose residual does not fall
            // steadily, by two: 1138_bus with DIC 99 against 101 on the GPU); in long, badly
            // conditioned solves (sherman1 with PCG and no preconditioner: 536 iterations) the
            // loss of orthogonality makes a different summation order worth a few more: 0.5% of
            // the count. The BiCG-type loops with a weak preconditioner (none, diagonal)
            // converge irregularly, and there the GPU's summation order moves counts by up to
            // 15% (measured: sherman1 PBiCGStab diagonal 215 vs 316 before the GPU stopped
            // fusing multiply-adds; sherman5 PBiCGStab none 563 against 493 with the sums in
            // chunks a rank, 2026-11-29); held to 15%.
            const bool irregular = method != KrylovMethod::named("PCG")
                && (type == Preconditioner::none || type == Preconditioner::named("diagonal"));
            const int least = method == KrylovMethod::named("PBiCGStab") ? 2 : 1;
            const int allowed = irregular ? std::max(2, ref.nIterations*15/100) : std::max(least, ref.nIterations/200);
            EXPECT_NEAR(res.nIterations, ref.nIterations, allowed);
            // (within that band a solve that ends at maxIter may or may not have converged)
            if (ref.nIterations + allowed < c.controls.maxIter)
            {
                EXPECT_EQ(res.converged, ref.converged);
            }
            if (std::is_same<B, CpuBackend>::value && type != Preconditioner::named("ILU0"))
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
    checkAgainstReference<TypeParam>(KrylovMethod::named("PCG"), symmetricCases(),
        {Preconditioner::named("DIC"), Preconditioner::named("diagonal"), Preconditioner::none, Preconditioner::named("ILU0")});
}

TYPED_TEST(KrylovTest, PBiCGMatchesOpenFOAMLoop)
{
    checkAgainstReference<TypeParam>(KrylovMethod::named("PBiCG"), asymmetricCases(),
        {Preconditioner::named("DILU"), Preconditioner::named("diagonal"), Preconditioner::none, Preconditioner::named("ILU0")});
}

TYPED_TEST(KrylovTest, PBiCGStabMatchesOpenFOAMLoop)
{
    checkAgainstReference<TypeParam>(KrylovMethod::named("PBiCGStab"), asymmetricCases(),
        {Preconditioner::named("DILU"), Preconditioner::named("diagonal"), Preconditioner::none, Preconditioner::named("ILU0")});
    checkAgainstReference<TypeParam>(KrylovMethod::named("PBiCGStab"), symmetricCases(),
        {Preconditioner::named("DIC"), Preconditioner::named("diagonal")});
}

//- ESI's "norm none" (SolverControls::normalised = false): every method against its loop with
//  normFactor 1, on problems whose normFactor is far from 1
TYPED_TEST(KrylovTest, UnnormalisedMatchesOpenFOAMLoop)
{
    SolverControls none;
    none.normalised = false;
    none.tolerance = 1e-7;
    SolverControls noneRel = none;
    noneRel.tolerance = 1e-12;
    noneRel.relTol = 1e-4;
    const std::vector<Case> symmetric{
        {"norm none poisson 12x10x8 periodic", poisson3D(12, 10, 8, 13, -1, true), none},
        {"norm none nos4", readMatrixMarket(dataFile("nos4.mtx.gz")), noneRel},
    };
    const std::vector<Case> asymmetric{
        {"norm none convection-diffusion 12x10x8 periodic", gpuLdu::test::asymmetric(12, 10, 8, 16, true), none},
        {"norm none sherman5", readMatrixMarket(dataFile("sherman5.mtx.gz")), noneRel},
    };
    checkAgainstReference<TypeParam>(KrylovMethod::named("PCG"), symmetric, {Preconditioner::named("DIC"), Preconditioner::named("diagonal")});
    checkAgainstReference<TypeParam>(KrylovMethod::named("PBiCG"), asymmetric, {Preconditioner::named("DILU")});
    checkAgainstReference<TypeParam>(KrylovMethod::named("PBiCGStab"), asymmetric, {Preconditioner::named("DILU")});
}

//- normalised = false: PCG's initial residual is sum|b - A psi0| itself, its final one the
//  reference loop's sum|rA| (normFactor 1), close to sum|b - A psi| of the psi it returns, and
//  its iterations the reference's. The negative control: normalised (the default) on the same
//  problem, whose normFactor is far from 1, divides the initial residual by it, and with the same
//  tolerance stops earlier.
TYPED_TEST(KrylovTest, UnnormalisedPcgResidualsAreSumsOfTheResidual)
{
    const LduProblem p = poisson3D(16, 14, 12, 17, -1, true);
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 18));
    const std::vector<double> psi0 = randomVector(p.nCells, 19, -0.1, 0.1);
    const auto residualSum = [&](const std::vector<double>& x)
    {
        return referenceResidualSum(p, b, x);
    };
    const double r0 = residualSum(psi0);
    const double normFactor = referenceNormFactor(p, psi0, referenceAmul(p, psi0), b);
    ASSERT_GT(normFactor, 10.0);

    SolverControls c;
    c.normalised = false;
    c.tolerance = 1e-6;
    std::vector<double> psi = psi0, psiRef = psi0;
    const SolveResult ref = referenceSolve(KrylovMethod::named("PCG"), p, psiRef, b, c, Preconditioner::named("DIC"));
    const SolveResult res = solve<TypeParam>(p, psi, b, c, Preconditioner::named("DIC"));
    EXPECT_EQ(ref.initialResidual, r0);
    EXPECT_NEAR(res.initialResidual, r0, 1e-12*r0);
    EXPECT_TRUE(res.converged);
    EXPECT_LT(res.finalResidual, c.tolerance);
    EXPECT_GT(ref.nIterations, 5);
    EXPECT_NEAR(res.finalResidual, ref.finalResidual, 1e-6*ref.finalResidual);
    // the recurrence's residual against the returned psi's: rounding of the updates only
    EXPECT_NEAR(residualSum(psi), res.finalResidual, 1e-5*res.finalResidual);
    if (TypeParam::executor == Executor::cpu)
    {
        EXPECT_EQ(res.initialResidual, r0);
        EXPECT_EQ(res.nIterations, ref.nIterations);
        EXPECT_NEAR(res.finalResidual, ref.finalResidual, 1e-12*ref.finalResidual);
        EXPECT_LT(relativeDifference(psi, psiRef), 1e-12);
    }
    else
    {
        EXPECT_NEAR(res.nIterations, ref.nIterations, 1);
        EXPECT_LT(relativeDifference(psi, psiRef), 1e-7);
    }

    // normalised: the initial residual divided by normFactor, fewer iterations to 1e-6
    SolverControls normalised = c;
    normalised.normalised = true;
    std::vector<double> psiN = psi0, psiNRef = psi0;
    const SolveResult refN = referenceSolve(KrylovMethod::named("PCG"), p, psiNRef, b, normalised, Preconditioner::named("DIC"));
    const SolveResult resN = solve<TypeParam>(p, psiN, b, normalised, Preconditioner::named("DIC"));
    EXPECT_NEAR(resN.initialResidual, r0/normFactor, 1e-12*r0/normFactor);
    EXPECT_LT(resN.initialResidual, 0.1*res.initialResidual);
    EXPECT_NEAR(resN.nIterations, refN.nIterations, TypeParam::executor == Executor::cpu ? 0 : 1);
    EXPECT_LT(resN.nIterations + 2, res.nIterations);
}

//- PBiCGStab's half-step test against minIter, as each release counts it: on sherman5 without
//  preconditioner the L1 residual grows over the second half of iteration k (found from the
//  reference's residuals); with minIter = k + 1 and the tolerance between the two, the
//  Foundation's loop (halfStepCountsItself) stops at iteration k's half step (k + 1 iterations),
//  v1912/ESI's may not test there, miss the tolerance at the full step and go on. Each setting
//  gives its release's reference loop; the two differ in iterations and solution. With minIter 1
//  and a tolerance met from the start, both take one iteration: the Foundation's ends at the
//  half step, ESI's after the full one.
TYPED_TEST(KrylovTest, PBiCGStabHalfStepCountsAsEachRelease)
{
    const LduProblem p = readMatrixMarket(dataFile("sherman5.mtx.gz"));
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 21));
    const std::vector<double> psi0 = randomVector(p.nCells, 22, -0.1, 0.1);
    const Preconditioner type = Preconditioner::none;

    std::vector<double> residuals;
    {
        SolverControls trace;
        trace.tolerance = 0;
        trace.maxIter = 20;
        std::vector<double> psi = psi0;
        referenceSolve(KrylovMethod::named("PBiCGStab"), p, psi, b, trace, type, &residuals);
    }
    int k = 0;
    while (2*k + 1 < int(residuals.size()) && !(residuals[2*k + 1] > 1.05*residuals[2*k]))
    {
        ++k;
    }
    ASSERT_LT(2*k + 1, int(residuals.size())) << "no full step that raises the residual";

    SolverControls base;
    base.maxIter = 1000;
    base.minIter = k + 1;
    base.tolerance = std::sqrt(residuals[2*k]*residuals[2*k + 1]);
    SolverControls loose;
    loose.minIter = 1;
    loose.tolerance = 1e10;
    for (const SolverControls& controls : {base, loose})
    {
        SCOPED_TRACE("minIter " + std::to_string(controls.minIter) + ", tolerance "
                     + std::to_string(controls.tolerance));
        std::vector<std::vector<double>> psiOf;
        std::vector<SolveResult> resOf, refOf;
        for (bool countsItself : {false, true})
        {
            SCOPED_TRACE(countsItself ? "Foundation" : "v1912/ESI");
            SolverControls c = controls;
            c.halfStepCountsItself = countsItself;
            std::vector<double> psi = psi0, psiRef = psi0;
            const SolveResult ref = referenceSolve(KrylovMethod::named("PBiCGStab"), p, psiRef, b, c, type);
            const SolveResult res = solve<TypeParam>(p, psi, b, c, type, KrylovMethod::named("PBiCGStab"));
            EXPECT_TRUE(ref.converged);
            EXPECT_TRUE(res.converged);
            EXPECT_FALSE(res.singular);
            EXPECT_NEAR(res.initialResidual, ref.initialResidual, 1e-12*ref.initialResidual);
            EXPECT_EQ(res.nIterations, ref.nIterations);
            EXPECT_NEAR(res.finalResidual, ref.finalResidual, 1e-9*ref.finalResidual);
            EXPECT_LT(relativeDifference(psi, psiRef), TypeParam::executor == Executor::cpu ? 1e-12 : 1e-9);
            psiOf.push_back(psi);
            resOf.push_back(res);
            refOf.push_back(ref);
        }
        if (controls.tolerance < 1)
        {
            // the Foundation's stops at iteration k's half step; ESI's goes on past it
            EXPECT_EQ(refOf[1].nIterations, k + 1);
            EXPECT_GT(refOf[0].nIterations, k + 1);
            EXPECT_GT(resOf[0].nIterations, resOf[1].nIterations);
        }
        else
        {
            EXPECT_EQ(refOf[0].nIterations, 1);
            EXPECT_EQ(refOf[1].nIterations, 1);
        }
        EXPECT_NE(resOf[0].finalResidual, resOf[1].finalResidual);
        EXPECT_GT(relativeDifference(psiOf[0], psiOf[1]), 1e-6);
    }
}

TYPED_TEST(KrylovTest, SolutionSolvesTheSystem)
{
    const LduProblem p = poisson3D(16, 16, 16, 31, -1, true);
    const std::vector<double> exact = randomVector(p.nCells, 32);
    const std::vector<double> b = referenceAmul(p, exact);
    std::vector<double> psi(p.nCells, 0.0);
    SolverControls c;
    c.tolerance = 1e-12;
    const SolveResult res = solve<TypeParam>(p, psi, b, c, Preconditioner::named("DIC"));
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
    const SolveResult res = solve<TypeParam>(p, psi, b, SolverControls(), Preconditioner::named("DIC"));
    EXPECT_EQ(res.nIterations, 0);
    EXPECT_TRUE(res.converged);
    EXPECT_EQ(psi, before);
}

//- A NaN source is refused before the loop (valueCheckTest.cpp: every kind of value), psi
//  untouched
TYPED_TEST(KrylovTest, NonFiniteSourceIsRefusedBeforeIterating)
{
    const LduProblem p = poisson3D(6, 6, 6, 51);
    std::vector<double> psi(p.nCells, 0.0);
    std::vector<double> b = randomVector(p.nCells, 52);
    b[17] = std::nan("");
    try
    {
        solve<TypeParam>(p, psi, b, SolverControls(), Preconditioner::named("DIC"));
        ADD_FAILURE() << "no ValueError";
    }
    catch (const ValueError& e)
    {
        EXPECT_EQ(e.bad().kind, ValueKind::source);
        EXPECT_EQ(e.bad().index, 17);
        EXPECT_NE(std::string(e.what()).find("source is nan at row 17"), std::string::npos) << e.what();
    }
    EXPECT_EQ(psi, std::vector<double>(p.nCells, 0.0));
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

//- Values given ahead of a solve (uploadAhead, a group's owner: rank by rank as they come): where
//  every row and face came, setMatrix and solve take what came, not their own arrays (changed
//  here after giving them, to tell which were taken); where a part is missing, their own;
//  a part held (matrix held) counts as the device's from the last setMatrix
TYPED_TEST(KrylovTest, ValuesAheadAreTakenOnlyWhereEveryPartCame)
{
    const LduProblem p = asymmetric(10, 9, 8, 71);
    const std::vector<double> b = randomVector(p.nCells, 72);
    const std::vector<double> guess = randomVector(p.nCells, 73);
    SolverControls c;
    c.tolerance = 1e-10;
    const KrylovMethod method = KrylovMethod::named("PBiCGStab");
    const Preconditioner dilu = Preconditioner::named("DILU");
    std::vector<double> psiRef = guess;
    const SolveResult ref = solve<TypeParam>(p, psiRef, b, c, dilu, method);

    // two parts: rows [0, half), faces [0, faceHalf), then the rest
    const int half = p.nCells/2, faceHalf = p.nFaces()/2;
    const auto give = [&](LduSystem& sys, const std::vector<double>& psi,
                          const std::vector<double>& src, ValuesAhead::Matrix matrix, bool both)
    {
        ValuesAhead part;
        part.psi = psi.data();
        part.source = src.data();
        part.diag = p.diag.data();
        part.upper = p.upperCoeffs.data();
        part.lower = p.lowerOrNull();
        part.nCells = half;
        part.nFaces = faceHalf;
        part.matrix = matrix;
        sys.uploadAhead(part);
        if (both)
        {
            part.cell = half;
            part.nCells = p.nCells - half;
            part.face = faceHalf;
            part.nFaces = p.nFaces() - faceHalf;
            sys.uploadAhead(part);
        }
    };
    // what setMatrix and solve are given after the parts came: other values
    std::vector<double> otherDiag = p.diag, otherSource = b, zero(p.nCells, 0.0);
    for (double& d : otherDiag)
    {
        d *= 2;
    }
    for (double& v : otherSource)
    {
        v = -v;
    }
    const auto run = [&](LduSystem& sys, std::vector<double>& psi)
    {
        sys.setMatrix(otherDiag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        return sys.solve(method, psi.data(), otherSource.data(), c, dilu, Coupling());
    };

    // every part came: the solve is the reference's, bit for bit on the host
    LduSystemImpl<TypeParam> sys(p.addressing());
    give(sys, guess, b, ValuesAhead::Matrix::upload, true);
    std::vector<double> psi = zero;
    SolveResult res = run(sys, psi);
    EXPECT_EQ(res.nIterations, ref.nIterations);
    EXPECT_LT(relativeDifference(psi, psiRef), 1e-9);

    // the matrix held from that setMatrix (no upload), psi and source given again
    give(sys, guess, b, ValuesAhead::Matrix::held, true);
    psi = zero;
    res = run(sys, psi);
    EXPECT_EQ(res.nIterations, ref.nIterations);
    EXPECT_LT(relativeDifference(psi, psiRef), 1e-9);

    // one part missing: setMatrix and solve take their own values (another system)
    std::vector<double> psiOther = zero;
    const LduProblem other = [&] { LduProblem q = p; q.diag = otherDiag; return q; }();
    const SolveResult refOther = solve<TypeParam>(other, psiOther, otherSource, c, dilu, method);
    give(sys, guess, b, ValuesAhead::Matrix::upload, false);
    psi = zero;
    res = run(sys, psi);
    EXPECT_EQ(res.nIterations, refOther.nIterations);
    EXPECT_LT(relativeDifference(psi, psiOther), 1e-9);
    EXPECT_GT(relativeDifference(psiOther, psiRef), 1e-3);
}

#ifdef __CUDACC__
//- The GPU backend against its portable twin on a problem of many thread blocks.
TEST(GpuTwin, PcgMatchesCpuBackend)
{
    const LduProblem p = poisson3D(40, 40, 40, 71, -1, true);
    const std::vector<double> b = referenceAmul(p, randomVector(p.nCells, 72));
    SolverControls c;
    c.tolerance = 1e-9;
    for (Preconditioner type : {Preconditioner::named("DIC"), Preconditioner::named("diagonal")})
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
