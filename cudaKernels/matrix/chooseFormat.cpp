// SPDX-License-Identifier: GPL-3.0-or-later
// The rule behind matrixFormat auto.

#include "gpuLdu/gpuLdu.hpp"

namespace gpuLdu
{

MatrixFormat chooseFormat(const RowLengthStats& s)
{
    // Measured (docs/performance.md, "Sparse formats"): every format sums a row in one thread,
    // in a fixed order, so the formats differ only in memory layout. ELLPACK's coalesced slots
    // pay off once the matrix is beyond L2 and its rows are even: OpenFOAM's 8M-cell pressure
    // matrix 1.6x faster than csr on the H100 (3% slower on the H200), 1M cells 2-4% faster,
    // 19- and 27-point stencils 2-3.3x. On uneven rows padding costs more than it saves, and in
    // L2 csr is as fast or faster.
    const bool evenRows = s.maxLength <= 1.5*s.meanLength();
    const bool beyondL2 = s.nnz >= 4000000;
    return evenRows && beyondL2 ? MatrixFormat::ell : MatrixFormat::csr;
}

} // namespace gpuLdu
