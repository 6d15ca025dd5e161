// SPDX-License-Identifier: GPL-3.0-or-later
// The csr format: A x and A^T x straight from the system's CSR arrays (CsrMatrix), one thread
// per row over the row's entries in OpenFOAM's order (detail::SpmvRow, matrix/Spmv.hpp; A^T's
// values gathered through the transpose index into A's pattern). Nothing converted or stored
// beside the matrix. The formats' default (the list's first).

#ifndef GPULDU_FORMATS_CSR_HPP
#define GPULDU_FORMATS_CSR_HPP

#include "matrix/formats/FormatShape.hpp"

namespace gpuLdu
{
namespace formats
{

struct Csr
{
    static constexpr Variant variants[] = {{"csr", Takes::both, nullptr}};
    static constexpr FormatStorage storage = FormatStorage::systemCsr;
};

} // namespace formats
} // namespace gpuLdu

#endif
