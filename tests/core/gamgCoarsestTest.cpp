// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest level (multigrid/GamgCoarsest.hpp): a CoarsestSolver on the host takes it with
// OpenFOAM's coarsest matrix; coarsestByDiagonal is source/diag; directCoarsest (the sparse
// LDL^T on the backend) is an exact coarsest solve and refuses an asymmetric matrix; the team's
// PCG (CoarsestPcg.hpp, one block on the GPU) is the host LduSystem's PCG with DIC to rounding,
// its iterations the same, and its portable twin's bit for bit.

#include "gamgTestSupport.hpp"
#include "multigrid/CoarsestPcg.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <utility>

namespace gpuLdu::test
{

//- directSolveCoarsest: the coarsest level goes to the host's solver, with the coarsest matrix
//  OpenFOAM's sums make (bit for bit), once per V-cycle; the solve converges with it; unset, the
//  default coarsest solve is back
TYPED_TEST(GamgTest, CoarsestSolverTakesTheCoarsestLevel)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 16, -1), momentumLike(16, 12, 10, 17)})
    {
        const TestHierarchy h(p, 40);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const LduProblem& coarsest = problems.back();
        DenseCoarsest direct(coarsest.addressing());
        gamg.setCoarsestSolver(&direct);
        const std::vector<double> b = referenceSource(p);
        GamgControls c;
        c.scaleCorrection = p.symmetric();
        SolverControls controls;
        controls.tolerance = 1e-9;
        std::vector<double> psi(p.nCells, 0.0);
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, {});
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.finalResidual, 1e-9);
        EXPECT_EQ(direct.solves, r.nIterations);
        EXPECT_EQ(r.times.coarsestIterations, 0);
        EXPECT_EQ(direct.diag, coarsest.diag);
        EXPECT_EQ(direct.upper, coarsest.upperCoeffs);
        EXPECT_EQ(direct.lower, coarsest.lowerOrUpper());

        // the default coarsest solve, OpenFOAM's Krylov loop to the GAMG's tolerance (relTol 0):
        // one a V-cycle, each of at least one iteration
        gamg.setCoarsestSolver(nullptr);
        std::vector<double> psi2(p.nCells, 0.0);
        const int solvesBefore = direct.solves;
        const SolveResult r2 = gamg.solve(psi2.data(), b.data(), controls, c, {});
        EXPECT_TRUE(r2.converged);
        EXPECT_EQ(direct.solves, solvesBefore);
        EXPECT_GE(r2.times.coarsestIterations, r2.nIterations);
    }
}

//- diagonalSolver as a CoarsestSolver on the host: psi = source/diag (the reference of
//  GamgControls::coarsestByDiagonal)
class DiagonalCoarsest : public CoarsestSolver
{
    int n_;
    std::vector<double> diag_;

public:
    int solves = 0;

    explicit DiagonalCoarsest(int n) : n_(n) {}

    void setMatrix(const double* d, const double*, const double*) override
    {
        diag_.assign(d, d + n_);
    }

    void solve(const double* source, double* psi) override
    {
        ++solves;
        for (std::size_t i = 0; i < diag_.size(); ++i)
        {
            psi[i] = source[i]/diag_[i];
        }
    }
};

//- GamgControls::coarsestByDiagonal (the Foundation's 14 on a coarsest level without faces):
//  the coarsest correction is source/diag on the backend, V-cycle for V-cycle the same numbers
//  as that solve on the host (to the bit: one division each), symmetric and asymmetric; without
//  the control the coarsest level's faces count (PCG/PBiCGStab), and psi differs
TYPED_TEST(GamgTest, CoarsestByDiagonalIsSourceOverDiag)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 18, -1), momentumLike(16, 12, 10, 19)})
    {
        SCOPED_TRACE(p.symmetric() ? "symmetric" : "asymmetric");
        const TestHierarchy h(p, 50);
        const std::vector<double> b = referenceSource(p);
        SolverControls controls;
        controls.tolerance = 1e-8;
        controls.maxIter = 200;
        GamgControls c;
        c.scaleCorrection = p.symmetric();

        GamgHierarchyImpl<TypeParam> reference(p.addressing(), h.views);
        reference.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        DiagonalCoarsest host(h.problems.back().nCells);
        reference.setCoarsestSolver(&host);
        std::vector<double> psiHost(p.nCells, 0.0);
        const SolveResult rHost = reference.solve(psiHost.data(), b.data(), controls, c, {});

        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        GamgControls diagonal = c;
        diagonal.coarsestByDiagonal = true;
        std::vector<double> psi(p.nCells, 0.0);
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, diagonal, {});

        EXPECT_GT(host.solves, 0);
        EXPECT_EQ(r.nIterations, rHost.nIterations);
        EXPECT_EQ(r.finalResidual, rHost.finalResidual);
        EXPECT_EQ(psi, psiHost);

        std::vector<double> psiKrylov(p.nCells, 0.0);
        gamg.solve(psiKrylov.data(), b.data(), controls, c, {});
        EXPECT_NE(psiKrylov, psiHost);
    }
}

//- GamgControls::directCoarsest: the coarsest level by the sparse LDL^T on the backend takes the
//  V-cycles of an exact dense solve there (DenseCoarsest), to rounding; new values are factored
//  anew (2 A against the dense solve of 2 A); an asymmetric matrix is refused
TYPED_TEST(GamgTest, DirectCoarsestIsAnExactCoarsestSolve)
{
    const LduProblem p = poisson3D(16, 12, 10, 16, -1);
    const TestHierarchy h(p, 40);
    GamgHierarchyImpl<TypeParam> gamg(p.addressing(), h.views);
    DenseCoarsest dense(h.problems.back().addressing());
    const std::vector<double> b = referenceSource(p);
    SolverControls controls;
    controls.tolerance = 1e-10;
    for (const double factor : {1.0, 2.0})
    {
        SCOPED_TRACE(factor);
        std::vector<double> diag = p.diag, upper = p.upperCoeffs;
        for (double& v : diag) v *= factor;
        for (double& v : upper) v *= factor;
        gamg.setMatrix(diag.data(), upper.data(), nullptr);
        GamgControls c;
        gamg.setCoarsestSolver(&dense);
        std::vector<double> reference(p.nCells, 0.0), psi(p.nCells, 0.0);
        const SolveResult expected = gamg.solve(reference.data(), b.data(), controls, c, {});
        gamg.setCoarsestSolver(nullptr);
        c.directCoarsest = true;
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, {});
        EXPECT_TRUE(r.converged);
        EXPECT_EQ(r.nIterations, expected.nIterations);
        EXPECT_NEAR(r.finalResidual, expected.finalResidual, 1e-3*expected.finalResidual);
        double scale = 0, difference = 0;
        for (int i = 0; i < p.nCells; ++i)
        {
            scale = std::max(scale, std::abs(reference[i]));
            difference = std::max(difference, std::abs(psi[i] - reference[i]));
        }
        EXPECT_LE(difference, 1e-9*scale);
    }

    const LduProblem a = momentumLike(16, 12, 10, 17);
    const TestHierarchy ha(a, 40);
    GamgHierarchyImpl<TypeParam> asymmetric(a.addressing(), ha.views);
    asymmetric.setMatrix(a.diag.data(), a.upperCoeffs.data(), a.lowerOrNull());
    GamgControls c;
    c.directCoarsest = true;
    std::vector<double> psi(a.nCells, 0.0);
    const std::vector<double> ba = referenceSource(a);
    EXPECT_THROW(asymmetric.solve(psi.data(), ba.data(), controls, c, {}), Error);
}

//- poisson3D on nx*ny*nz cells as nSlabs ranks' blocks (z slabs, nz a multiple of nSlabs): the
//  faces between slabs become interface terms (as a group's processor faces between its ranks);
//  the slabs' row starts in parts
inline LduProblem slabs(int nx, int ny, int nz, int nSlabs, unsigned seed, std::vector<int>& parts)
{
    const LduProblem whole = poisson3D(nx, ny, nz, seed, -1);
    const int perSlab = nx*ny*(nz/nSlabs);
    parts.clear();
    for (int q = 0; q <= nSlabs; ++q)
    {
        parts.push_back(q*perSlab);
    }
    LduProblem p = whole;
    p.lower.clear();
    p.upper.clear();
    p.upperCoeffs.clear();
    for (int f = 0; f < whole.nFaces(); ++f)
    {
        const int l = whole.lower[f];
        const int u = whole.upper[f];
        if (l/perSlab == u/perSlab)
        {
            p.lower.push_back(l);
            p.upper.push_back(u);
            p.upperCoeffs.push_back(whole.upperCoeffs[f]);
        }
        else
        {
            // A[l][u] = A[u][l] = upper: OpenFOAM's interface coefficient is its negative
            p.ifCell.insert(p.ifCell.end(), {l, u});
            p.ifNbr.insert(p.ifNbr.end(), {u, l});
            p.ifCoeff.insert(p.ifCoeff.end(), {-whole.upperCoeffs[f], -whole.upperCoeffs[f]});
        }
    }
    return p;
}

//- The faces of each owner in reverse order (still sorted by owner, as lduAddressing asks, but
//  each row's columns descending)
inline void reverseFacesOfEachOwner(LduProblem& p)
{
    for (int start = 0; start < p.nFaces();)
    {
        int end = start;
        while (end < p.nFaces() && p.lower[end] == p.lower[start])
        {
            ++end;
        }
        std::reverse(p.upper.begin() + start, p.upper.begin() + end);
        std::reverse(p.upperCoeffs.begin() + start, p.upperCoeffs.begin() + end);
        if (!p.symmetric())
        {
            std::reverse(p.lowerCoeffs.begin() + start, p.lowerCoeffs.begin() + end);
        }
        start = end;
    }
}

//- The team's parts (CoarsestPcg::teamParts): consecutive rows that no face joins, pieces merged
//  up to 8 rows: the 12 slabs of 7 x 6 cells one part each, 12 slabs of 2 x 2 cells two to a
//  part; a level whose faces join everything one part
TYPED_TEST(GamgTest, TeamPartsAreBlocksNoFaceJoins)
{
    std::vector<int> slabStarts;
    const LduProblem wide = slabs(7, 6, 12, 12, 31, slabStarts);
    EXPECT_EQ(CoarsestPcg<TypeParam>::teamParts(wide.nCells, wide.lower, wide.upper), slabStarts);
    const LduProblem narrow = slabs(2, 2, 12, 12, 31, slabStarts);
    EXPECT_EQ(CoarsestPcg<TypeParam>::teamParts(narrow.nCells, narrow.lower, narrow.upper),
              (std::vector<int>{0, 8, 16, 24, 32, 40, 48}));
    const LduProblem whole = poisson3D(7, 6, 12, 31, -1);
    EXPECT_EQ(CoarsestPcg<TypeParam>::teamParts(whole.nCells, whole.lower, whole.upper),
              (std::vector<int>{0, whole.nCells}));
}

//- The coarsest solve by one team (CoarsestPcg: one block on the GPU, one thread on the host) is
//  the host's LduSystem PCG with DIC on the same level with the team's parts (their DIC blocks
//  and partial sums), its device couplings, but for the rounding of the DIC applied as each
//  part's inverse: the same iterations and the correction to rounding (1e-12 of its largest
//  value; a wrong inverse is off by far more), to tolerance, to relTol, stopped
//  by maxIter and held by minIter; one part without couplings too; on every backend the CPU
//  backend's team (the portable twin), bit for bit; a level whose parts are too large, or an
//  asymmetric one, is not its to solve
TYPED_TEST(GamgTest, TeamPcgIsTheHostPcg)
{
    // the faces of each lower cell also reversed: OpenFOAM's agglomerated levels sort faces by
    // owner only, so a row's columns need not ascend; the team reads them in the host's order
    for (const auto& [nz, nSlabs, reversed] : {std::tuple{12, 12, false}, {1, 1, false}, {12, 12, true}})
    {
        SCOPED_TRACE(testing::Message() << nSlabs << " slabs, reversed " << reversed);
        std::vector<int> slabStarts;
        LduProblem p = slabs(7, 6, nz, nSlabs, 31, slabStarts);
        if (reversed)
        {
            reverseFacesOfEachOwner(p);
        }
        const std::vector<int> parts = CoarsestPcg<TypeParam>::teamParts(p.nCells, p.lower, p.upper);
        LduSystemImpl<TypeParam> level(p.addressing());
        LduSystemImpl<CpuBackend> twinLevel(p.addressing());
        auto host = makeLduSystem(Executor::cpu, p.addressing());
        host->setParts(parts);
        setCoupledProblem(level, p);
        setCoupledProblem(twinLevel, p);
        setCoupledProblem(*host, p);
        const Coupling none;
        ASSERT_TRUE(CoarsestPcg<TypeParam>::usable(level, none, true, parts));
        ASSERT_EQ(!reversed, level.matrix().columnsAscending);
        ASSERT_EQ(nSlabs > 1, level.nDeviceCouplingTerms() > 0);
        CoarsestPcg<TypeParam> team;
        CoarsestPcg<CpuBackend> twin;
        team.setMatrix(level, parts);
        twin.setMatrix(twinLevel, parts);
        const std::vector<double> b = referenceSource(p);
        typename TypeParam::template Vector<double> src(p.nCells), corr(p.nCells);
        TypeParam::upload(ptr(src), b.data(), b.size());
        std::vector<double> twinCorr(p.nCells);
        long expectedIterations = 0;
        for (const auto& [tolerance, relTol, maxIter, minIter] :
             {std::tuple{1e-9, 0.0, 1000, 0}, {1e-9, 0.05, 1000, 0}, {1e-12, 0.0, 4, 0}, {1e3, 0.0, 1000, 3}})
        {
            SCOPED_TRACE(testing::Message() << "tolerance " << tolerance << " relTol " << relTol);
            SolverControls controls;
            controls.tolerance = tolerance;
            controls.relTol = relTol;
            controls.maxIter = maxIter;
            controls.minIter = minIter;
            std::vector<double> expected(p.nCells, 0.0);
            const SolveResult r = host->solve(KrylovMethod::named("PCG"), expected.data(), b.data(), controls,
                                              Preconditioner::named("DIC"), none);
            team.solve(level, ptr(src), ptr(corr), controls);
            twin.solve(twinLevel, b.data(), twinCorr.data(), controls);
            expectedIterations += r.nIterations;
            EXPECT_EQ(team.iterations(), expectedIterations);
            EXPECT_EQ(twin.iterations(), expectedIterations);
            const std::vector<double> got = toHost(corr);
            EXPECT_EQ(got, twinCorr);
            const double scale = *std::max_element(expected.begin(), expected.end(),
                                                   [](double x, double y) { return std::abs(x) < std::abs(y); });
            for (int i = 0; i < p.nCells; ++i)
            {
                ASSERT_NEAR(got[i], expected[i], 1e-12*std::abs(scale)) << "row " << i;
            }
        }
    }
    // not the team's: a part of more than maxPartRows rows (the whole poisson3D, its faces joining
    // every row), an asymmetric matrix
    const LduProblem whole = poisson3D(7, 6, 12, 31, -1);
    LduSystemImpl<TypeParam> level(whole.addressing());
    EXPECT_FALSE(CoarsestPcg<TypeParam>::usable(level, Coupling(), true,
                                                CoarsestPcg<TypeParam>::teamParts(whole.nCells, whole.lower, whole.upper)));
    std::vector<int> one;
    const LduProblem slab = slabs(7, 6, 1, 1, 31, one);
    LduSystemImpl<TypeParam> small(slab.addressing());
    const std::vector<int> parts = CoarsestPcg<TypeParam>::teamParts(slab.nCells, slab.lower, slab.upper);
    EXPECT_TRUE(CoarsestPcg<TypeParam>::usable(small, Coupling(), true, parts));
    EXPECT_FALSE(CoarsestPcg<TypeParam>::usable(small, Coupling(), false, parts));
}

} // namespace gpuLdu::test
