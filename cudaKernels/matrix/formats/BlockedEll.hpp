// SPDX-License-Identifier: GPL-3.0-or-later
// The blockedEll format: ELLPACK per slice of 32 rows (one warp), each slice padded to its own
// longest row, slot k of row i at sliceStart[i/32] + i%32 + 32k; no tail.

#ifndef GPULDU_FORMATS_BLOCKEDELL_HPP
#define GPULDU_FORMATS_BLOCKEDELL_HPP

#include "matrix/formats/FormatShape.hpp"

#include <thrust/functional.h>
#include <thrust/scan.h>

namespace gpuLdu
{
namespace formats
{

struct BlockedEll
{
    static constexpr Variant variants[] = {{"blockedEll", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::converted;

    struct SliceOf
    {
        GPULDU_HD int operator()(int i) const
        {
            return i/32;
        }
    };

    struct Times32
    {
        GPULDU_HD int operator()(int w) const
        {
            return 32*w;
        }
    };

    //- Slice widths: the longest row of each 32 (a keyed max-reduction), offsets by a scan
    template<class B>
    static EllShape<B> shape(const PatternRows<B>& rows)
    {
        const int nRows = rows.nRows;
        const int nSlices = (nRows + 31)/32;
        typename B::template Vector<int> sliceIds(nSlices);
        typename B::template Vector<int> sliceWidth(nSlices);
        const auto slice = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), SliceOf());
        const auto len = thrust::make_transform_iterator(thrust::counting_iterator<int>(0), detail::RowLength{ptr(rows.rowStart)});
        thrust::reduce_by_key(B::policy(), slice, slice + nRows, len, sliceIds.begin(), sliceWidth.begin(),
                              thrust::equal_to<int>(), thrust::maximum<int>());
        EllShape<B> shape;
        shape.sliceStart.assign(nSlices + 1, 0);
        const auto slots = thrust::make_transform_iterator(sliceWidth.begin(), Times32());
        thrust::inclusive_scan(B::policy(), slots, slots + nSlices, shape.sliceStart.begin() + 1);
        return shape;
    }
};

} // namespace formats
} // namespace gpuLdu

#endif
