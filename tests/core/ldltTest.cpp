// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver (direct/LdltImpl.hpp): its factor against a dense LDL^T of the same
// permuted matrix, solves refined to 1e-12 on SPD, indefinite and test-collection matrices, the
// GPU's factor and solve the CPU's bit for bit, static pivoting counted, and bad values errors.

#include "ldltTestSupport.hpp"

#include <cmath>
#include <complex>

namespace gpuLdu::test
{

//- The factor's L and D are the dense LDL^T (no pivoting) of C = P S A S P^T, in every ordering
TYPED_TEST(LdltTest, FactorIsTheDenseFactor)
{
    const Lower a = fromProblem(poisson3D(6, 5, 4, 7, -1));
    for (LdltOrdering o : {LdltOrdering::named("natural"), LdltOrdering::named("AMD"), LdltOrdering::named("METIS")})
    {
        LdltSolverImpl<TypeParam> solver(a.pattern(), o);
        const LdltFactorStats stats = solver.factor(a.values.data());
        EXPECT_EQ(stats.nStaticPivots, 0);
        const SymbolicLdlt& s = solver.symbolic();
        const int n = a.n;
        // dense C = P S A S P^T (S: one over the square roots of A's diagonal, the solver's
        // scaling), then its LDL^T
        std::vector<double> scale(n);
        for (int j = 0; j < n; ++j)
        {
            scale[j] = 1/std::sqrt(std::abs(a.values[a.colStart[j]]));
        }
        std::vector<double> c(std::size_t(n)*n, 0.0);
        for (int j = 0; j < n; ++j)
        {
            for (int p = a.colStart[j]; p < a.colStart[j + 1]; ++p)
            {
                const int i = s.inverse[a.rows[p]], k = s.inverse[j];
                c[std::size_t(i)*n + k] = c[std::size_t(k)*n + i] = a.values[p]*scale[a.rows[p]]*scale[j];
            }
        }
        std::vector<double> d(n);
        for (int k = 0; k < n; ++k)
        {
            d[k] = c[std::size_t(k)*n + k];
            for (int i = k + 1; i < n; ++i)
            {
                c[std::size_t(i)*n + k] /= d[k];
            }
            for (int i = k + 1; i < n; ++i)
            {
                for (int jj = k + 1; jj <= i; ++jj)
                {
                    c[std::size_t(i)*n + jj] -= c[std::size_t(i)*n + k]*d[k]*c[std::size_t(jj)*n + k];
                }
            }
        }
        // the solver's supernodes as a dense factor (L below the diagonal, D on it); entries
        // outside L's structure are zero in both (the relaxation's zeros stay exact zeros)
        const std::vector<double> mine = solver.denseFactor();
        for (int j = 0; j < n; ++j)
        {
            for (int i = j; i < n; ++i)
            {
                const double theirs = i == j ? d[j] : c[std::size_t(i)*n + j];
                EXPECT_NEAR(mine[std::size_t(i)*n + j], theirs, 1e-12*(1 + std::abs(theirs)))
                    << orderingName(o) << " (" << i << ", " << j << ")";
            }
        }
    }
}

//- Solves refined to 1e-12: SPD (3-D Poisson, test-collection matrices) in every ordering, and
//  an indefinite saddle point (zero diagonal entries) in the fill-reducing ones
TYPED_TEST(LdltTest, SolvesToTolerance)
{
    struct Case { std::string name; Lower a; std::vector<LdltOrdering> orderings; };
    const std::vector<LdltOrdering> all{LdltOrdering::named("natural"), LdltOrdering::named("AMD"), LdltOrdering::named("METIS")};
    const std::vector<Case> cases{
        {"poisson3D", fromProblem(poisson3D(10, 9, 8, 11, -1)), all},
        {"nos4", fromFile("nos4.mtx.gz"), all},
        {"bcsstk13", fromFile("bcsstk13.mtx.gz"), {LdltOrdering::named("AMD"), LdltOrdering::named("METIS")}},
        {"saddle point", saddlePoint(8, 10), {LdltOrdering::named("AMD"), LdltOrdering::named("METIS")}},
    };
    for (const Case& c : cases)
    {
        for (LdltOrdering o : c.orderings)
        {
            SCOPED_TRACE(c.name + ", " + orderingName(o));
            LdltSolverImpl<TypeParam> solver(c.a.pattern(), o);
            solver.factor(c.a.values.data());
            // b = A x for a random x: the residual a backward-stable solve can reach is then
            // about eps relative to ||b|| (with any b it is eps ||A|| ||x|| / ||b||, up to
            // eps cond(A): bcsstk13's condition number is about 1e10)
            const std::vector<double> b = c.a.multiply(randomRhs(c.a.n, 17));
            std::vector<double> x(c.a.n);
            const SolveResult r = solver.solve(b.data(), x.data(), 1e-12, 10);
            EXPECT_TRUE(r.converged);
            EXPECT_LE(r.finalResidual, 1e-12);
            // the residual it reports is that of the x it returns
            EXPECT_NEAR(relativeResidual(c.a, x, b), r.finalResidual, 1e-13);
        }
    }
}

//- A tiny pivot is replaced by the floor and counted; the refinement still reaches the
//  tolerance. [[1, 1, 0], [1, 1 + 1e-14, 1], [0, 1, 4]]: the second pivot is about 1e-14
TYPED_TEST(LdltTest, StaticPivotingIsCountedAndRefined)
{
    Lower a = fromLdu<double>(3, {0, 1}, {1, 2}, {1.0, 1.0 + 1e-14, 4.0}, {1.0, 1.0});
    LdltSolverImpl<TypeParam> solver(a.pattern(), LdltOrdering::named("natural"));
    const LdltFactorStats stats = solver.factor(a.values.data());
    EXPECT_EQ(stats.nStaticPivots, 1);
    EXPECT_GT(stats.pivotFloor, 1e-14);
    const std::vector<double> b{1.0, 2.0, 3.0};
    std::vector<double> x(3);
    const SolveResult r = solver.solve(b.data(), x.data(), 1e-12, 50);
    EXPECT_GT(r.nIterations, 0);
    EXPECT_GT(r.initialResidual, 1e-12);
}

//- The GPU's factor and plain solve are the CPU's: bit for bit where every front is small and
//  every supernode short (one team per front, every sum in a fixed order), to rounding where
//  large fronts and long supernodes go through the dense BLAS (cuBLAS and the host's BLAS round
//  differently)
TYPED_TEST(LdltTest, FactorAndSolveAreTheCpus)
{
    for (const std::string name : {"nos4.mtx.gz", "bcsstk13.mtx.gz"})
    {
        SCOPED_TRACE(name);
        const Lower a = fromFile(name);
        LdltSolverImpl<TypeParam> solver(a.pattern(), LdltOrdering::named("METIS"));
        LdltSolverImpl<CpuBackend> reference(a.pattern(), LdltOrdering::named("METIS"));
        solver.factor(a.values.data());
        reference.factor(a.values.data());
        const std::vector<double> mine = solver.denseFactor(), theirs = reference.denseFactor();
        const std::vector<double> b = randomRhs(a.n, 19);
        std::vector<double> x(a.n), y(a.n);
        solver.solve(b.data(), x.data(), 0, 0);
        reference.solve(b.data(), y.data(), 0, 0);
        const SymbolicLdlt& s = solver.symbolic();
        int largest = 0, longest = 0;
        for (int sn = 0; sn < s.nSupernodes(); ++sn)
        {
            largest = std::max(largest, s.rows(sn));
            longest = std::max(longest, s.cols(sn));
        }
        if (name == std::string("nos4.mtx.gz"))
        {
            ASSERT_LE(largest, 128);   // small fronts only, short supernodes: the same bits
            ASSERT_LE(longest, 32);
            EXPECT_EQ(mine, theirs);
            EXPECT_EQ(x, y);
            continue;
        }
        ASSERT_GT(largest, 128);   // the dense BLAS at work
        double scale = 0, xScale = 0;
        for (std::size_t q = 0; q < theirs.size(); ++q)
        {
            scale = std::max(scale, std::abs(theirs[q]));
        }
        for (const double v : y)
        {
            xScale = std::max(xScale, std::abs(v));
        }
        for (std::size_t q = 0; q < theirs.size(); ++q)
        {
            ASSERT_NEAR(mine[q], theirs[q], 1e-10*scale) << "entry " << q;
        }
        for (int i = 0; i < a.n; ++i)
        {
            ASSERT_NEAR(x[i], y[i], 1e-8*xScale) << "row " << i;
        }
    }
}

//- Bad input: an entry above the diagonal, a non-finite value, all zeros, a solve before a factor:
//  errors; a singular matrix: a counted static pivot and a solve that does not converge; a
//  factorisation over the memory: refused before allocating
TYPED_TEST(LdltTest, RejectsBadInput)
{
    Lower a = fromProblem(poisson3D(3, 3, 1, 5, -1));
    Lower upper = a;
    upper.rows[upper.colStart[1] + 1] = 0;   // row 0 in column 1: above the diagonal
    EXPECT_THROW(LdltSolverImpl<TypeParam>(upper.pattern(), LdltOrdering::named("AMD")), Error);

    LdltSolverImpl<TypeParam> solver(a.pattern(), LdltOrdering::named("AMD"));
    std::vector<double> b(a.n, 1.0), x(a.n);
    EXPECT_THROW(solver.solve(b.data(), x.data(), 1e-12, 1), Error);
    std::vector<double> v = a.values;
    v[2] = std::nan("");
    EXPECT_THROW(solver.factor(v.data()), Error);
    std::vector<double> zeros(v.size(), 0.0);
    EXPECT_THROW(solver.factor(zeros.data()), Error);
    // singular [[1, 1], [1, 1]] with b = (1, 0), no solution: the zero pivot replaced and
    // counted, the refinement does not reach the tolerance, and says so
    const Lower singular = fromLdu<double>(2, {0}, {1}, {1.0, 1.0}, {1.0});
    LdltSolverImpl<TypeParam> s2(singular.pattern(), LdltOrdering::named("natural"));
    EXPECT_EQ(s2.factor(singular.values.data()).nStaticPivots, 1);
    const std::vector<double> b2{1.0, 0.0};
    std::vector<double> x2(2);
    EXPECT_FALSE(s2.solve(b2.data(), x2.data(), 1e-12, 5).converged);
    solver.factor(a.values.data());
    EXPECT_NO_THROW(solver.solve(b.data(), x.data(), 1e-12, 1));

    // a factorisation that would not fit: refused before anything is allocated, saying how much
    // it needs, how much there is and what to do (the METIS ordering only where it is not the
    // one in use)
    const Lower big = fromProblem(poisson3D(10, 9, 8, 11, -1));
    for (const LdltOrdering ordering : {LdltOrdering::named("METIS"), LdltOrdering::named("AMD")})
    {
        const double needed = LdltSolverImpl<TypeParam>(big.pattern(), ordering).analysis().deviceBytes;
        ASSERT_GT(needed, 0);
        try
        {
            LdltSolverImpl<TypeParam>(big.pattern(), ordering, needed/2);
            ADD_FAILURE() << "no error for a factorisation over the memory";
        }
        catch (const Error& e)
        {
            const std::string what = e.what();
            EXPECT_NE(what.find("needs"), std::string::npos) << what;
            EXPECT_NE(what.find("MiB of L"), std::string::npos) << what;
            EXPECT_EQ(what.find("try the METIS ordering") != std::string::npos, ordering != LdltOrdering::named("METIS"))
                << what;
            EXPECT_NE(what.find("an iterative solver"), std::string::npos) << what;
        }
        EXPECT_NO_THROW(LdltSolverImpl<TypeParam>(big.pattern(), ordering, 2*needed));
    }
}

//- withSameAnalysis (another field of a mesh): the copy factors other values of the pattern
//  exactly as a solver analysed anew does, and the original keeps its own factor
TYPED_TEST(LdltTest, CopiedAnalysisFactorsAsAFreshOne)
{
    const Lower a = fromProblem(poisson3D(10, 9, 8, 11, -1));
    Lower other = a;
    for (int j = 0; j < a.n; ++j)
    {
        other.values[a.colStart[j]] += 0.5 + 0.01*(j%7);   // diagonal entries: still SPD
    }
    LdltSolverImpl<TypeParam> first(a.pattern(), LdltOrdering::named("METIS"));
    first.factor(a.values.data());
    const std::vector<double> before = first.denseFactor();
    const std::unique_ptr<LdltSolver> copy = first.withSameAnalysis();
    EXPECT_EQ(copy->analysis().nnzL, first.analysis().nnzL);
    copy->factor(other.values.data());
    LdltSolverImpl<TypeParam> fresh(other.pattern(), LdltOrdering::named("METIS"));
    fresh.factor(other.values.data());
    EXPECT_EQ(dynamic_cast<LdltSolverImpl<TypeParam>&>(*copy).denseFactor(), fresh.denseFactor());
    EXPECT_EQ(first.denseFactor(), before);
    const std::vector<double> b = a.multiply(randomRhs(a.n, 29));
    std::vector<double> x(a.n);
    EXPECT_LE(first.solve(b.data(), x.data(), 1e-12, 10).finalResidual, 1e-12);
}

//- Complex symmetric matrices (A = A^T, complex values, no conjugation): qc324, dwg961a's
//  non-empty principal submatrix (its full matrix has 256 empty rows: singular, an error naming
//  the row) and a damped Helmholtz-like 3-D Laplacian K + i 0.3 I, large enough for large fronts
//  and long supernodes (the complex dense BLAS), solved to 1e-12 in both fill-reducing
//  orderings; the GPU's factor the CPU's to rounding; a tiny complex pivot replaced by the floor
//  in its own direction
TYPED_TEST(LdltTest, ComplexSymmetricSolvesToTolerance)
{
    using C = std::complex<double>;
    const LduProblem k = poisson3D(12, 12, 12, 6, -1);
    std::vector<C> diag(k.diag.begin(), k.diag.end()), coeffs(k.upperCoeffs.begin(), k.upperCoeffs.end());
    for (C& d : diag)
    {
        d += C(0, 0.3);
    }
    struct Case { std::string name; ComplexLower a; };
    const std::vector<Case> cases{
        {"qc324", fromComplexFile("qc324.mtx.gz")},
        {"dwg961a (non-empty rows)", withoutEmptyRows(fromComplexFile("dwg961a.mtx.gz"))},
        {"shifted Laplacian", fromLdu(k.nCells, k.lower, k.upper, diag, coeffs)},
    };
    ASSERT_EQ(cases[1].a.n, 705);
    for (const Case& c : cases)
    {
        for (LdltOrdering o : {LdltOrdering::named("AMD"), LdltOrdering::named("METIS")})
        {
            SCOPED_TRACE(c.name + ", " + orderingName(o));
            LdltSolverImpl<TypeParam, Complex> solver(c.a.pattern(), o);
            EXPECT_EQ(solver.factor(c.a.values.data()).nStaticPivots, 0);
            const std::vector<C> b = c.a.multiply(randomComplex(c.a.n, 23));
            std::vector<C> x(c.a.n);
            const SolveResult r = solver.solve(b.data(), x.data(), 1e-12, 10);
            EXPECT_TRUE(r.converged);
            EXPECT_LE(r.finalResidual, 1e-12);
            EXPECT_NEAR(relativeResidual(c.a, x, b), r.finalResidual, 1e-13);
            if (c.name == "shifted Laplacian" && o == LdltOrdering::named("METIS"))
            {
                const SymbolicLdlt& s = solver.symbolic();
                int largest = 0, longest = 0;
                for (int sn = 0; sn < s.nSupernodes(); ++sn)
                {
                    largest = std::max(largest, s.rows(sn));
                    longest = std::max(longest, s.cols(sn));
                }
                EXPECT_GT(largest, 128);   // panels through the dense BLAS
                EXPECT_GT(longest, 32);    // solves through trsv/gemv
                LdltSolverImpl<CpuBackend, Complex> reference(c.a.pattern(), o);
                reference.factor(c.a.values.data());
                const std::vector<Complex> mine = solver.denseFactor(), theirs = reference.denseFactor();
                double scale = 0;
                for (const Complex& v : theirs)
                {
                    scale = std::max(scale, thrust::abs(v));
                }
                for (std::size_t q = 0; q < theirs.size(); ++q)
                {
                    ASSERT_LE(thrust::abs(mine[q] - theirs[q]), 1e-10*scale) << "entry " << q;
                }
            }
        }
    }

    // the whole dwg961a: empty rows, singular
    const ComplexLower whole = fromComplexFile("dwg961a.mtx.gz");
    LdltSolverImpl<TypeParam, Complex> singular(whole.pattern(), LdltOrdering::named("AMD"));
    try
    {
        singular.factor(whole.values.data());
        ADD_FAILURE() << "no error for dwg961a's empty rows";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find("singular"), std::string::npos) << e.what();
    }

    // [[1, 1], [1, 1 + 1e-14 i]]: the second pivot 1e-14 i - 0 ... replaced by floor i
    const ComplexLower tiny = fromLdu<C>(2, {0}, {1}, {C(1, 0), C(1, 1e-14)}, {C(1, 0)});
    LdltSolverImpl<TypeParam, Complex> pivoted(tiny.pattern(), LdltOrdering::named("natural"));
    const LdltFactorStats stats = pivoted.factor(tiny.values.data());
    EXPECT_EQ(stats.nStaticPivots, 1);
    const std::vector<Complex> f = pivoted.denseFactor();
    EXPECT_EQ(f[3].real(), 0.0);
    EXPECT_NEAR(f[3].imag(), stats.pivotFloor, 1e-12*stats.pivotFloor);
}

} // namespace gpuLdu::test
