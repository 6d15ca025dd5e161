// SPDX-License-Identifier: GPL-3.0-or-later
// The hec format: ELLPACK of width K, the largest K whose ELL part (nRows x K slots) is more
// than half non-zero, the rest of the longer rows in CSR (offsets per row).

#ifndef GPULDU_FORMATS_HEC_HPP
#define GPULDU_FORMATS_HEC_HPP

#include "matrix/formats/FormatShape.hpp"

#include <vector>

namespace gpuLdu
{
namespace formats
{

struct Hec
{
    static constexpr Variant variants[] = {{"hec", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::converted;

    //- K from the number of rows at least k long, atLeast[k], k = 0..max
    static int width(const std::vector<int>& atLeast)
    {
        const long nRows = atLeast.empty() ? 0 : atLeast[0];
        long stored = 0;
        int K = 0;
        for (int k = 1; k < int(atLeast.size()); ++k)
        {
            stored += atLeast[k];
            if (2*stored > nRows*k)
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
        shape.tail = EllTail::csr;
        return shape;
    }
};

} // namespace formats
} // namespace gpuLdu

#endif
