// SPDX-License-Identifier: GPL-3.0-or-later
// The host backend's dense blocks through the BLAS (CBLAS interface; Debian: libblas-dev, or any
// BLAS that provides cblas_*), and its memory.

#include "backend/cpu/CpuBackend.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>

namespace gpuLdu
{

namespace
{

//- C -= A B^T on C's lower triangle only (CBLAS has no syrkx): by column blocks, the block's
//  diagonal part entry by entry (only its lower triangle: the rest of C must stay as it was),
//  the part below it by gemm
template<class T, class Gemm>
void subtractLowerProduct(int n, int k, const T* A, int lda, const T* B, int ldb, T* C, int ldc, Gemm gemm)
{
    constexpr int block = 64;
    for (int j = 0; j < n; j += block)
    {
        const int w = std::min(block, n - j);
        for (int c = j; c < j + w; ++c)
        {
            for (int r = c; r < j + w; ++r)
            {
                T sum = 0;
                for (int q = 0; q < k; ++q)
                {
                    sum += A[r + long(q)*lda]*B[c + long(q)*ldb];
                }
                C[r + long(c)*ldc] -= sum;
            }
        }
        if (n - j - w > 0)
        {
            gemm(n - j - w, w, k, A + j + w, B + j, C + long(j)*ldc + j + w);
        }
    }
}

} // namespace


void CpuBackend::subtractProductNT(int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                                   double* C, int ldc, bool lowerOnly)
{
    const auto gemm = [=](int gm, int gn, int gk, const double* a, const double* b, double* c)
    {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, gm, gn, gk, -1.0, a, lda, b, ldb, 1.0, c, ldc);
    };
    if (lowerOnly)
    {
        subtractLowerProduct(n, k, A, lda, B, ldb, C, ldc, gemm);
    }
    else
    {
        gemm(m, n, k, A, B, C);
    }
}

void CpuBackend::solveUnitLowerTransposedRight(int m, int n, const double* L, int ldl, double* X, int ldx)
{
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m, n, 1.0, L, ldl, X, ldx);
}

void CpuBackend::solveUnitLowerVector(int n, const double* L, int ldl, double* x, bool transposed)
{
    cblas_dtrsv(CblasColMajor, CblasLower, transposed ? CblasTrans : CblasNoTrans, CblasUnit, n, L, ldl, x, 1);
}

void CpuBackend::subtractMatrixVector(int m, int n, const double* A, int lda, const double* x, double* y,
                                      bool transposed)
{
    cblas_dgemv(CblasColMajor, transposed ? CblasTrans : CblasNoTrans, m, n, -1.0, A, lda, x, 1, 1.0, y, 1);
}

// Complex: the z routines with CblasTrans (the transpose, not the conjugate transpose)
namespace
{
const CpuBackend::StdComplex minusOne(-1.0, 0.0), one(1.0, 0.0);
}

void CpuBackend::subtractProductNT(int m, int n, int k, const StdComplex* A, int lda, const StdComplex* B, int ldb,
                                   StdComplex* C, int ldc, bool lowerOnly)
{
    const auto gemm = [=](int gm, int gn, int gk, const StdComplex* a, const StdComplex* b, StdComplex* c)
    {
        cblas_zgemm(CblasColMajor, CblasNoTrans, CblasTrans, gm, gn, gk, &minusOne, a, lda, b, ldb, &one, c, ldc);
    };
    if (lowerOnly)
    {
        subtractLowerProduct(n, k, A, lda, B, ldb, C, ldc, gemm);
    }
    else
    {
        gemm(m, n, k, A, B, C);
    }
}

void CpuBackend::solveUnitLowerTransposedRight(int m, int n, const StdComplex* L, int ldl, StdComplex* X, int ldx)
{
    cblas_ztrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m, n, &one, L, ldl, X, ldx);
}

void CpuBackend::solveUnitLowerVector(int n, const StdComplex* L, int ldl, StdComplex* x, bool transposed)
{
    cblas_ztrsv(CblasColMajor, CblasLower, transposed ? CblasTrans : CblasNoTrans, CblasUnit, n, L, ldl, x, 1);
}

void CpuBackend::subtractMatrixVector(int m, int n, const StdComplex* A, int lda, const StdComplex* x, StdComplex* y,
                                      bool transposed)
{
    cblas_zgemv(CblasColMajor, transposed ? CblasTrans : CblasNoTrans, m, n, &minusOne, A, lda, x, 1, &one, y, 1);
}

double CpuBackend::availableMemory()
{
    // the machine's memory: Linux counts its page cache as used, so "free" would refuse
    // factors that fit
    return double(sysconf(_SC_PHYS_PAGES))*double(sysconf(_SC_PAGESIZE));
}

} // namespace gpuLdu
