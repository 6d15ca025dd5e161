// SPDX-License-Identifier: GPL-3.0-or-later
// The hyb format (Bell and Garland's HYB): ELLPACK of width K, the largest K with at least a
// third of the rows K or more long, the rest of the longer rows in row-sorted COO (a row's run
// found by binary search when its ELL slots are full).

#ifndef GPULDU_FORMATS_HYB_HPP
#define GPULDU_FORMATS_HYB_HPP

#include "matrix/formats/FormatShape.hpp"

#include <vector>

namespace gpuLdu
{
namespace formats
{

struct Hyb
{
    static constexpr Variant variants[] = {{"hyb", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::converted;

    //- K from the number of rows at least k long, atLeast[k], k = 0..max
    static int width(const std::vector<int>& atLeast)
    {
        const int nRows = atLeast.empty() ? 0 : atLeast[0];
        int K = 0;
        for (int k = 1; k < int(atLeast.size()); ++k)
        {
            if (3L*atLeast[k] >= nRows)
            {
                K = k;
            }
        }
        return K;
    }

    template<class B>
    static EllShape<B> shape(const PatternRows<B>& rows)
    {
        EllShape<B> shape;
        shape.width = width(rows.rowsAtLeast());
        shape.tail = EllTail::coo;
        return shape;
    }
};

} // namespace formats
} // namespace gpuLdu

#endif
