// SPDX-License-Identifier: GPL-3.0-or-later
// The host backend's dense blocks through the BLAS (CBLAS interface; Debian: libblas-dev, or any
// BLAS that provides cblas_*), and its memory.

#include "backend/cpu/CpuBackend.hpp"

#include <cblas.h>
#include <unistd.h>

#include <algorithm>

namespace gpuLdu
{

void CpuBackend::subtractProductNT(int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                                   double* C, int ldc, bool lowerOnly)
{
    if (!lowerOnly)
    {
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m, n, k, -1.0, A, lda, B, ldb, 1.0, C, ldc);
        return;
    }
    // CBLAS has no syrkx: by column blocks, the block's diagonal part entry by entry (only its
    // lower triangle: the rest of C must stay as it was), the part below it by dgemm
    constexpr int block = 64;
    for (int j = 0; j < n; j += block)
    {
        const int w = std::min(block, n - j);
        for (int c = j; c < j + w; ++c)
        {
            for (int r = c; r < j + w; ++r)
            {
                double sum = 0;
                for (int q = 0; q < k; ++q)
                {
                    sum += A[r + long(q)*lda]*B[c + long(q)*ldb];
                }
                C[r + long(c)*ldc] -= sum;
            }
        }
        if (m - j - w > 0)
        {
            cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m - j - w, w, k, -1.0, A + j + w, lda, B + j, ldb,
                        1.0, C + long(j)*ldc + j + w, ldc);
        }
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

double CpuBackend::availableMemory()
{
    // the machine's memory: Linux counts its page cache as used, so "free" would refuse
    // factors that fit
    return double(sysconf(_SC_PHYS_PAGES))*double(sysconf(_SC_PAGESIZE));
}

} // namespace gpuLdu
