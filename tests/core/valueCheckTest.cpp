// SPDX-License-Identifier: GPL-3.0-or-later
// The checks before a solve iterates (matrix/ValueCheck.hpp, ValueError): each kind of
// non-finite value (diagonal, upper, lower, source, initial guess) is reported with its index
// and the entry's row and column, and every zero or non-finite pivot of the diagonal, DIC, DILU
// and ILU0 preconditioners with its row, instead of being computed with. On the CPU backend
// the solves run with OpenFOAM's floating-point traps on (FE_INVALID, FE_DIVBYZERO,
// FE_OVERFLOW): a check that computed with the value would stop the test with SIGFPE. On the
// GPU the checks' reductions with Thrust's temporaries kept per stream (GpuBackend::Temporaries).
// Also the keyword suggestion of the OpenFOAM layer's warnings (editDistance, closestKeyword).

#include "referenceKrylov.hpp"

#include <cfenv>
#include <cmath>
#include <limits>
#include <memory>

namespace gpuLdu::test
{

template<class B>
class ValueCheckTest : public ::testing::Test {};
TYPED_TEST_SUITE(ValueCheckTest, Backends);

//- OpenFOAM's trapping (sigFpe::set) while it lives
class TrapFpe
{
    int before_;

public:
    TrapFpe()
    :
        before_(fegetexcept())
    {
        feclearexcept(FE_ALL_EXCEPT);
        feenableexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
    }

    ~TrapFpe()
    {
        fedisableexcept(FE_ALL_EXCEPT);
        feenableexcept(before_);
    }
};

//- The ValueError of a solve (traps on), or a BadValue of index -1 where it throws none
template<class B>
BadValue solveError(const LduProblem& p, std::vector<double> psi, const std::vector<double>& b,
                    Preconditioner type, KrylovMethod method, const SolverControls& c = SolverControls())
{
    LduSystemImpl<B> sys(p.addressing());
    BadValue none;
    none.index = -1;
    try
    {
        TrapFpe trap;
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        sys.solve(method, psi.data(), b.data(), c, type, Coupling());
    }
    catch (const ValueError& e)
    {
        return e.bad();
    }
    return none;
}

const double nan = std::numeric_limits<double>::quiet_NaN();
const double inf = std::numeric_limits<double>::infinity();

TEST(ValueBits, FiniteAndPivotTestsByBitPattern)
{
    TrapFpe trap;
    const double signallingNaN = std::numeric_limits<double>::signaling_NaN();
    for (double v : {nan, -nan, signallingNaN, inf, -inf})
    {
        EXPECT_FALSE(isFiniteValue(v));
        EXPECT_FALSE(isUsablePivot(v));
    }
    for (double v : {0.0, -0.0})
    {
        EXPECT_TRUE(isFiniteValue(v));
        EXPECT_FALSE(isUsablePivot(v));
    }
    for (double v : {1.0, -2.5, std::numeric_limits<double>::denorm_min(), std::numeric_limits<double>::max(),
                     -std::numeric_limits<double>::max(), std::numeric_limits<double>::min()})
    {
        EXPECT_TRUE(isFiniteValue(v));
        EXPECT_TRUE(isUsablePivot(v));
    }
    // a complex value is finite where both its parts are (LDL^T's values and pivots)
    EXPECT_TRUE(isFiniteValue(Complex(1.0, -2.5)));
    for (double v : {nan, signallingNaN, inf, -inf})
    {
        EXPECT_FALSE(isFiniteValue(Complex(v, 1.0)));
        EXPECT_FALSE(isFiniteValue(Complex(1.0, v)));
    }
    // the bits of a double and back: one helper for the quiet NaN and the sweeps' marker
    for (double v : {0.0, -0.0, 1.0, -2.5, inf, std::numeric_limits<double>::denorm_min()})
    {
        EXPECT_EQ(bitsOf(doubleOfBits(bitsOf(v))), bitsOf(v));
    }
    EXPECT_EQ(bitsOf(quietNaN()), 0x7ff8'0000'0000'0000ULL);
    EXPECT_EQ(bitsOf(notReady()), notReadyBits);
    EXPECT_FALSE(isReady(notReady()));
    EXPECT_TRUE(isReady(quietNaN()));
    EXPECT_TRUE(std::isnan(quietNaN()));
    EXPECT_TRUE(std::isnan(quotientOrNaN(1.0, 0.0)));
    EXPECT_TRUE(std::isnan(quotientOrNaN(1.0, -0.0)));
    EXPECT_TRUE(std::isnan(quotientOrNaN(1.0, nan)));
    EXPECT_EQ(quotientOrNaN(3.0, 2.0), 1.5);
}

//- Each kind of value, planted alone, is the one reported, at its index
TYPED_TEST(ValueCheckTest, EachNonFiniteValueIsReportedWhereItIs)
{
    const LduProblem sym = poisson3D(7, 6, 5, 71);
    const LduProblem asym = asymmetric(7, 6, 5, 72);
    const std::vector<double> b = randomVector(sym.nCells, 73);
    const std::vector<double> psi(sym.nCells, 0.0);
    const int f = 37;
    for (double bad : {nan, inf, -inf})
    {
        SCOPED_TRACE("value " + std::to_string(bad));
        {
            LduProblem p = sym;
            p.diag[11] = bad;
            const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("DIC"), KrylovMethod::named("PCG"));
            EXPECT_EQ(e.kind, ValueKind::diagonal);
            EXPECT_EQ(e.index, 11);
            EXPECT_EQ(e.row, 11);
            EXPECT_EQ(e.col, 11);
            EXPECT_EQ(e.count, 1);
            EXPECT_EQ(std::isnan(e.value), std::isnan(bad));
        }
        {
            LduProblem p = sym;
            p.upperCoeffs[f] = bad;
            const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("DIC"), KrylovMethod::named("PCG"));
            EXPECT_EQ(e.kind, ValueKind::upper);
            EXPECT_EQ(e.index, f);
            // upper[f] is A[l(f)][u(f)]
            EXPECT_EQ(e.row, p.lower[f]);
            EXPECT_EQ(e.col, p.upper[f]);
        }
        {
            LduProblem p = asym;
            p.lowerCoeffs[f] = bad;
            const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("DILU"), KrylovMethod::named("PBiCGStab"));
            EXPECT_EQ(e.kind, ValueKind::lower);
            EXPECT_EQ(e.index, f);
            // lower[f] is A[u(f)][l(f)]
            EXPECT_EQ(e.row, p.upper[f]);
            EXPECT_EQ(e.col, p.lower[f]);
        }
        {
            std::vector<double> source = b;
            source[17] = bad;
            const BadValue e = solveError<TypeParam>(sym, psi, source, Preconditioner::named("DIC"), KrylovMethod::named("PCG"));
            EXPECT_EQ(e.kind, ValueKind::source);
            EXPECT_EQ(e.index, 17);
            EXPECT_EQ(e.row, 17);
        }
        {
            std::vector<double> psi0 = psi;
            psi0[sym.nCells - 1] = bad;
            const BadValue e = solveError<TypeParam>(sym, psi0, b, Preconditioner::named("DIC"), KrylovMethod::named("PCG"));
            EXPECT_EQ(e.kind, ValueKind::initialGuess);
            EXPECT_EQ(e.index, sym.nCells - 1);
        }
    }
}

//- Several at once: the first in the order diagonal, upper, lower, source, initial guess (then
//  by index) is reported, with the number of them all; every method checks
TYPED_TEST(ValueCheckTest, TheFirstOfSeveralIsReportedWithTheirNumber)
{
    LduProblem p = asymmetric(6, 6, 6, 81);
    std::vector<double> b = randomVector(p.nCells, 82);
    std::vector<double> psi(p.nCells, 0.0);
    b[3] = nan;
    psi[2] = inf;
    p.lowerCoeffs[50] = nan;
    p.lowerCoeffs[40] = -inf;
    for (KrylovMethod m : {KrylovMethod::named("PBiCG"), KrylovMethod::named("PBiCGStab")})
    {
        const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("ILU0"), m);
        EXPECT_EQ(e.kind, ValueKind::lower);
        EXPECT_EQ(e.index, 40);
        EXPECT_EQ(e.count, 4);
        EXPECT_EQ(e.value, -inf);
    }
    p.upperCoeffs[60] = nan;
    EXPECT_EQ(solveError<TypeParam>(p, psi, b, Preconditioner::none, KrylovMethod::named("PBiCG")).kind, ValueKind::upper);
    p.diag[100] = nan;
    const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("diagonal"), KrylovMethod::named("PBiCGStab"));
    EXPECT_EQ(e.kind, ValueKind::diagonal);
    EXPECT_EQ(e.index, 100);
    EXPECT_EQ(e.count, 6);
}

//- A chain (1-D) matrix: diag d, off-diagonals o, so that the DIC/DILU/ILU0 pivots are
//  p_0 = d, p_i = d - o*o/p_{i-1}: with d = o = 1, p_1 = 1 - 1 = 0 exactly
inline LduProblem chain(int n, double d, double o, bool asymmetricLower = false)
{
    LduProblem p;
    p.nCells = n;
    p.diag.assign(n, d);
    for (int i = 0; i + 1 < n; ++i)
    {
        p.lower.push_back(i);
        p.upper.push_back(i + 1);
        p.upperCoeffs.push_back(o);
    }
    if (asymmetricLower)
    {
        p.lowerCoeffs = p.upperCoeffs;
    }
    return p;
}

//- A zero pivot is reported at its row by the preconditioner that meets it, before anything
//  divides by it (traps on), and not where the solve does not iterate (no preconditioner then,
//  as OpenFOAM)
TYPED_TEST(ValueCheckTest, ZeroPivotsAreReportedAtTheirRow)
{
    const std::vector<double> b(40, 1.0);
    const std::vector<double> psi(40, 0.0);
    struct Expect
    {
        Preconditioner type;
        KrylovMethod method;
        bool asymmetric;
        const char* name;
    };
    for (const Expect& x : {Expect{Preconditioner::named("DIC"), KrylovMethod::named("PCG"), false, "DIC"},
                            Expect{Preconditioner::named("DIC"), KrylovMethod::named("PBiCGStab"), false, "DIC"},
                            Expect{Preconditioner::named("DILU"), KrylovMethod::named("PBiCG"), true, "DILU"},
                            Expect{Preconditioner::named("ILU0"), KrylovMethod::named("PBiCGStab"), true, "ILU0"},
                            Expect{Preconditioner::named("ILU0"), KrylovMethod::named("PCG"), false, "ILU0"}})
    {
        SCOPED_TRACE(x.name);
        // the second pivot is zero, the ones after it NaN: the second is reported
        const BadValue e = solveError<TypeParam>(chain(40, 1, 1, x.asymmetric), psi, b, x.type, x.method);
        EXPECT_EQ(e.kind, ValueKind::pivot);
        EXPECT_EQ(e.pivotOf, x.name);
        EXPECT_EQ(e.row, 1);
        EXPECT_EQ(e.value, 0.0);
        // a zero diagonal without lower neighbours (row 0) is a zero pivot
        LduProblem p = chain(40, 4, 1, x.asymmetric);
        p.diag[0] = -0.0;
        const BadValue z = solveError<TypeParam>(p, psi, b, x.type, x.method);
        EXPECT_EQ(z.kind, ValueKind::pivot);
        EXPECT_EQ(z.row, 0);
        // the same matrices without the need to iterate: no preconditioner, no error
        const std::vector<double> zero(40, 0.0);
        EXPECT_EQ(solveError<TypeParam>(chain(40, 1, 1, x.asymmetric), psi, zero, x.type, x.method).index, -1);
    }
    // the diagonal preconditioner divides by the diagonal: its first zero or non-finite one
    LduProblem p = chain(40, 4, 1);
    p.diag[31] = -0.0;
    p.diag[35] = 0.0;
    const BadValue e = solveError<TypeParam>(p, psi, b, Preconditioner::named("diagonal"), KrylovMethod::named("PCG"));
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "diagonal");
    EXPECT_EQ(e.row, 31);
    // none divides by nothing: the zero diagonals are no error (the loop runs)
    SolverControls few;
    few.maxIter = 3;
    EXPECT_EQ(solveError<TypeParam>(p, psi, b, Preconditioner::none, KrylovMethod::named("PCG"), few).index, -1);
}

//- A good matrix passes the checks and solves as before (a negative control of the tests above:
//  the same set-up without a bad value throws nothing)
TYPED_TEST(ValueCheckTest, GoodValuesPass)
{
    const LduProblem p = poisson3D(7, 6, 5, 91);
    const std::vector<double> b = randomVector(p.nCells, 92);
    for (Preconditioner type : {Preconditioner::named("DIC"), Preconditioner::named("diagonal"), Preconditioner::named("ILU0"), Preconditioner::none})
    {
        EXPECT_EQ(solveError<TypeParam>(p, std::vector<double>(p.nCells, 0.0), b, type, KrylovMethod::named("PCG")).index, -1);
    }
}

//- maxIter 0 where the start is not converged: OpenFOAM's loops are do-while loops, whose test
//  comes after the first iteration, so a direct solve takes one (fvMatrix::solve never calls a
//  solver with maxIter 0: it returns before, natively and with the plugin alike)
TYPED_TEST(ValueCheckTest, MaxIterZeroIsOpenFOAMsDoWhile)
{
    const LduProblem p = poisson3D(6, 6, 6, 95);
    const std::vector<double> b = randomVector(p.nCells, 96);
    SolverControls c;
    c.maxIter = 0;
    std::vector<double> psi(p.nCells, 0.0);
    std::vector<double> psiRef = psi;
    const SolveResult ref = referenceSolve(KrylovMethod::named("PCG"), p, psiRef, b, c, Preconditioner::named("DIC"));
    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
    const SolveResult r = sys.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), Coupling());
    EXPECT_EQ(ref.nIterations, 1);
    EXPECT_EQ(r.nIterations, ref.nIterations);
}

#ifdef __CUDACC__

//- The checks' reductions take Thrust's temporaries from GpuBackend::Temporaries: a block given
//  back is lent again on its own stream (stream order makes that safe), never on another stream
//  while it is kept; and a reduction after another on each of two streams finds every pivot
TEST(ThrustTemporaries, KeptPerStreamAndReductionsStayRight)
{
    using B = GpuBackend;
    B::Temporaries& t = B::temporaries();
    char* a = t.allocate(4000);
    t.deallocate(a, 4000);
    B::useSideStream(3);
    char* side = t.allocate(3000);
    EXPECT_NE(side, a);
    t.deallocate(side, 3000);
    B::useDefaultStream();
    char* again = t.allocate(3000);
    EXPECT_EQ(again, a);
    t.deallocate(again, 3000);

    std::vector<double> pivots(100000, 1.0);
    pivots[77777] = 0.0;
    const B::Vector<double> device(pivots.begin(), pivots.end());
    for (int stream : {-1, 2, -1, 2})
    {
        if (stream < 0)
        {
            B::useDefaultStream();
        }
        else
        {
            B::useSideStream(stream);
        }
        EXPECT_EQ(firstBadPivot<B>(ptr(device), nullptr, int(pivots.size())), 77777);
        EXPECT_EQ(firstBadPivot<B>(ptr(device), nullptr, 77777), -1);
    }
    B::useDefaultStream();
}

#endif

TEST(Keywords, EditDistanceAndClosest)
{
    EXPECT_EQ(editDistance("executer", "executor"), 1);
    EXPECT_EQ(editDistance("matrixformat", "matrixFormat"), 0);
    EXPECT_EQ(editDistance("", "abc"), 3);
    EXPECT_EQ(editDistance("kitten", "sitting"), 3);
    const std::vector<std::string> valid{"solver", "tolerance", "relTol", "maxIter", "minIter",
                                         "preconditioner", "executor", "checkNative", "matrixFormat"};
    EXPECT_EQ(closestKeyword("executer", valid), "executor");
    EXPECT_EQ(closestKeyword("checknative", valid), "checkNative");
    EXPECT_EQ(closestKeyword("matrixformat", valid), "matrixFormat");
    EXPECT_EQ(closestKeyword("maxiters", valid), "maxIter");
    EXPECT_EQ(closestKeyword("tolerence", valid), "tolerance");
    // not a slip of any: nothing suggested
    EXPECT_EQ(closestKeyword("nCellsInCoarsestLevel", valid), "");
}

} // namespace gpuLdu::test
