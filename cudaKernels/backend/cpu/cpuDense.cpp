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
    // CBLAS has no syrkx: the lower triangle by column blocks, each from its diagonal down
    constexpr int block = 64;
    for (int j = 0; j < n; j += block)
    {
        const int w = std::min(block, n - j);
        cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, m - j, w, k, -1.0, A + j, lda, B + j, ldb, 1.0,
                    C + long(j)*ldc + j, ldc);
    }
}

void CpuBackend::solveUnitLowerTransposedRight(int m, int n, const double* L, int ldl, double* X, int ldx)
{
    cblas_dtrsm(CblasColMajor, CblasRight, CblasLower, CblasTrans, CblasUnit, m, n, 1.0, L, ldl, X, ldx);
}

double CpuBackend::availableMemory()
{
    return double(sysconf(_SC_AVPHYS_PAGES))*double(sysconf(_SC_PAGESIZE));
}

} // namespace gpuLdu
