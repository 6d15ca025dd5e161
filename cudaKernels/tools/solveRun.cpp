// SPDX-License-Identifier: GPL-3.0-or-later
// The checks of a gpuLduSolve run that need no template (solveRun.hpp).

#include "solveRun.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gpuLduSolve
{

std::string text(double value)
{
    char s[32];
    std::snprintf(s, sizeof s, "%g", value);
    return s;
}

double norm2(const std::vector<double>& v)
{
    double scale = 0;
    for (double a : v)
    {
        if (!std::isfinite(a))
        {
            return std::abs(a);
        }
        scale = std::max(scale, std::abs(a));
    }
    if (scale == 0)
    {
        return 0;
    }
    double s = 0;
    for (double a : v)
    {
        s += (a/scale)*(a/scale);
    }
    return scale*std::sqrt(s);
}

bool isFinite(double a)
{
    return std::isfinite(a);
}

bool isFinite(const std::complex<double>& a)
{
    return std::isfinite(a.real()) && std::isfinite(a.imag());
}

void checkRows(const Options& o, const LduMatrixData& m)
{
    const std::vector<int> rows = m.zeroRows();
    if (!rows.empty())
    {
        throw Failure(exitSingular, o.file + ": row " + std::to_string(rows[0] + 1) + " has no non-zero entry"
                    + (rows.size() > 1 ? " (nor have " + std::to_string(rows.size() - 1) + " other rows)" : "")
                    + ": the matrix is singular");
    }
}

const char* yesNo(bool b)
{
    return b ? "yes" : "no";
}

} // namespace gpuLduSolve
