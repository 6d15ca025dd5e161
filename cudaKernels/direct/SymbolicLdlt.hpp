// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic phase of the sparse LDL^T factorisation A = P^T L D L^T P of a symmetric matrix:
// a fill-reducing ordering (AMD or METIS nested dissection, from SuiteSparse and METIS), the
// elimination tree of C = P A P^T, the levels of the tree (columns of one level factor
// independently), and the structure of L. Host code; the numeric phase takes its result.

#ifndef GPULDU_SYMBOLICLDLT_HPP
#define GPULDU_SYMBOLICLDLT_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <vector>

namespace gpuLdu
{

//- The symbolic factorisation: everything of L that depends on the pattern only
struct SymbolicLdlt
{
    int n = 0;
    LdltOrdering ordering = LdltOrdering::natural;

    //- C = P A P^T: row i of C is row perm[i] of A; inverse[perm[i]] = i
    std::vector<int> perm;
    std::vector<int> inverse;

    //- The elimination tree of C: parent[j] the first row below the diagonal of L's column j, or
    //  -1 for a root
    std::vector<int> parent;

    //- The levels of the tree: a leaf is level 0, a column's level is 1 + its children's
    //  highest; the columns of level l are levelCols[levelStart[l] .. levelStart[l + 1]), in
    //  ascending order
    std::vector<int> level;
    std::vector<int> levelStart;
    std::vector<int> levelCols;

    //- L's strictly lower part in compressed columns (rows ascending in each column)
    std::vector<long> lStart;
    std::vector<int> lRows;

    //- The same by rows: row j's columns k < j ascending (rowCols[rowStart[j] ..
    //  rowStart[j + 1])), and where each entry sits in lRows (L(j, k) is lRows' rowPos[e])
    std::vector<long> rowStart;
    std::vector<int> rowCols;
    std::vector<long> rowPos;

    //- nnz of A's lower triangle (diagonal included) and of L (unit diagonal included), and
    //  the floating-point operations of the numeric factorisation (sum over the columns j of
    //  c_j^2 + 2 c_j, c_j the entries below the diagonal of L's column j: the divisions, and
    //  the multiply-subtract of the rank-one update, as CHOLMOD and the reference count them)
    long nnzALower = 0;
    long nnzL = 0;
    double flops = 0;

    int nLevels() const
    {
        return int(levelStart.size()) - 1;
    }
};

//- The symbolic factorisation of a symmetric pattern in an ordering. Throws Error for a
//  malformed pattern (sizes, rows out of range) or an ordering library's failure.
SymbolicLdlt analyseLdlt(const SymmetricPattern& a, LdltOrdering ordering);

} // namespace gpuLdu

#endif
