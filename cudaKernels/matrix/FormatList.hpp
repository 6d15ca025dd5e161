// SPDX-License-Identifier: GPL-3.0-or-later
// The matrix formats of A x and A^T x, one entry each (its keyword, where its product reads A,
// how its layout is chosen: in its own file under matrix/formats/). The one list to extend when
// adding one. An entry carries (registry/Registry.hpp says the rest):
//   static constexpr FormatStorage storage   systemCsr, converted or chosen (FormatShape.hpp)
//   converted: template<class B> static EllShape<B> shape(const PatternRows<B>&), its ELL
//              width or slices and its tail (matrix/SparseFormats.hpp stores and multiplies it)
//   chosen:    template<class F> static void choose(const RowLengthStats&, const F& f), f(the
//              entry it takes)
// Every format table and listing is generated from it, in list order; the first is the default.

#ifndef GPULDU_FORMATLIST_HPP
#define GPULDU_FORMATLIST_HPP

#include "matrix/formats/Automatic.hpp"
#include "matrix/formats/BlockedEll.hpp"
#include "matrix/formats/Csr.hpp"
#include "matrix/formats/Ell.hpp"
#include "matrix/formats/Hec.hpp"
#include "matrix/formats/Hyb.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

using FormatList = TypeList<
    formats::Csr,
    formats::Ell,
    formats::BlockedEll,
    formats::Hyb,
    formats::Hec,
    formats::Automatic
>;

using FormatRegistry = Registry<FormatList, Listing::inListOrder>;

static_assert(sameKeyword(FormatRegistry::First::variants[0].name, "csr"),
              "MatrixFormat's default (id 0) is csr: the list's first entry");

//- Where the product of a format reads A
inline FormatStorage storageOf(MatrixFormat format)
{
    FormatStorage storage = FormatStorage::systemCsr;
    FormatRegistry::visit(format.id(), [&](auto entry) { storage = decltype(entry)::storage; });
    return storage;
}

} // namespace gpuLdu

#endif
