// SPDX-License-Identifier: GPL-3.0-or-later
// The rule behind matrixFormat auto.

#include "gpuLdu/gpuLdu.hpp"

namespace gpuLdu
{

MatrixFormat chooseFormat(const RowLengthStats& s)
{
    // Every format sums a row in one thread, in a fixed order, so the formats differ only in
    // memory layout. ELLPACK's coalesced slots pay off once the matrix no longer fits in L2 and
    // its rows are even (then the padding is small); on uneven rows padding costs more than it
    // saves, and within L2 csr is as fast or faster (docs/performance.md, sparse formats).
    const bool evenRows = s.maxLength <= 1.5*s.meanLength();
    const bool beyondL2 = s.nnz >= 4000000;
    return evenRows && beyondL2 ? MatrixFormat::ell : MatrixFormat::csr;
}

} // namespace gpuLdu
