// SPDX-License-Identifier: GPL-3.0-or-later
// Whole GAMG solves (multigrid/GamgHierarchyImpl.hpp): every smoother solves to tolerance and
// reports the residual of the psi it returns, with and without coupled interfaces on every
// level; bad values and pivots reported with their level before the V-cycles; interface terms
// held by the hierarchy (DeviceCouplings) the host's couplings bit for bit; V-cycles recorded
// and replayed those launched one by one; levels gathered (GatheredLevels) their own levels;
// ESI's "norm none";
// the pre-sweep residual by rows (ESI v2406+) against b - A x.

#include "gamgTestSupport.hpp"

#include <cfenv>
#include <cmath>
#include <string>

namespace gpuLdu::test
{

TYPED_TEST(GamgTest, SolvesToTolerance)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 12, -1), momentumLike(16, 12, 10, 13)})
    {
        const TestHierarchy h(p, 20);
        const std::vector<GamgLevelView>& views = h.views;
        auto gamg = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), views);
        gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> b = referenceSource(p);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            SolverControls controls;
            controls.tolerance = 1e-9;
            std::vector<double> psi(p.nCells, 0.0);
            const SolveResult r = gamg->solve(psi.data(), b.data(), controls, c, {});
            EXPECT_TRUE(r.converged) << "smoother " << smootherName(s);
            EXPECT_LT(r.finalResidual, 1e-9);
            EXPECT_GT(r.nIterations, 1);
            EXPECT_LT(r.nIterations, 100);
            // the residual it reports is that of the psi it returns (normalised at the start:
            // psi = 0, A psi = 0)
            const std::vector<double> Ax = referenceAmul(p, psi);
            double sum = 0;
            for (int i = 0; i < p.nCells; ++i)
            {
                sum += std::abs(b[i] - Ax[i]);
            }
            const std::vector<double> zero(p.nCells, 0.0);
            EXPECT_NEAR(sum/referenceNormFactor(p, zero, zero, b), r.finalResidual, 1e-12*r.finalResidual);
        }
    }
}

//- Before its V-cycles a GAMG solve reports what it would compute with or divide by (with
//  OpenFOAM's floating-point traps on, on the host): a non-finite value of the fine matrix or
//  source, a zero diagonal of a level the V-cycle divides by (level 0 and a coarse one, its
//  coarse cell), a zero DIC pivot of a smoother; none where the start is converged (OpenFOAM
//  builds its smoothers only when it iterates)
TYPED_TEST(GamgTest, BadValuesAndPivotsAreReportedWithTheirLevel)
{
    const LduProblem good = poisson3D(16, 12, 10, 12, -1);
    const TestHierarchy h(good, 20);
    const std::vector<double> b = referenceSource(good);
    const auto solveError = [&](const LduProblem& p, const GamgControls& c, const std::vector<double>& source)
    {
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), h.views);
        std::vector<double> psi(p.nCells, 0.0);
        SolverControls controls;
        controls.tolerance = 1e-9;
        BadValue none;
        none.index = -1;
        const int before = fegetexcept();
        feenableexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
        try
        {
            gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
            gamg.solve(psi.data(), source.data(), controls, c, {});
        }
        catch (const ValueError& e)
        {
            none = e.bad();
        }
        fedisableexcept(FE_ALL_EXCEPT);
        feenableexcept(before);
        return none;
    };
    GamgControls gaussSeidel;
    GamgControls dic;
    dic.smoother = GamgSmoother::named("DIC");
    dic.scaleCorrection = false;

    EXPECT_EQ(solveError(good, gaussSeidel, b).index, -1);
    EXPECT_EQ(solveError(good, dic, b).index, -1);

    std::vector<double> source = b;
    source[42] = std::nan("");
    BadValue e = solveError(good, gaussSeidel, source);
    EXPECT_EQ(e.kind, ValueKind::source);
    EXPECT_EQ(e.index, 42);
    EXPECT_EQ(e.level, 0);

    // GaussSeidel divides by the fine diagonal
    LduProblem p = good;
    p.diag[77] = 0.0;
    e = solveError(p, gaussSeidel, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "diagonal");
    EXPECT_EQ(e.level, 0);
    EXPECT_EQ(e.row, 77);
    // not where the solve does not iterate
    EXPECT_EQ(solveError(p, gaussSeidel, std::vector<double>(p.nCells, 0.0)).index, -1);

    // DIC's first pivot is the first diagonal (no scaling: nothing else divides by it)
    p = good;
    p.diag[0] = 0.0;
    e = solveError(p, dic, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "DIC");
    EXPECT_EQ(e.level, 0);
    EXPECT_EQ(e.row, 0);

    // a coarse cell of level 1 made of fine cells i and j (face f between them) has the
    // diagonal diag_i + diag_j + 2 upper_f: zero, exactly, with diag_i = diag_j = -upper_f
    const TestLevel& first = h.levels[0];
    int f = 0;
    while (first.restrictAddressing[good.lower[f]] != first.restrictAddressing[good.upper[f]])
    {
        ++f;
    }
    p = good;
    p.diag[good.lower[f]] = p.diag[good.upper[f]] = -good.upperCoeffs[f];
    e = solveError(p, gaussSeidel, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "diagonal");
    EXPECT_EQ(e.level, 1);
    EXPECT_EQ(e.row, first.restrictAddressing[good.lower[f]]);
}

//- Coupled interfaces on every level (cyclic-like couplings between the x = 0 and x = nx - 1
//  planes, carried to the coarse levels): every smoother solves the coupled system, the residual
//  it reports is the coupled one of the psi it returns; without the couplings the same solve
//  leaves the coupled residual far from converged (the test sees the interfaces)
TYPED_TEST(GamgTest, CoupledSolvesToTolerance)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 14, -1, true), momentumLike(16, 12, 10, 15, true)})
    {
        const TestHierarchy h(p, 30);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf;
        for (const LduProblem& level : problems)
        {
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            ASSERT_FALSE(cellsOf.back().empty());
        }
        auto gamg = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), views);
        gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> zero(p.nCells, 0.0);
        const double normFactor = referenceNormFactor(p, zero, zero, b);
        const auto coupledResidual = [&](const std::vector<double>& psi)
        {
            const std::vector<double> Ax = referenceAmul(p, psi);
            double sum = 0;
            for (int i = 0; i < p.nCells; ++i)
            {
                sum += std::abs(b[i] - Ax[i]);
            }
            return sum/normFactor;
        };
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<double> psi(p.nCells, 0.0);
            gamg->setInterfaces(cellsOf);
            const SolveResult r = gamg->solve(psi.data(), b.data(), controls, c, couplingOf);
            EXPECT_TRUE(r.converged) << "smoother " << smootherName(s);
            EXPECT_LT(r.finalResidual, 1e-9);
            EXPECT_NEAR(coupledResidual(psi), r.finalResidual, 1e-9*r.finalResidual) << "smoother " << smootherName(s);

            // the same solve blind to the interfaces
            std::vector<double> blind(p.nCells, 0.0);
            gamg->setInterfaces(std::vector<std::vector<int>>(problems.size()));
            controls.maxIter = 20;
            gamg->solve(blind.data(), b.data(), controls, c, {});
            EXPECT_GT(coupledResidual(blind), 1e-4) << "smoother " << smootherName(s);
        }
    }
}

//- Ranks consolidated into one hierarchy: the interface terms every level applies itself
//  (DeviceCouplings: product, residual, row sums, magnitudes) give the solve the host's
//  couplings give, bit for bit, with every smoother (the coarsest level on the host too, on the
//  GPU); sums taken per part on both
TYPED_TEST(GamgTest, DeviceCouplingsAreTheHostCouplings)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 16, -1, true), momentumLike(16, 12, 10, 17, true)})
    {
        const TestHierarchy h(p, 40);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf, partsOf;
        std::vector<DeviceCouplings> deviceOf;
        std::vector<std::vector<double>> coeffsOf(problems.size());
        for (std::size_t k = 0; k < problems.size(); ++k)
        {
            const LduProblem& level = problems[k];
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            partsOf.push_back({0, level.nCells/3, level.nCells});
            deviceOf.push_back(deviceCouplings(level, coeffsOf[k]));
            ASSERT_GT(deviceOf.back().nTerms(), 0);
        }
        auto host = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), views);
        auto device = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), views);
        for (auto* gamg : {host.get(), device.get()})
        {
            gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
            gamg->setParts(partsOf);
        }
        host->setInterfaces(cellsOf);
        device->setDeviceCouplings(deviceOf);
        device->setDeviceCouplingCoeffs(dataOf(coeffsOf), dataOf(coeffsOf));
        const std::vector<double> b = referenceSource(p);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), GamgSmoother::named("symGaussSeidel"),
                               p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            c.nPreSweeps = 1;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<double> psiHost(p.nCells, 0.0), psiDevice(p.nCells, 0.0);
            const SolveResult h = host->solve(psiHost.data(), b.data(), controls, c, couplingOf);
            const SolveResult d = device->solve(psiDevice.data(), b.data(), controls, c, {});
            EXPECT_TRUE(h.converged) << "smoother " << smootherName(s);
            EXPECT_EQ(h.nIterations, d.nIterations) << "smoother " << smootherName(s);
            EXPECT_EQ(h.initialResidual, d.initialResidual) << "smoother " << smootherName(s);
            EXPECT_EQ(h.finalResidual, d.finalResidual) << "smoother " << smootherName(s);
            EXPECT_EQ(psiHost, psiDevice) << "smoother " << smootherName(s);
        }
    }
}

//- A system's levels gathered (GatheredLevels.hpp, with one system: the gathered levels are its
//  own, renumbered through the pieces every system gives) run the V-cycles the distributed levels
//  run, bit for bit: from the first coarse level and from the second, with device coupling terms
//  and three parts on every level, smoothers that sweep by parts (Gauss-Seidel, DIC) and the
//  Chebyshev smoother, scaled and interpolated corrections; the solve says where it gathered
TYPED_TEST(GamgTest, GatheredLevelsOfOneSystemAreItsOwnLevels)
{
    const LduProblem p = poisson3D(16, 12, 10, 19, -1, true);
    const TestHierarchy h(p, 70);
    std::vector<DeviceCouplings> deviceOf;
    std::vector<std::vector<int>> partsOf;
    std::vector<std::vector<double>> coeffsOf(h.problems.size());
    for (std::size_t k = 0; k < h.problems.size(); ++k)
    {
        deviceOf.push_back(deviceCouplings(h.problems[k], coeffsOf[k]));
        partsOf.push_back({0, h.problems[k].nCells/3, h.problems[k].nCells});
    }
    // no level gathered, from the first coarse level (any size), from the second (the first
    // coarse level has more rows than it)
    const std::vector<int> rowsOf{0, 1000000, h.problems[2].nCells};
    ASSERT_GT(h.problems[1].nCells, h.problems[2].nCells);
    std::vector<std::unique_ptr<GamgHierarchyImpl<TypeParam>>> gamgs;
    for (std::size_t g = 0; g < rowsOf.size(); ++g)
    {
        gamgs.push_back(std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), h.views));
        gamgs.back()->setParts(partsOf);
        gamgs.back()->setDeviceCouplings(deviceOf);
        gamgs.back()->setDeviceCouplingCoeffs(dataOf(coeffsOf), dataOf(coeffsOf));
        gamgs.back()->setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
    }
    const std::vector<double> b = referenceSource(p);
    for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), GamgSmoother::named("DIC"),
                           GamgSmoother::named("Chebyshev")})
    {
        SCOPED_TRACE(smootherName(s));
        GamgControls c;
        c.smoother = s;
        c.interpolateCorrection = true;
        c.nPreSweeps = 1;
        SolverControls controls;
        controls.tolerance = 1e-9;
        controls.maxIter = 200;
        std::vector<std::vector<double>> psi;
        std::vector<SolveResult> r;
        for (std::size_t g = 0; g < rowsOf.size(); ++g)
        {
            c.gatheredLevelRows = rowsOf[g];
            psi.emplace_back(p.nCells, 0.0);
            r.push_back(gamgs[g]->solve(psi.back().data(), b.data(), controls, c, {}));
        }
        EXPECT_TRUE(r[0].converged);
        EXPECT_GT(r[0].nIterations, 2);
        EXPECT_EQ(r[0].times.gatheredFromLevel, -1);
        EXPECT_EQ(r[1].times.gatheredFromLevel, 1);
        EXPECT_EQ(r[1].times.gatheredLevelRows, h.problems[1].nCells);
        EXPECT_EQ(r[2].times.gatheredFromLevel, 2);
        EXPECT_EQ(r[2].times.gatheredLevelRows, h.problems[2].nCells);
        for (std::size_t g = 1; g < rowsOf.size(); ++g)
        {
            SCOPED_TRACE("gathered from level " + std::to_string(r[g].times.gatheredFromLevel));
            EXPECT_EQ(r[g].nIterations, r[0].nIterations);
            EXPECT_EQ(r[g].finalResidual, r[0].finalResidual);
            EXPECT_EQ(psi[g], psi[0]);
        }
    }
}

//- The V-cycle's legs recorded at a solve's first V-cycle and replayed at the others
//  (B::WorkGraph: where the smoother's sweeps are recordable and every level's work stays on the
//  backend, as in a group's hierarchy with its sums on the device) give what the same V-cycles
//  launched kernel by kernel give (a timed solve records nothing), bit for bit: with interface
//  terms on every level, for smoothers that record and one that does not; and again after new
//  matrix values (a new Chebyshev bound: a replay of the first solve's recording would differ)
TYPED_TEST(GamgTest, RecordedVCyclesAreTheVCyclesLaunchedOneByOne)
{
    const LduProblem p = poisson3D(16, 12, 10, 18, -1, true);
    const TestHierarchy h(p, 60);
    std::vector<DeviceCouplings> deviceOf;
    std::vector<std::vector<double>> coeffsOf(h.problems.size());
    for (std::size_t k = 0; k < h.problems.size(); ++k)
    {
        deviceOf.push_back(deviceCouplings(h.problems[k], coeffsOf[k]));
    }
    auto recorded = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), h.views);
    auto oneByOne = std::make_unique<GamgHierarchyImpl<TypeParam>>(p.addressing(), h.views);
    for (auto* gamg : {recorded.get(), oneByOne.get()})
    {
        gamg->setDeviceCouplings(deviceOf);
        gamg->setDeviceCouplingCoeffs(dataOf(coeffsOf), dataOf(coeffsOf));
    }
    oneByOne->setTimed(true);
    const std::vector<double> b = referenceSource(p);
    std::vector<double> firstPsi;
    for (double growth : {0.0, 0.7})
    {
        // every third diagonal larger (still diagonally dominant): another Gershgorin bound
        std::vector<double> diag = p.diag;
        for (std::size_t i = 0; i < diag.size(); i += 3)
        {
            diag[i] *= 1 + growth;
        }
        for (auto* gamg : {recorded.get(), oneByOne.get()})
        {
            gamg->setMatrix(diag.data(), p.upperCoeffs.data(), nullptr);
        }
        for (GamgSmoother s : {GamgSmoother::named("Chebyshev"), GamgSmoother::named("l1Jacobi"),
                               GamgSmoother::named("GaussSeidel")})
        {
            SCOPED_TRACE(smootherName(s) + ", diagonal growth " + std::to_string(growth));
            GamgControls c;
            c.smoother = s;
            c.interpolateCorrection = true;
            c.nPreSweeps = 1;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<double> psiRecorded(p.nCells, 0.0), psiOneByOne(p.nCells, 0.0);
            const SolveResult r = recorded->solve(psiRecorded.data(), b.data(), controls, c, {});
            const SolveResult o = oneByOne->solve(psiOneByOne.data(), b.data(), controls, c, {});
            EXPECT_TRUE(r.converged);
            EXPECT_GT(r.nIterations, 2);
            EXPECT_EQ(r.nIterations, o.nIterations);
            EXPECT_EQ(r.finalResidual, o.finalResidual);
            EXPECT_EQ(psiRecorded, psiOneByOne);
            if (s == GamgSmoother::named("Chebyshev"))
            {
                // the negative control: the new values solve to another psi
                EXPECT_NE(firstPsi, psiRecorded);
                firstPsi = psiRecorded;
            }
        }
    }
}

//- ESI's "norm none" (SolverControls::normalised = false) in GAMG: the initial residual is
//  sum|b - A psi0| itself, the final one sum|b - A psi| of the psi returned, to tolerance. The
//  same solve normalised with the tolerance divided by normFactor (far from 1 here) takes the
//  same V-cycles (the coarsest level solved directly, apart from the tolerance) to the same psi:
//  its residuals are these divided by normFactor (the negative control: a different initial
//  residual), and with the unscaled tolerance it stops earlier.
TYPED_TEST(GamgTest, UnnormalisedResidualsAreSumsOfTheResidual)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 12, -1), momentumLike(16, 12, 10, 13)})
    {
        SCOPED_TRACE(p.symmetric() ? "symmetric" : "asymmetric");
        const TestHierarchy h(p, 20);
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        DenseCoarsest direct(h.problems.back().addressing());
        gamg.setCoarsestSolver(&direct);
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> psi0 = randomVector(p.nCells, 24, -0.1, 0.1);
        const auto residualSum = [&](const std::vector<double>& x)
        {
            return referenceResidualSum(p, b, x);
        };
        const double r0 = residualSum(psi0);
        const double normFactor = referenceNormFactor(p, psi0, referenceAmul(p, psi0), b);
        ASSERT_GT(normFactor, 10.0);

        GamgControls gc;
        gc.scaleCorrection = p.symmetric();
        SolverControls c;
        c.normalised = false;
        c.tolerance = 1e-7;
        std::vector<double> psi = psi0;
        const SolveResult r = gamg.solve(psi.data(), b.data(), c, gc, {});
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.finalResidual, c.tolerance);
        EXPECT_GT(r.nIterations, 3);
        EXPECT_NEAR(r.initialResidual, r0, 1e-12*r0);
        EXPECT_NEAR(r.finalResidual, residualSum(psi), 1e-9*r.finalResidual);

        SolverControls scaled = c;
        scaled.normalised = true;
        scaled.tolerance = c.tolerance/normFactor;
        std::vector<double> psiN = psi0;
        const SolveResult n = gamg.solve(psiN.data(), b.data(), scaled, gc, {});
        EXPECT_NEAR(n.initialResidual, r0/normFactor, 1e-12*r0/normFactor);
        EXPECT_LT(n.initialResidual, 0.1*r.initialResidual);
        EXPECT_EQ(n.nIterations, r.nIterations);
        EXPECT_NEAR(n.finalResidual*normFactor, r.finalResidual, 1e-12*r.finalResidual);
        if (TypeParam::executor == Executor::cpu)
        {
            EXPECT_EQ(r.initialResidual, r0);
            EXPECT_EQ(psiN, psi);
        }
        else
        {
            EXPECT_LT(relativeDifference(psiN, psi), 1e-12);
        }

        SolverControls unscaled = scaled;
        unscaled.tolerance = c.tolerance;
        std::vector<double> psiU = psi0;
        EXPECT_LT(gamg.solve(psiU.data(), b.data(), unscaled, gc, {}).nIterations, r.nIterations);
    }
}

//- GamgControls::preSweepResidualByRows (ESI v2406+: the source after pre-smoothing as
//  lduMatrix::residual forms it, row by row, interfaces last) against b - A x (v1912, the
//  Foundation), with pre-sweeps on every coarse level, coupled interfaces on every level: both
//  converge to tolerance and report the residual of the psi they return; V-cycle by V-cycle
//  their residuals agree to rounding (the same sums in another order), and on the host they
//  differ in some cycle (the setting is taken). No sequential GAMG reference exists to hold
//  the row-wise one to.
TYPED_TEST(GamgTest, PreSweepResidualByRowsIsBMinusAxToRounding)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 14, -1, true), momentumLike(16, 12, 10, 15, true)})
    {
        const TestHierarchy h(p, 30);
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf;
        for (const LduProblem& level : h.problems)
        {
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            ASSERT_FALSE(cellsOf.back().empty());
        }
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        gamg.setInterfaces(cellsOf);
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> zero(p.nCells, 0.0);
        const double normFactor = referenceNormFactor(p, zero, zero, b);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi")})
        {
            SCOPED_TRACE(std::string(p.symmetric() ? "symmetric" : "asymmetric") + ", smoother "
                         + smootherName(s));
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            c.nPreSweeps = 2;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<int> nIterations;
            for (bool byRows : {false, true})
            {
                c.preSweepResidualByRows = byRows;
                std::vector<double> psi(p.nCells, 0.0);
                const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, couplingOf);
                EXPECT_TRUE(r.converged) << "by rows " << byRows;
                EXPECT_LT(r.finalResidual, controls.tolerance);
                const std::vector<double> Ax = referenceAmul(p, psi);
                double sum = 0;
                for (int i = 0; i < p.nCells; ++i)
                {
                    sum += std::abs(b[i] - Ax[i]);
                }
                EXPECT_NEAR(sum/normFactor, r.finalResidual, 1e-9*r.finalResidual) << "by rows " << byRows;
                nIterations.push_back(r.nIterations);
            }
            EXPECT_GT(nIterations[0], 2);
            EXPECT_NEAR(nIterations[0], nIterations[1], 1);

            // the residual after each V-cycle: maxIter cycles, converged at the last one at most
            // (the tolerance kept: the coarsest solve takes it)
            bool differ = false;
            for (int k = 1; k <= std::min(nIterations[0], nIterations[1]); ++k)
            {
                SolverControls cycles = controls;
                cycles.maxIter = k;
                double residual[2], initial = 0;
                for (bool byRows : {false, true})
                {
                    c.preSweepResidualByRows = byRows;
                    std::vector<double> psi(p.nCells, 0.0);
                    const SolveResult r = gamg.solve(psi.data(), b.data(), cycles, c, couplingOf);
                    EXPECT_EQ(r.nIterations, k);
                    residual[byRows] = r.finalResidual;
                    initial = r.initialResidual;
                }
                // to 1e-12 of the scale of the terms summed in another order (the initial
                // residual's, psi = 0: measured up to 1e-16 of it)
                EXPECT_NEAR(residual[1], residual[0], 1e-12*initial) << "V-cycle " << k;
                differ = differ || residual[1] != residual[0];
            }
            // the setting is taken: on the host another order of the same sums rounds otherwise
            // in some cycle
            if (TypeParam::executor == Executor::cpu)
            {
                EXPECT_TRUE(differ);
            }
        }
    }
}

} // namespace gpuLdu::test
