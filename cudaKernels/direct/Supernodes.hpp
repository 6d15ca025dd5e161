// SPDX-License-Identifier: GPL-3.0-or-later
// The supernodal steps of the symbolic LDL^T analysis (analyseLdlt, symbolicLdlt.cpp), once the
// ordering, the elimination tree and the column counts are known: the supernodes (fundamental,
// then relaxed), their tree, their rows, the extend-add's relative indices, the storage of L's
// blocks, the levels of the tree and the arena of the update matrices. Host code.

#ifndef GPULDU_SUPERNODES_HPP
#define GPULDU_SUPERNODES_HPP

#include "direct/SymbolicLdlt.hpp"

#include <vector>

namespace gpuLdu
{

namespace detail
{

//- The first column of each supernode, and n (SymbolicLdlt::superFirst): the fundamental
//  supernodes of s's tree and column counts, grouped further (relaxed) where relax
std::vector<int> supernodeFirsts(const SymbolicLdlt& s, bool relax);

//- The supernodal tree (s.superFirst set): superOf, superParent, childStart, children
void linkSupernodes(SymbolicLdlt& s);

//- The rows of each supernode (superRowStart, superRows): its columns, then the rows below it
//  of C's columns in it and of its children; C's adjacency is A's (adjStart, adjRows: both
//  triangles, no diagonal) through s.perm and s.inverse
void supernodeRows(SymbolicLdlt& s, const std::vector<int>& adjStart, const std::vector<int>& adjRows);

//- Where each child's rows below its columns sit in its parent's rows (relIndex)
void relativeIndices(SymbolicLdlt& s);

//- The storage offsets of L's blocks and of the solve's update vectors (valueStart,
//  vectorStart)
void storageOffsets(SymbolicLdlt& s);

//- The levels of the supernodal tree (levelStart, levelNodes)
void supernodeLevels(SymbolicLdlt& s);

//- The update matrices' places in one arena (updateStart, updateArena)
void placeUpdateMatrices(SymbolicLdlt& s);

} // namespace detail

} // namespace gpuLdu

#endif
