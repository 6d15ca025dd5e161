// SPDX-License-Identifier: GPL-3.0-or-later
// The symbolic phase of the sparse LDL^T factorisation A = P^T L D L^T P of a symmetric matrix:
// a fill-reducing ordering (AMD or METIS nested dissection, from SuiteSparse and METIS) followed
// by a postorder of its elimination tree, the column counts of L, and L's supernodes: runs of
// consecutive columns with the same structure below them, grouped further (relaxed) where a few
// explicit zeros buy larger dense blocks. Each supernode is one dense front of the multifrontal
// numeric phase (LdltImpl.hpp); fronts of one level of the supernodal tree factor independently.
// Host code.

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
    LdltOrdering ordering = LdltOrdering::named("natural");

    //- C = P A P^T: row i of C is row perm[i] of A; inverse[perm[i]] = i. The ordering's
    //  permutation followed by a postorder of the tree, so that every subtree is a run of
    //  consecutive columns (which changes neither the fill nor the flops)
    std::vector<int> perm;
    std::vector<int> inverse;

    //- The elimination tree of C: parent[j] the first row below the diagonal of L's column j,
    //  or -1 for a root; colCount[j] the entries of L's column j below the diagonal
    std::vector<int> parent;
    std::vector<int> colCount;

    //- The supernodes: supernode s is the columns superFirst[s] .. superFirst[s + 1] - 1 (k_s of
    //  them); its rows R_s are superRows[superRowStart[s] .. superRowStart[s + 1]) (m_s, ascending:
    //  its own k_s columns first, then the rows below them of every one of its columns).
    //  superParent[s]: the supernode of the parent of s's last column, or -1.
    std::vector<int> superFirst;
    std::vector<long> superRowStart;
    std::vector<int> superRows;
    std::vector<int> superParent;
    std::vector<int> superOf;

    //- relIndex[superRowStart[c] + t] for t >= k_c: where row R_c[t] sits in R_parent(c)
    //  (the extend-add of c's update matrix into its parent's front); -1 for t < k_c
    std::vector<int> relIndex;

    //- The children of s in ascending order: children[childStart[s] .. childStart[s + 1])
    std::vector<int> childStart;
    std::vector<int> children;

    //- The levels of the supernodal tree: a leaf is level 0, a supernode 1 + its children's
    //  highest; the supernodes of level l are levelNodes[levelStart[l] .. levelStart[l + 1])
    std::vector<int> levelStart;
    std::vector<int> levelNodes;

    //- Storage: supernode s's m_s x k_s block of L (column-major, leading dimension m_s; D on
    //  its diagonal) at values[valueStart[s]]; its m_s - k_s update entries of a solve at
    //  vectorStart[s]; its (m_s - k_s)^2 update matrix at updateStart[s] in an arena of
    //  updateArena entries, shared by update matrices whose lives (from the supernode's level
    //  to its parent's, both included) do not meet
    std::vector<long> valueStart;
    std::vector<long> vectorStart;
    std::vector<long> updateStart;
    long updateArena = 0;

    //- nnz of A's lower triangle (diagonal included) and of L (unit diagonal included, the
    //  exact structure: no relaxation zeros), and the floating-point operations of the numeric
    //  factorisation (sum over the columns j of c_j^2 + 2 c_j, c_j = colCount[j]: the divisions
    //  and the multiply-subtract of the rank-one updates, as CHOLMOD and the reference count them)
    long nnzALower = 0;
    long nnzL = 0;
    double flops = 0;

    int nSupernodes() const
    {
        return int(superFirst.size()) - 1;
    }

    int nLevels() const
    {
        return int(levelStart.size()) - 1;
    }

    int cols(int s) const
    {
        return superFirst[s + 1] - superFirst[s];
    }

    int rows(int s) const
    {
        return int(superRowStart[s + 1] - superRowStart[s]);
    }
};

//- The symbolic factorisation of a symmetric pattern in an ordering; relax: supernodes grouped
//  further with explicit zeros (CHOLMOD's default rules), else exact (fundamental) supernodes
//  only. Throws Error for a malformed pattern (sizes, rows out of range) or an ordering
//  library's failure.
SymbolicLdlt analyseLdlt(const SymmetricPattern& a, LdltOrdering ordering, bool relax = true);

} // namespace gpuLdu

#endif
