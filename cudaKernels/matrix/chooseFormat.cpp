// SPDX-License-Identifier: GPL-3.0-or-later
// matrixFormat auto's choice as a MatrixFormat: the rule is auto's own (matrix/formats/
// Automatic.hpp).

#include "matrix/FormatList.hpp"

namespace gpuLdu
{

MatrixFormat chooseFormat(const RowLengthStats& s)
{
    MatrixFormat chosen;
    formats::Automatic::choose(s, [&](auto entry) { chosen = MatrixFormat(FormatRegistry::idOf<decltype(entry)>()); });
    return chosen;
}

} // namespace gpuLdu
