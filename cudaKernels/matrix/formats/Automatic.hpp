// SPDX-License-Identifier: GPL-3.0-or-later
// matrixFormat auto: the format chosen per matrix from its row-length statistics
// (chooseFormat), never stored itself.

#ifndef GPULDU_FORMATS_AUTOMATIC_HPP
#define GPULDU_FORMATS_AUTOMATIC_HPP

#include "matrix/formats/Csr.hpp"
#include "matrix/formats/Ell.hpp"

namespace gpuLdu
{
namespace formats
{

struct Automatic
{
    static constexpr Variant variants[] = {{"auto", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::chosen;

    //- The entry whose format auto takes for a matrix of these row lengths: f(Ell()) or
    //  f(Csr()). Every format sums a row in one thread, in a fixed order, so the formats differ
    //  only in memory layout. ELLPACK's coalesced slots pay off once the matrix no longer fits
    //  in L2 and its rows are even (then the padding is small); on uneven rows padding costs
    //  more than it saves, and within L2 csr is as fast or faster (docs/performance.md, sparse
    //  formats).
    template<class F>
    static void choose(const RowLengthStats& s, const F& f)
    {
        const bool evenRows = s.maxLength <= 1.5*s.meanLength();
        const bool beyondL2 = s.nnz >= 4000000;
        if (evenRows && beyondL2)
        {
            f(Ell());
        }
        else
        {
            f(Csr());
        }
    }
};

} // namespace formats
} // namespace gpuLdu

#endif
