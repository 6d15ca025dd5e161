// SPDX-License-Identifier: GPL-3.0-or-later
// The baseline of the seed papers: PCG with cuSPARSE's incomplete Cholesky IC(0) (csric02) and
// its triangular solves (SpSV), on the n^3 Laplacian of gpuLduBench, against PCGGPU+DIC on the
// same matrix in the same run. Both stop on OpenFOAM's residual (sum |r| / normFactor, the same
// normFactor) at the same tolerance. Usage: gpuLduCusparseBaseline [n] [tolerance]

#include "benchSupport.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>

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

} // namespace

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 100;
    const double tolerance = argc > 2 ? std::atof(argv[2]) : 1e-6;
    try
    {
        // SPD form (diag > 0): IC(0) needs positive pivots; OpenFOAM's DIC works either way
        const LduProblem p = poisson3D(n, n, n, 1, 1);
        const int rows = p.nCells;
        const std::vector<double> b = referenceSource(p);
        SolverControls c;
        c.tolerance = tolerance;
        c.maxIter = 5000;

        // ours: PCGGPU + DIC through the core, twice (the first builds nothing new: warm-up)
        LduSystemImpl<GpuBackend> sys(p.addressing());
        SolveResult ours;
        double oursSeconds = 0;
        for (int rep = 0; rep < 2; ++rep)
        {
            std::vector<double> psi(rows, 0.0);
            const auto start = std::chrono::steady_clock::now();
            sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
            ours = sys.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), Coupling());
            oursSeconds = seconds(start);
        }

        // cuSPARSE: the same CSR matrix, its lower triangle factorised by csric02
        const auto& A = sys.matrix();
        const int nnz = A.nnz();
        Vec lu(A.val);
        cusparseHandle_t h;
        CUSPARSE_CHECK(cusparseCreate(&h));
        cusparseMatDescr_t descrM;
        CUSPARSE_CHECK(cusparseCreateMatDescr(&descrM));
        CUSPARSE_CHECK(cusparseSetMatIndexBase(descrM, CUSPARSE_INDEX_BASE_ZERO));
        CUSPARSE_CHECK(cusparseSetMatType(descrM, CUSPARSE_MATRIX_TYPE_GENERAL));
        csric02Info_t info;
        CUSPARSE_CHECK(cusparseCreateCsric02Info(&info));
        int bufferSize = 0;
        CUSPARSE_CHECK(cusparseDcsric02_bufferSize(h, rows, nnz, descrM, ptr(lu), ptr(A.rowStart), ptr(A.col), info, &bufferSize));
        void* icBuffer = nullptr;
        GPULDU_CUDA_CHECK(cudaMalloc(&icBuffer, std::max(bufferSize, 8)));
        auto start = std::chrono::steady_clock::now();
        CUSPARSE_CHECK(cusparseDcsric02_analysis(h, rows, nnz, descrM, ptr(lu), ptr(A.rowStart), ptr(A.col), info,
                                                 CUSPARSE_SOLVE_POLICY_USE_LEVEL, icBuffer));
        const double icAnalysis = seconds(start);
        start = std::chrono::steady_clock::now();
        CUSPARSE_CHECK(cusparseDcsric02(h, rows, nnz, descrM, ptr(lu), ptr(A.rowStart), ptr(A.col), info,
                                        CUSPARSE_SOLVE_POLICY_USE_LEVEL, icBuffer));
        const double icFactor = seconds(start);

        Vec x(rows, 0.0), r(rows), z(rows), y(rows), pv(rows), q(rows), bd(b.begin(), b.end());
        IVec rowStart(A.rowStart), col(A.col);
        Vec val(A.val);
        cusparseSpMatDescr_t matA, matL;
        CUSPARSE_CHECK(cusparseCreateCsr(&matA, rows, rows, nnz, ptr(rowStart), ptr(col), ptr(val),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateCsr(&matL, rows, rows, nnz, ptr(rowStart), ptr(col), ptr(lu),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
        cusparseFillMode_t lower = CUSPARSE_FILL_MODE_LOWER;
        cusparseDiagType_t nonUnit = CUSPARSE_DIAG_TYPE_NON_UNIT;
        CUSPARSE_CHECK(cusparseSpMatSetAttribute(matL, CUSPARSE_SPMAT_FILL_MODE, &lower, sizeof(lower)));
        CUSPARSE_CHECK(cusparseSpMatSetAttribute(matL, CUSPARSE_SPMAT_DIAG_TYPE, &nonUnit, sizeof(nonUnit)));
        cusparseDnVecDescr_t vR, vY, vZ, vP, vQ;
        CUSPARSE_CHECK(cusparseCreateDnVec(&vR, rows, ptr(r), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vY, rows, ptr(y), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vZ, rows, ptr(z), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vP, rows, ptr(pv), CUDA_R_64F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&vQ, rows, ptr(q), CUDA_R_64F));
        TriangularSolve solveL(h, matL, vR, vY, CUSPARSE_OPERATION_NON_TRANSPOSE);
        TriangularSolve solveLT(h, matL, vY, vZ, CUSPARSE_OPERATION_TRANSPOSE);
        const double one = 1;
        const double zero = 0;
        std::size_t spmvSize = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, vP, &zero, vQ,
                                               CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &spmvSize));
        void* spmvBuffer = nullptr;
        GPULDU_CUDA_CHECK(cudaMalloc(&spmvBuffer, std::max<std::size_t>(spmvSize, 8)));

        // PCG from x = 0 with OpenFOAM's normalised residual (normFactor as in the core: the
        // same formula; with psi = 0 it is sum |b| + 1e-20)
        GpuBackend::Workspace ws;
        double normFactor = ws.sum(rows, detail::SumMag{ptr(bd)}) + 1e-20;
        thrust::copy(bd.begin(), bd.end(), r.begin());
        int iterations = 0;
        double residual = ws.sum(rows, detail::SumMag{ptr(r)})/normFactor;
        double solveLSeconds = 0;
        start = std::chrono::steady_clock::now();
        double rz = 1e20;
        while (residual >= tolerance && iterations < c.maxIter)
        {
            const auto t0 = std::chrono::steady_clock::now();
            solveL.solve(h, matL, vR, vY);
            solveLT.solve(h, matL, vY, vZ);
            solveLSeconds += seconds(t0);
            const double rzOld = rz;
            rz = ws.sum(rows, detail::Dot{ptr(r), ptr(z)});
            forEach<GpuBackend>(0, rows, Direction{ptr(z), ptr(pv), iterations == 0 ? 0 : rz/rzOld, iterations == 0});
            CUSPARSE_CHECK(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matA, vP, &zero, vQ,
                                        CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, spmvBuffer));
            const double alpha = rz/ws.sum(rows, detail::Dot{ptr(pv), ptr(q)});
            residual = ws.sum(rows, AxpyPair{ptr(pv), ptr(q), ptr(x), ptr(r), alpha})/normFactor;
            ++iterations;
        }
        const double cgSeconds = seconds(start);
        const double cusparseSolve = icAnalysis + icFactor + solveL.analysisSeconds + solveLT.analysisSeconds + cgSeconds;

        std::printf("IC(0)/DIC-PCG on the %d^3 Laplacian (%d rows), tolerance %g (OpenFOAM's normalised residual)\n",
                    n, rows, tolerance);
        std::printf("%-40s %12s %12s\n", "", "PCGGPU+DIC", "cuSPARSE IC0");
        std::printf("%-40s %12d %12d\n", "iterations", ours.nIterations, iterations);
        std::printf("%-40s %12.3f %12.3f\n", "ms per iteration", 1e3*ours.iterateSeconds/ours.nIterations,
                    1e3*cgSeconds/iterations);
        std::printf("%-40s %12s %12.3f\n", "ms per preconditioner apply (L, L^T)", "-", 1e3*solveLSeconds/iterations);
        std::printf("%-40s %12.3f %12.3f\n", "ms set-up (factor; cuSPARSE + analyses)", 1e3*ours.setupSeconds,
                    1e3*(icAnalysis + icFactor + solveL.analysisSeconds + solveLT.analysisSeconds));
        std::printf("%-40s %12.3f %12.3f\n", "ms per solve (upload, set-up, iterations)", 1e3*oursSeconds, 1e3*cusparseSolve);
        std::printf("%-40s %12s %12.2f\n", "cuSPARSE time / PCGGPU time per solve", "", cusparseSolve/oursSeconds);
        std::printf("%-40s %12s %12.2f\n", "same, without cuSPARSE's analyses", "", (icFactor + cgSeconds)/oursSeconds);

        cudaFree(spmvBuffer);
        cudaFree(icBuffer);
        cusparseDestroyCsric02Info(info);
        cusparseDestroyMatDescr(descrM);
        cusparseDestroySpMat(matA);
        cusparseDestroySpMat(matL);
        for (auto v : {vR, vY, vZ, vP, vQ})
        {
            cusparseDestroyDnVec(v);
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
