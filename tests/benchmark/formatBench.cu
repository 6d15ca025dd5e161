// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduFormatBench: SpMV in every format of the core against cuSPARSE's CSR SpMV, one table,
// one run. Matrices: the n^3 pressure Laplacian of the cavity benchmark (7-point stencil in
// blockMesh's cell order, the pattern of icoFoam's p matrix) at the sizes given, then every
// Matrix Market file of a directory. For each format: the pattern conversion and the value
// gather (ms and as multiples of one SpMV), ms per SpMV (median of 50), GB/s and the fraction
// of the measured device copy bandwidth. The bytes counted are the same for every format, the
// least any SpMV must move: nnz*(8 + 4) + rows*(8 + 8 + 4) (values, columns, x, y, offsets);
// padding and index overheads show up as a lower rate.
// Generated matrices stand for patterns OpenFOAM does not make: 19- and 27-point stencils on a
// 100^3 grid (long, near-constant rows) and an irregular one (3 random neighbours per row in a
// band, 1% of the rows with 100 more anywhere).
// Usage: gpuLduFormatBench [dataDir] [n ...]   (default tests/data, 100 200)

#include "benchSupport.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <random>

using namespace gpuLdu;
using namespace gpuLdu::test;

using Gpu = GpuBackend;
using Vec = Gpu::Vector<double>;

namespace
{

template<class F>
double medianMs(int reps, const F& f)
{
    return bench::medianMs<Gpu>(reps, f);
}

//- cuSPARSE's CSR SpMV (algorithm alg) on the core's CSR arrays: ms per product
double cusparseMs(const CsrMatrix<Gpu>& A, const Vec& x, Vec& y, cusparseSpMVAlg_t alg)
{
    cusparseHandle_t h;
    CUSPARSE_CHECK(cusparseCreate(&h));
    cusparseSpMatDescr_t mat;
    cusparseDnVecDescr_t vx;
    cusparseDnVecDescr_t vy;
    CUSPARSE_CHECK(cusparseCreateCsr(&mat, A.nRows, A.nRows, A.nnz(),
        const_cast<int*>(ptr(A.rowStart)), const_cast<int*>(ptr(A.col)), const_cast<double*>(ptr(A.val)),
        CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vx, A.nRows, const_cast<double*>(ptr(x)), CUDA_R_64F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&vy, A.nRows, ptr(y), CUDA_R_64F));
    const double one = 1;
    const double zero = 0;
    std::size_t size = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                           CUDA_R_64F, alg, &size));
    Vec buffer(std::max<std::size_t>(size/8 + 1, 1));
    const double ms = medianMs(50, [&]() {
        CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, mat, vx, &zero, vy,
                                    CUDA_R_64F, alg, ptr(buffer))); });
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    cusparseDestroySpMat(mat);
    cusparseDestroy(h);
    return ms;
}

//- A symmetric LDU problem from a list of (lower, upper) pairs, random coefficients, a
//  dominant diagonal
LduProblem fromPairs(int nCells, std::vector<std::pair<int, int>>& pairs, unsigned seed)
{
    std::sort(pairs.begin(), pairs.end());
    pairs.erase(std::unique(pairs.begin(), pairs.end()), pairs.end());
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> coeff(0.5, 1.5);
    LduProblem p;
    p.nCells = nCells;
    p.diag.assign(nCells, 1.0);
    for (const auto& [l, u] : pairs)
    {
        const double a = coeff(gen);
        p.lower.push_back(l);
        p.upper.push_back(u);
        p.upperCoeffs.push_back(-a);
        p.diag[l] += a;
        p.diag[u] += a;
    }
    return p;
}

//- The stencil of the neighbours within Manhattan distance reach (1: 7 points, 2: 19, 3: 27)
LduProblem stencil(int n, int reach)
{
    std::vector<std::pair<int, int>> pairs;
    auto id = [n](int i, int j, int k) { return i + n*(j + n*k); };
    for (int k = 0; k < n; ++k)
    for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
    for (int dk = -1; dk <= 1; ++dk)
    for (int dj = -1; dj <= 1; ++dj)
    for (int di = -1; di <= 1; ++di)
    {
        const int a = i + di;
        const int b = j + dj;
        const int c = k + dk;
        if (a >= 0 && a < n && b >= 0 && b < n && c >= 0 && c < n && id(a, b, c) > id(i, j, k)
         && std::abs(di) + std::abs(dj) + std::abs(dk) <= reach)
        {
            pairs.push_back({id(i, j, k), id(a, b, c)});
        }
    }
    return fromPairs(n*n*n, pairs, 5);
}

LduProblem irregular(int nRows)
{
    std::mt19937 gen(9);
    std::vector<std::pair<int, int>> pairs;
    std::uniform_int_distribution<int> near(1, 1000);
    std::uniform_int_distribution<int> anywhere(0, nRows - 1);
    for (int i = 0; i < nRows; ++i)
    {
        for (int k = 0; k < 3; ++k)
        {
            const int j = i + near(gen);
            if (j < nRows)
            {
                pairs.push_back({i, j});
            }
        }
        if (i % 100 == 0)
        {
            for (int k = 0; k < 100; ++k)
            {
                const int j = anywhere(gen);
                if (j != i)
                {
                    pairs.push_back({std::min(i, j), std::max(i, j)});
                }
            }
        }
    }
    return fromPairs(nRows, pairs, 7);
}

void benchmark(const std::string& name, const LduProblem& p, double bandwidth)
{
    LduSystemImpl<Gpu> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    const CsrMatrix<Gpu>& A = sys.matrix();
    const RowLengthStats s = sys.rowLengthStats();
    const double bytes = A.nnz()*(8.0 + 4) + A.nRows*(8.0 + 8 + 4);
    const std::vector<double> xh = randomVector(A.nRows, 3);
    const Vec x(xh.begin(), xh.end());
    Vec y(A.nRows);

    std::printf("\n%s: %d rows, %d non-zeros, row lengths %d..%d (mean %.2f, %d rows > 1.5 x mean); auto: %s\n",
                name.c_str(), A.nRows, A.nnz(), s.minLength, s.maxLength, s.meanLength(), s.nLongRows,
                formatName(chooseFormat(s)).c_str());
    std::printf("%-22s %10s %10s %10s %10s %9s %9s %7s\n",
                "format", "slots/nnz", "pattern ms", "values ms", "conv/SpMV", "SpMV ms", "GB/s", "% copy");
    auto row = [&](const std::string& what, double slots, double patternMs, double valuesMs, double ms)
    {
        std::printf("%-22s %10.3f %10.3f %10.3f %10.1f %9.4f %9.1f %7.1f\n", what.c_str(), slots/A.nnz(),
                    patternMs, valuesMs, (patternMs + valuesMs)/ms, ms, bytes/(ms*1e-3)/1e9,
                    100*bytes/(ms*1e-3)/1e12/bandwidth);
    };

    sys.setFormat(MatrixFormat::named("csr"));
    row("csr (one thread/row)", A.nnz(), 0, 0, sys.timeMultiply(50));
    for (MatrixFormat f : {MatrixFormat::named("ell"), MatrixFormat::named("blockedEll"), MatrixFormat::named("hyb"), MatrixFormat::named("hec")})
    {
        // the conversion as setFormat does it: summation order, pattern, values
        Gpu::Vector<int> termCol(A.nnz());
        Gpu::Vector<int> termSrc(A.nnz());
        try
        {
            std::unique_ptr<FormattedPattern<Gpu>> pattern;
            const double patternMs = medianMs(3, [&]() {
                forEach<Gpu>(0, A.nRows, detail::DiagonalFirstTerms{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(termCol), ptr(termSrc)});
                pattern = std::make_unique<FormattedPattern<Gpu>>(f, A.nRows, A.rowStart, termCol, termSrc); });
            typename FormattedPattern<Gpu>::Values v;
            const double valuesMs = medianMs(5, [&]() { pattern->fill(ptr(A.val), v); });
            sys.setFormat(f);
            row(formatName(f), pattern->slots(), patternMs, valuesMs, sys.timeMultiply(50));
        }
        catch (const Error& e)
        {
            std::printf("%-22s refused: %s\n", formatName(f).c_str(), e.what());
        }
    }
    row("cuSPARSE CSR default", A.nnz(), 0, 0, cusparseMs(A, x, y, CUSPARSE_SPMV_ALG_DEFAULT));
    row("cuSPARSE CSR alg2", A.nnz(), 0, 0, cusparseMs(A, x, y, CUSPARSE_SPMV_CSR_ALG2));
}

std::vector<std::string> matrixFiles(const std::string& dir)
{
    std::vector<std::string> files;
    if (DIR* d = opendir(dir.c_str()))
    {
        while (const dirent* e = readdir(d))
        {
            const std::string name = e->d_name;
            if (name.find(".mtx") != std::string::npos)
            {
                files.push_back(name);
            }
        }
        closedir(d);
    }
    std::sort(files.begin(), files.end());
    return files;
}

} // namespace

int main(int argc, char** argv)
{
    const std::string dataDir = argc > 1 ? argv[1] : GPULDU_TEST_DATA_DIR;
    std::vector<int> sizes;
    for (int a = 2; a < argc; ++a)
    {
        sizes.push_back(std::atoi(argv[a]));
    }
    if (sizes.empty())
    {
        sizes = {100, 200};
    }
    try
    {
        const double bandwidth = bench::copyBandwidth<Gpu>();
        std::printf("gpuLduFormatBench: device copy bandwidth %.2f TB/s (read + write)\n", bandwidth);
        for (int n : sizes)
        {
            benchmark("cavity pressure " + std::to_string(n) + "^3", poisson3D(n, n, n, 1, -1), bandwidth);
        }
        benchmark("19-point stencil 100^3 (generated)", stencil(100, 2), bandwidth);
        benchmark("27-point stencil 100^3 (generated)", stencil(100, 3), bandwidth);
        benchmark("irregular 2M rows (generated)", irregular(2000000), bandwidth);
        for (const std::string& file : matrixFiles(dataDir))
        {
            benchmark(file, test::readMatrixMarket(dataDir + "/" + file), bandwidth);
        }
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "gpuLduFormatBench: %s\n", e.what());
        return 1;
    }
    return 0;
}
