// SPDX-License-Identifier: GPL-3.0-or-later
// Sparse formats: each format's SpMV against a sequential CSR loop on patterns with awkward row
// lengths, the ELL widths of HYB and HEC, and whole solves of the LduSystem in every format
// against the csr one (the same iterations and the same solution, bit for bit).

#include "testSupport.hpp"

#include <random>

namespace gpuLdu::test
{

template<class B>
class FormatTest : public ::testing::Test {};
TYPED_TEST_SUITE(FormatTest, Backends);

//- Every registered format converted from CSR (matrix/FormatList.hpp): a format added to the
//  list is checked here against csr
std::vector<MatrixFormat> convertedFormats()
{
    std::vector<MatrixFormat> converted;
    for (int id = 0; id < int(FormatRegistry::choices().size()); ++id)
    {
        if (storageOf(MatrixFormat(id)) == FormatStorage::converted)
        {
            converted.push_back(MatrixFormat(id));
        }
    }
    return converted;
}

//- A CSR pattern with given row lengths, random distinct columns in random (summation) order,
//  and values taken from a shuffled value array (so termSrc is not the identity).
struct CsrCase
{
    int nRows = 0;
    std::vector<int> rowStart{0};
    std::vector<int> termCol;
    std::vector<int> termSrc;
    std::vector<double> values;

    CsrCase(const std::vector<int>& lengths, unsigned seed)
    :
        nRows(int(lengths.size()))
    {
        std::mt19937 gen(seed);
        for (int len : lengths)
        {
            std::vector<int> cols(nRows);
            std::iota(cols.begin(), cols.end(), 0);
            std::shuffle(cols.begin(), cols.end(), gen);
            termCol.insert(termCol.end(), cols.begin(), cols.begin() + len);
            rowStart.push_back(rowStart.back() + len);
        }
        termSrc.resize(termCol.size());
        std::iota(termSrc.begin(), termSrc.end(), 0);
        std::shuffle(termSrc.begin(), termSrc.end(), gen);
        values = randomVector(int(termCol.size()), seed + 1);
    }

    //- y = A x, each row's terms added in slot order
    std::vector<double> product(const std::vector<double>& x) const
    {
        std::vector<double> y(nRows, 0.0);
        for (int i = 0; i < nRows; ++i)
        {
            for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
            {
                y[i] += values[termSrc[p]]*x[termCol[p]];
            }
        }
        return y;
    }
};

//- Row lengths that catch boundary mistakes
std::vector<std::pair<std::string, std::vector<int>>> awkwardLengths()
{
    std::mt19937 gen(7);
    std::vector<int> random(1000);
    for (int& l : random)
    {
        l = std::uniform_int_distribution<int>(0, 12)(gen);
    }
    std::vector<int> oneLong(300, 3);
    oneLong[157] = 300;
    std::vector<int> emptyRows(100, 5);
    for (int i = 0; i < 100; i += 3)
    {
        emptyRows[i] = 0;
    }
    return {
        {"all equal", std::vector<int>(500, 7)},
        {"one row", {1}},
        {"one long row", oneLong},
        {"empty rows", emptyRows},
        {"all empty", std::vector<int>(40, 0)},
        {"rows not a multiple of 32", std::vector<int>(45, 2)},
        {"random 0..12", random},
    };
}

TYPED_TEST(FormatTest, SpmvEqualsSequentialCsrOnAwkwardPatterns)
{
    using B = TypeParam;
    using IntVec = typename B::template Vector<int>;
    for (const auto& [name, lengths] : awkwardLengths())
    {
        const CsrCase c(lengths, 3);
        const IntVec rowStart(c.rowStart.begin(), c.rowStart.end());
        const IntVec termCol(c.termCol.begin(), c.termCol.end());
        const IntVec termSrc(c.termSrc.begin(), c.termSrc.end());
        const typename B::template Vector<double> values(c.values.begin(), c.values.end());
        const std::vector<double> xh = randomVector(c.nRows, 11);
        const typename B::template Vector<double> x(xh.begin(), xh.end());
        const std::vector<double> expected = c.product(xh);

        for (MatrixFormat f : convertedFormats())
        {
            if (f == MatrixFormat::named("ell") && name == "one long row")
            {
                // 300 x 300 slots for 1197 non-zeros: refused with a clear message
                EXPECT_THROW(FormattedPattern<B>(f, c.nRows, rowStart, termCol, termSrc), Error);
                continue;
            }
            const FormattedPattern<B> pattern(f, c.nRows, rowStart, termCol, termSrc);
            typename FormattedPattern<B>::Values v;
            pattern.fill(ptr(values), v);
            typename B::template Vector<double> y(c.nRows, -1.0);
            pattern.spmv(v, ptr(x), ptr(y));
            EXPECT_EQ(toHost(y), expected) << name << ", format " << formatName(f);
            EXPECT_GE(pattern.slots(), long(c.termCol.size())) << name << ", format " << formatName(f);
        }
    }
}

TEST(FormatWidths, HybAndHecThresholds)
{
    // rows 1, 1, 1, 10 long: atLeast[k] = rows at least k long
    std::vector<int> atLeast(11, 1);
    atLeast[0] = 4;
    atLeast[1] = 4;
    // HYB: the largest K with at least a third of the rows K long: K = 1
    EXPECT_EQ(formats::Hyb::width(atLeast), 1);
    // HEC: ELL fill 4/4 at K = 1, 5/8 at K = 2, 6/12 at K = 3 (not more than half): K = 2
    EXPECT_EQ(formats::Hec::width(atLeast), 2);
    // all rows 7 long: both keep everything in the ELL part
    std::vector<int> equal(8, 100);
    EXPECT_EQ(formats::Hyb::width(equal), 7);
    EXPECT_EQ(formats::Hec::width(equal), 7);
}

TYPED_TEST(FormatTest, PatternSplitsAtTheChosenWidth)
{
    using B = TypeParam;
    using IntVec = typename B::template Vector<int>;
    std::vector<int> lengths(96, 4);
    lengths[5] = 40;
    lengths[70] = 9;
    const CsrCase c(lengths, 5);
    const IntVec rowStart(c.rowStart.begin(), c.rowStart.end());
    const IntVec termCol(c.termCol.begin(), c.termCol.end());
    const IntVec termSrc(c.termSrc.begin(), c.termSrc.end());

    const FormattedPattern<B> hec(MatrixFormat::named("hec"), c.nRows, rowStart, termCol, termSrc);
    // 96 rows, 94 of them 4 long: the ELL part stays more than half full up to width 8
    // (392 of 768 slots), not at 9 (394 of 864)
    EXPECT_EQ(hec.width, 8);
    EXPECT_EQ(int(hec.tailCol.size()), 32 + 1);
    EXPECT_EQ(int(hec.tailStart.size()), 97);
    const FormattedPattern<B> hyb(MatrixFormat::named("hyb"), c.nRows, rowStart, termCol, termSrc);
    // a third of the rows or more are at least 4 long, fewer than a third 5 long
    EXPECT_EQ(hyb.width, 4);
    EXPECT_EQ(int(hyb.tailCol.size()), 36 + 5);
    const thrust::host_vector<int> tailRows(hyb.tailRow);
    EXPECT_EQ(std::count(tailRows.begin(), tailRows.end(), 5), 36);
    EXPECT_EQ(std::count(tailRows.begin(), tailRows.end(), 70), 5);
    EXPECT_TRUE(std::is_sorted(tailRows.begin(), tailRows.end()));
    const FormattedPattern<B> blocked(MatrixFormat::named("blockedEll"), c.nRows, rowStart, termCol, termSrc);
    // slices of 32 rows: widths 40, 4, 9
    const thrust::host_vector<int> sliceStart(blocked.sliceStart);
    EXPECT_EQ(std::vector<int>(sliceStart.begin(), sliceStart.end()), (std::vector<int>{0, 32*40, 32*44, 32*53}));
}

TEST(ChooseFormat, RuleOfTheMeasurements)
{
    auto stats = [](int nRows, long nnz, int minLength, int maxLength, int nLong)
    {
        RowLengthStats s;
        s.nRows = nRows;
        s.nnz = nnz;
        s.minLength = minLength;
        s.maxLength = maxLength;
        s.nLongRows = nLong;
        return s;
    };
    // OpenFOAM hex meshes, 1M and 8M cells: ell
    EXPECT_EQ(chooseFormat(stats(1000000, 6940000, 4, 7, 0)), MatrixFormat::named("ell"));
    EXPECT_EQ(chooseFormat(stats(8000000, 55760000, 4, 7, 0)), MatrixFormat::named("ell"));
    // an OpenFOAM mesh that fits in L2 (the 400-cell cavity, 100k cells): csr
    EXPECT_EQ(chooseFormat(stats(400, 1920, 3, 5, 0)), MatrixFormat::named("csr"));
    EXPECT_EQ(chooseFormat(stats(100000, 680000, 4, 7, 0)), MatrixFormat::named("csr"));
    // 19- and 27-point stencils on 100^3: ell
    EXPECT_EQ(chooseFormat(stats(1000000, 18701200, 7, 19, 0)), MatrixFormat::named("ell"));
    EXPECT_EQ(chooseFormat(stats(1000000, 26463592, 8, 27, 0)), MatrixFormat::named("ell"));
    // long rows, but the matrix fits in L2 (bcsstk14): csr
    EXPECT_EQ(chooseFormat(stats(1806, 63454, 1, 48, 0)), MatrixFormat::named("csr"));
    // long rows of uneven length: csr
    EXPECT_EQ(chooseFormat(stats(1000000, 20000000, 4, 200, 5000)), MatrixFormat::named("csr"));
    // irregular, 2M rows: csr
    EXPECT_EQ(chooseFormat(stats(2000000, 17984798, 1, 120, 35899)), MatrixFormat::named("csr"));
}

//- Solves (and A x) in every format equal the csr ones exactly: same iterations, same psi.
template<class B>
void solveInEveryFormat(const LduProblem& p, KrylovMethod method, Preconditioner precon, const std::string& name)
{
    LduSystemImpl<B> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    const std::vector<double> b = referenceSource(p);
    SolverControls c;
    c.tolerance = 1e-9;
    c.maxIter = 3000;
    auto run = [&](MatrixFormat f, std::vector<double>& psi, std::vector<double>& ax)
    {
        EXPECT_EQ(sys.setFormat(f), f);
        psi.assign(p.nCells, 0.0);
        ax.assign(p.nCells, 0.0);
        sys.multiply(b.data(), ax.data());
        return sys.solve(method, psi.data(), b.data(), c, precon, Coupling());
    };
    std::vector<double> psiCsr;
    std::vector<double> axCsr;
    const SolveResult csr = run(MatrixFormat::named("csr"), psiCsr, axCsr);
    EXPECT_TRUE(csr.converged) << name;
    for (MatrixFormat f : convertedFormats())
    {
        std::vector<double> psi;
        std::vector<double> ax;
        const SolveResult r = run(f, psi, ax);
        EXPECT_EQ(ax, axCsr) << name << ", format " << formatName(f);
        EXPECT_EQ(r.nIterations, csr.nIterations) << name << ", format " << formatName(f);
        EXPECT_EQ(psi, psiCsr) << name << ", format " << formatName(f);
    }
    // a new upload reaches the converted values too
    std::vector<double> diag(p.diag);
    for (double& d : diag)
    {
        d *= 2;
    }
    sys.setMatrix(diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    std::vector<double> ax(p.nCells);
    std::vector<double> ax2(p.nCells);
    sys.multiply(b.data(), ax.data());
    sys.setFormat(MatrixFormat::named("csr"));
    sys.multiply(b.data(), ax2.data());
    EXPECT_EQ(ax, ax2) << name << " after a second setMatrix";
}

TYPED_TEST(FormatTest, SolvesEqualCsrInEveryFormat)
{
    using B = TypeParam;
    solveInEveryFormat<B>(poisson3D(12, 10, 9, 1, -1), KrylovMethod::named("PCG"), Preconditioner::named("DIC"), "poisson PCG+DIC");
    solveInEveryFormat<B>(asymmetric(10, 9, 8, 2), KrylovMethod::named("PBiCG"), Preconditioner::named("DILU"), "asymmetric PBiCG+DILU");
    solveInEveryFormat<B>(readMatrixMarket(dataFile("sherman5.mtx.gz")), KrylovMethod::named("PBiCGStab"), Preconditioner::named("DILU"),
                          "sherman5 PBiCGStab+DILU");
    solveInEveryFormat<B>(withTriangles(30, 30, 4), KrylovMethod::named("PBiCGStab"), Preconditioner::named("ILU0"),
                          "triangles PBiCGStab+ILU0");
}

TYPED_TEST(FormatTest, ProductsEqualCsrOnEveryDataMatrix)
{
    using B = TypeParam;
    for (const char* name : {"1138_bus", "bcsstk13", "bcsstk14", "bcsstk15", "gr_30_30", "nos3", "nos4",
                             "openfoam_elbow_p0", "openfoam_elbow_Ux0", "orsirr_1", "sherman1", "sherman5",
                             "west0479"})
    {
        const LduProblem p = readMatrixMarket(dataFile(std::string(name) + ".mtx.gz"));
        LduSystemImpl<B> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> x = randomVector(p.nCells, 21);
        std::vector<double> csr(p.nCells);
        sys.setFormat(MatrixFormat::named("csr"));
        sys.multiply(x.data(), csr.data());
        EXPECT_EQ(csr, referenceAmul(p, x)) << name;
        for (MatrixFormat f : convertedFormats())
        {
            std::vector<double> y(p.nCells);
            sys.setFormat(f);
            sys.multiply(x.data(), y.data());
            EXPECT_EQ(y, csr) << name << ", format " << formatName(f);
        }
    }
}

TYPED_TEST(FormatTest, AutomaticPicksAConcreteFormatAndNamesRoundTrip)
{
    using B = TypeParam;
    const LduProblem p = poisson3D(8, 8, 8, 1, -1);
    LduSystemImpl<B> sys(p.addressing());
    const MatrixFormat f = sys.setFormat(MatrixFormat::named("auto"));
    EXPECT_NE(f, MatrixFormat::named("auto"));
    EXPECT_EQ(f, chooseFormat(sys.rowLengthStats()));
    const RowLengthStats s = sys.rowLengthStats();
    EXPECT_EQ(s.nRows, 512);
    EXPECT_EQ(s.nnz, 512 + 2*p.nFaces());
    EXPECT_EQ(s.minLength, 4);
    EXPECT_EQ(s.maxLength, 7);
    for (MatrixFormat g : {MatrixFormat::named("csr"), MatrixFormat::named("ell"), MatrixFormat::named("blockedEll"),
                           MatrixFormat::named("hyb"), MatrixFormat::named("hec"), MatrixFormat::named("auto")})
    {
        EXPECT_EQ(MatrixFormat::named(formatName(g)), g);
    }
    try
    {
        MatrixFormat::named("coo");
        ADD_FAILURE() << "no error for matrixFormat coo";
    }
    catch (const Error& e)
    {
        EXPECT_NE(std::string(e.what()).find("csr ell blockedEll hyb hec auto"), std::string::npos) << e.what();
    }
}

} // namespace gpuLdu::test
