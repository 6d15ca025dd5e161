// SPDX-License-Identifier: GPL-3.0-or-later
// The words of a ValueError (gpuLdu.hpp): what was found, where, in the system's numbering.

#include "gpuLdu/gpuLdu.hpp"

#include <sstream>

namespace gpuLdu
{

std::string valueKindName(ValueKind kind)
{
    switch (kind)
    {
        case ValueKind::diagonal: return "diagonal";
        case ValueKind::upper: return "upper";
        case ValueKind::lower: return "lower";
        case ValueKind::source: return "source";
        case ValueKind::initialGuess: return "initial guess";
        case ValueKind::pivot: return "pivot";
    }
    return "value";
}

std::string describe(const BadValue& bad)
{
    // the value is printed, never computed with (printing a NaN raises nothing)
    std::ostringstream os;
    const std::string level = bad.level > 0 ? " of GAMG level " + std::to_string(bad.level) : "";
    switch (bad.kind)
    {
        case ValueKind::pivot:
            os << (bad.pivotOf == "diagonal" ? "the diagonal, a pivot," : "the " + bad.pivotOf + " pivot")
               << " is " << bad.value << " at row " << bad.row << level
               << " (zero or not finite: the factorisation cannot divide by it)";
            return os.str();
        case ValueKind::upper:
        case ValueKind::lower:
            os << "the " << valueKindName(bad.kind) << " coefficient of face " << bad.index
               << " (row " << bad.row << ", column " << bad.col << ")" << level << " is " << bad.value;
            break;
        default:
            os << "the " << valueKindName(bad.kind) << " is " << bad.value << " at row " << bad.row << level;
            break;
    }
    os << " (" << bad.count << (bad.count == 1 ? " value" : " values")
       << " of the matrix, source and initial guess not finite)";
    return os.str();
}

} // namespace gpuLdu
