// SPDX-License-Identifier: GPL-3.0-or-later
// The baseline of the seed papers: PCG with cuSPARSE's incomplete Cholesky IC(0) (csric02) and
// its triangular solves (SpSV), on the n^3 Laplacian of gpuLduBench, against PCGGPU+DIC on the
// same matrix in the same run. Both stop on OpenFOAM's residual (sum |r| / normFactor, the same
// normFactor) at the same tolerance. Usage: gpuLduCusparseBaseline [n] [tolerance]

#include "benchSupport.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <utility>
#include <vector>

using namespace gpuLdu;
using namespace gpuLdu::test;

using Vec = GpuBackend::Vector<double>;
using IVec = GpuBackend::Vector<int>;

namespace
{

double seconds(std::chrono::steady_clock::time_point start)
{
    GpuBackend::synchronize();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct AxpyPair  // x += a*p; r -= a*q; returns |r|
{
    const double* p;
    const double* q;
    double* x;
    double* r;
    double a;

    __host__ __device__ double operator()(int i) const
    {
        x[i] += a*p[i];
        r[i] -= a*q[i];
        return r[i] < 0 ? -r[i] : r[i];
    }
};

struct Direction  // p = z + beta*p
{
    const double* z;
    double* p;
    double beta;
    bool first;

    __host__ __device__ void operator()(int i) const
    {
        p[i] = first ? z[i] : z[i] + beta*p[i];
    }
};

//- A triangular solve with a factor stored in CSR: lower (L y = x) or, transposed, L^T
class TriangularSolve
{
    cusparseSpSVDescr_t descr_ = nullptr;
    void* buffer_ = nullptr;
    cusparseOperation_t op_;

public:
    double analysisSeconds = 0;

    TriangularSolve(cusparseHandle_t h, cusparseSpMatDescr_t L, cusparseDnVecDescr_t x,
                    cusparseDnVecDescr_t y, cusparseOperation_t op)
    :
        op_(op)
    {
        const double one = 1;
        std::size_t size = 0;
        CUSPARSE_CHECK(cusparseSpSV_createDescr(&descr_));
        CUSPARSE_CHECK(cusparseSpSV_bufferSize(h, op_, &one, L, x, y, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr_, &size));
        GPULDU_CUDA_CHECK(cudaMalloc(&buffer_, std::max<std::size_t>(size, 8)));
        const auto start = std::chrono::steady_clock::now();
        CUSPARSE_CHECK(cusparseSpSV_analysis(h, op_, &one, L, x, y, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr_, buffer_));
        analysisSeconds = seconds(start);
    }

    ~TriangularSolve()
    {
        cusparseSpSV_destroyDescr(descr_);
        cudaFree(buffer_);
    }

    void solve(cusparseHandle_t h, cusparseSpMatDescr_t L, cusparseDnVecDescr_t x, cusparseDnVecDescr_t y)
    {
        const double one = 1;
        CUSPARSE_CHECK(cusparseSpSV_solve(h, op_, &one, L, x, y, CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, descr_));
    }
};

//- PCGGPU + DIC through the core, twice (the second builds nothing new: the first is the
//  warm-up); the second solve's result and its seconds (upload, set-up, iterations)
struct OursTimed
{
    SolveResult result;
    double seconds = 0;
};

OursTimed solveOurs(LduSystemImpl<GpuBackend>& sys, const LduProblem& p, const std::vector<double>& b,
                    const SolverControls& c)
{
    OursTimed ours;
    for (int rep = 0; rep < 2; ++rep)
    {
        std::vector<double> psi(p.nCells, 0.0);
        const auto start = std::chrono::steady_clock::now();
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
        ours.result = sys.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), Coupling());
        ours.seconds = seconds(start);
    }
    return ours;
}

//- cuSPARSE's IC(0) of a CSR matrix (csric02, the lower triangle of lu factorised in place),
//  its analysis and factorisation timed
class Ic0Factor
{
    cusparseMatDescr_t descr_ = nullptr;
    csric02Info_t info_ = nullptr;
    void* buffer_ = nullptr;

public:
    Vec lu;
    double analysisSeconds = 0;
    double factorSeconds = 0;

    Ic0Factor(cusparseHandle_t h, const CsrMatrix<GpuBackend>& A)
    :
        lu(A.val)
    {
        const int rows = A.nRows, nnz = A.nnz();
        CUSPARSE_CHECK(cusparseCreateMatDescr(&descr_));
        CUSPARSE_CHECK(cusparseSetMatIndexBase(descr_, CUSPARSE_INDEX_BASE_ZERO));
        CUSPARSE_CHECK(cusparseSetMatType(descr_, CUSPARSE_MATRIX_TYPE_GENERAL));
        CUSPARSE_CHECK(cusparseCreateCsric02Info(&info_));
        int bufferSize = 0;
        CUSPARSE_CHECK(cusparseDcsric02_bufferSize(h, rows, nnz, descr_, ptr(lu), ptr(A.rowStart), ptr(A.col), info_, &bufferSize));
        GPULDU_CUDA_CHECK(cudaMalloc(&buffer_, std::max(bufferSize, 8)));
        auto start = std::chrono::steady_clock::now();
        CUSPARSE_CHECK(cusparseDcsric02_analysis(h, rows, nnz, descr_, ptr(lu), ptr(A.rowStart), ptr(A.col), info_,
                                                 CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
        analysisSeconds = seconds(start);
        start = std::chrono::steady_clock::now();
        CUSPARSE_CHECK(cusparseDcsric02(h, rows, nnz, descr_, ptr(lu), ptr(A.rowStart), ptr(A.col), info_,
                                        CUSPARSE_SOLVE_POLICY_USE_LEVEL, buffer_));
        factorSeconds = seconds(start);
    }

    ~Ic0Factor()
    {
        cudaFree(buffer_);
        cusparseDestroyCsric02Info(info_);
        cusparseDestroyMatDescr(descr_);
    }
};

//- PCG with cuSPARSE alone: A x by SpMV, the preconditioner z = (L L^T)^-1 r by two SpSV
//  triangular solves of the IC(0) factor L; the vectors and descriptors it works on
class CusparsePcg
{
    cusparseHandle_t h_;
    const int rows_;
    IVec rowStart_, col_;
    Vec val_;
    cusparseSpMatDescr_t matA_ = nullptr, matL_ = nullptr;
    cusparseDnVecDescr_t vR_ = nullptr, vY_ = nullptr, vZ_ = nullptr, vP_ = nullptr, vQ_ = nullptr;
    void* spmvBuffer_ = nullptr;
    std::unique_ptr<TriangularSolve> solveL_, solveLT_;

public:
    Vec x, r, z, y, p, q;
    double solveLSeconds = 0;

    //- The analyses of the two triangular solves
    double analysisSeconds() const
    {
        return solveL_->analysisSeconds + solveLT_->analysisSeconds;
    }

    CusparsePcg(cusparseHandle_t h, const CsrMatrix<GpuBackend>& A, Vec& lu)
    :
        h_(h), rows_(A.nRows), rowStart_(A.rowStart), col_(A.col), val_(A.val),
        x(rows_, 0.0), r(rows_), z(rows_), y(rows_), p(rows_), q(rows_)
    {
        CUSPARSE_CHECK(cusparseCreateCsr(&matA_, rows_, rows_, A.nnz(), ptr(rowStart_), ptr(col_), ptr(val_),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateCsr(&matL_, rows_, rows_, A.nnz(), ptr(rowStart_), ptr(col_), ptr(lu),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER;
        cusparseDiagType_t nonUnit = CUSPARSE_DIAG_TYPE_NON_UNIT;
        CUSPARSE_CHECK(cusparseSpMatSetAttribute(matL_, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof(lower)));
        CUSPARSE_CHECK(cusparseSpMatSetAttribute(matL_, CUSPARSE_SPMAT_DIAG_TYPE, &nonUnit, sizeof(nonUnit)));
        for (auto [descr, v] : {std::pair{&vR_, &r}, std::pair{&vY_, &y}, std::pair{&vZ_, &z}, std::pair{&vP_, &p},
                                std::pair{&vQ_, &q}})
        {
            CUSPARSE_CHECK(cusparseCreateDnVec(descr, rows_, ptr(*v), CUDA_R_64F));
        }
        solveL_ = std::make_unique<TriangularSolve>(h, matL_, vR_, vY_, CUSPARSE_OPERATION_NON_TRANSPOSE);
        solveLT_ = std::make_unique<TriangularSolve>(h, matL_, vY_, vZ_, CUSPARSE_OPERATION_TRANSPOSE);
        const double one = 1;
        const double zero = 0;
        std::size_t spmvSize = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA_, vP_, &zero, vQ_,
                                               CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &spmvSize));
        GPULDU_CUDA_CHECK(cudaMalloc(&spmvBuffer_, std::max<std::size_t>(spmvSize, 8)));
    }

    ~CusparsePcg()
    {
        solveL_.reset();
        solveLT_.reset();
        cudaFree(spmvBuffer_);
        cusparseDestroySpMat(matA_);
        cusparseDestroySpMat(matL_);
        for (auto v : {vR_, vY_, vZ_, vP_, vQ_})
        {
            cusparseDestroyDnVec(v);
        }
    }

    //- PCG from x = 0 with OpenFOAM's normalised residual (normFactor as in the core: the same
    //  formula; with psi = 0 it is sum |b| + 1e-20); returns the iterations
    int solve(const std::vector<double>& b, double tolerance, int maxIter)
    {
        const Vec bd(b.begin(), b.end());
        GpuBackend::Workspace ws;
        ws.setParts({0, rows_}, {0}, 1);
        // a sum as the core's solves take it (one part), brought to the host
        const auto sum = [&ws](int, const auto& f)
        {
            constexpr int slot = GpuBackend::Workspace::hostScalar;
            ws.sumParts(f, slot);
            double s = 0;
            ws.fetch(slot, 1, &s);
            return s;
        };
        const double normFactor = sum(rows_, detail::SumMag{ptr(bd)}) + 1e-20;
        thrust::copy(bd.begin(), bd.end(), r.begin());
        int iterations = 0;
        double residual = sum(rows_, detail::SumMag{ptr(r)})/normFactor;
        double rz = 1e20;
        const double one = 1;
        const double zero = 0;
        while (residual >= tolerance && iterations < maxIter)
        {
            const auto t0 = std::chrono::steady_clock::now();
            solveL_->solve(h_, matL_, vR_, vY_);
            solveLT_->solve(h_, matL_, vY_, vZ_);
            solveLSeconds += seconds(t0);
            const double rzOld = rz;
            rz = sum(rows_, detail::Dot{ptr(r), ptr(z)});
            forEach<GpuBackend>(0, rows_, Direction{ptr(z), ptr(p), iterations == 0 ? 0 : rz/rzOld, iterations == 0});
            CUSPARSE_CHECK(cusparseSpMV(h_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA_, vP_, &zero, vQ_,
                                        CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, spmvBuffer_));
            const double alpha = rz/sum(rows_, detail::Dot{ptr(p), ptr(q)});
            residual = sum(rows_, AxpyPair{ptr(p), ptr(q), ptr(x), ptr(r), alpha})/normFactor;
            ++iterations;
        }
        return iterations;
    }
};

//- The table of the two solves side by side
void printComparison(int n, int rows, double tolerance, const OursTimed& ours, const Ic0Factor& ic,
                     const CusparsePcg& pcg, int iterations, double cgSeconds)
{
    const double setup = ic.analysisSeconds + ic.factorSeconds + pcg.analysisSeconds();
    const double cusparseSolve = setup + cgSeconds;
    std::printf("IC(0)/DIC-PCG on the %d^3 Laplacian (%d rows), tolerance %g (OpenFOAM's normalised residual)\n",
                n, rows, tolerance);
    std::printf("%-40s %12s %12s\n", "", "PCGGPU+DIC", "cuSPARSE IC0");
    std::printf("%-40s %12d %12d\n", "iterations", ours.result.nIterations, iterations);
    std::printf("%-40s %12.3f %12.3f\n", "ms per iteration", 1e3*ours.result.times.iterate/ours.result.nIterations,
                1e3*cgSeconds/iterations);
    std::printf("%-40s %12s %12.3f\n", "ms per preconditioner apply (L, L^T)", "-", 1e3*pcg.solveLSeconds/iterations);
    std::printf("%-40s %12.3f %12.3f\n", "ms set-up (factor; cuSPARSE + analyses)", 1e3*ours.result.times.setup,
                1e3*setup);
    std::printf("%-40s %12.3f %12.3f\n", "ms per solve (upload, set-up, iterations)", 1e3*ours.seconds, 1e3*cusparseSolve);
    std::printf("%-40s %12s %12.2f\n", "cuSPARSE time / PCGGPU time per solve", "", cusparseSolve/ours.seconds);
    std::printf("%-40s %12s %12.2f\n", "same, without cuSPARSE's analyses", "",
                (ic.factorSeconds + cgSeconds)/ours.seconds);
}

} // namespace

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 100;
    const double tolerance = argc > 2 ? std::atof(argv[2]) : 1e-6;
    try
    {
        // SPD form (diag > 0): IC(0) needs positive pivots; OpenFOAM's DIC works either way
        const LduProblem p = poisson3D(n, n, n, 1, 1);
        const std::vector<double> b = referenceSource(p);
        SolverControls c;
        c.tolerance = tolerance;
        c.maxIter = 5000;
        LduSystemImpl<GpuBackend> sys(p.addressing());
        const OursTimed ours = solveOurs(sys, p, b, c);

        // cuSPARSE: the same CSR matrix, its lower triangle factorised by csric02
        cusparseHandle_t h;
        CUSPARSE_CHECK(cusparseCreate(&h));
        {
            Ic0Factor ic(h, sys.matrix());
            CusparsePcg pcg(h, sys.matrix(), ic.lu);
            const auto start = std::chrono::steady_clock::now();
            const int iterations = pcg.solve(b, tolerance, c.maxIter);
            const double cgSeconds = seconds(start);
            printComparison(n, p.nCells, tolerance, ours, ic, pcg, iterations, cgSeconds);
        }
        cusparseDestroy(h);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "gpuLduCusparseBaseline: %s\n", e.what());
        return 1;
    }
    return 0;
}
