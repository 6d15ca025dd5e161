// SPDX-License-Identifier: GPL-3.0-or-later
// The ell format (ELLPACK): every row padded to the longest row, slot k of row i at
// i + k*nRows (column-major: the threads of a warp read consecutive slots), no tail. Refused
// where the padding would dwarf the matrix (one long row, say).

#ifndef GPULDU_FORMATS_ELL_HPP
#define GPULDU_FORMATS_ELL_HPP

#include "matrix/formats/FormatShape.hpp"

#include <string>

namespace gpuLdu
{
namespace formats
{

struct Ell
{
    static constexpr Variant variants[] = {{"ell", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::converted;

    template<class B>
    static EllShape<B> shape(const PatternRows<B>& rows)
    {
        const RowLengthStats& s = rows.stats;
        EllShape<B> shape;
        shape.width = s.maxLength;
        const long nSlots = long(shape.width)*rows.nRows;
        if (nSlots > 8*s.nnz + 1024)
        {
            throw Error(
                std::string("matrixFormat ") + variants[0].name + " would store " + std::to_string(nSlots)
              + " slots for " + std::to_string(s.nnz) + " non-zeros (rows " + std::to_string(s.minLength)
              + " to " + std::to_string(s.maxLength) + " long): use hyb, hec or csr for this matrix"
            );
        }
        return shape;
    }
};

} // namespace formats
} // namespace gpuLdu

#endif
