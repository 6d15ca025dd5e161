// SPDX-License-Identifier: GPL-3.0-or-later
// The lower triangle of an LDU pattern in compressed columns (LduLowerColumns, gpuLdu.hpp): what
// the direct solver takes from OpenFOAM's addressing, GAMG's coarsest level and gpuLduSolve.

#include "gpuLdu/gpuLdu.hpp"

namespace gpuLdu
{

LduLowerColumns lduLowerColumns(const LduAddressingView& addr)
{
    const int n = addr.nCells;
    LduLowerColumns c;
    // the entries of each column counted (its diagonal and the faces it owns), then placed
    c.colStart.assign(n + 1, 0);
    for (int f = 0; f < addr.nFaces; ++f)
    {
        ++c.colStart[addr.lower[f] + 1];
    }
    for (int j = 0; j < n; ++j)
    {
        c.colStart[j + 1] += c.colStart[j] + 1;
    }
    c.rows.resize(c.colStart[n]);
    c.valueOf.resize(c.colStart[n]);
    std::vector<int> next(c.colStart.begin(), c.colStart.end() - 1);
    for (int j = 0; j < n; ++j)
    {
        c.rows[next[j]] = j;
        c.valueOf[next[j]++] = j;
    }
    for (int f = 0; f < addr.nFaces; ++f)
    {
        const int j = addr.lower[f];
        c.rows[next[j]] = addr.upper[f];
        c.valueOf[next[j]++] = n + f;
    }
    return c;
}

} // namespace gpuLdu
