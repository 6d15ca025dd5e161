// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T direct solver: orderings, the lower triangle's pattern (of an LDU matrix by
// lduLowerColumns), the symbolic analysis and the numeric factor (BasicLdltSolver). Part of the
// core's interface: gpuLdu.hpp includes every part.

#ifndef GPULDU_LDLT_HPP
#define GPULDU_LDLT_HPP

#include "gpuLdu/lduSystem.hpp"

#include <complex>
#include <memory>
#include <string>
#include <vector>

namespace gpuLdu
{

//- A fill-reducing ordering of the sparse LDL^T factorisation, a choice of the core's registry
//  (cudaKernels/direct/OrderingList.hpp, one class per file under direct/orderings/): AMD
//  (approximate minimum degree, SuiteSparse), METIS (nested dissection, METIS_NodeND), natural
//  (none, P = I: for tests and for matrices already ordered). Named by keyword
//  (LdltOrdering::named("METIS")); throws Error naming the valid ones.
class LdltOrdering : public RegisteredChoice<LdltOrdering>
{
public:
    using RegisteredChoice::RegisteredChoice;

    static LdltOrdering named(const std::string& keyword);
};

std::string orderingName(LdltOrdering ordering);

//- The orderings' names (orderingName of each), in the list's order
std::vector<std::string> orderingNames();

//- The ordering "auto" picks for n rows: AMD below 5000 rows (cheap, and as good on small
//  matrices), METIS nested dissection from there on (less fill, wider levels on meshes)
LdltOrdering autoOrdering(int n);

//- The structure of a symmetric matrix: n columns in compressed columns (colStart of size n + 1,
//  the rows of each column). For the symbolic analysis either triangle or both, the diagonal
//  optional; for a solver's values (makeLdltSolver) the lower triangle, rows >= the column,
//  duplicates summed.
struct SymmetricPattern
{
    int n = 0;
    const int* colStart = nullptr;
    const int* rows = nullptr;
};

//- The lower triangle of an LDU matrix's pattern in compressed columns, as makeLdltSolver takes
//  it: column j holds its diagonal (row j) first, then one entry per face f with lower[f] == j
//  (row upper[f]), in face order. valueOf[p]: where entry p's value lies in the LDU values taken
//  as one array, the diagonal (nCells) then one triangle's face coefficients (nFaces): j for
//  column j's diagonal, nCells + f for face f (a symmetric matrix: upper and lower are equal).
struct LduLowerColumns
{
    std::vector<int> colStart;
    std::vector<int> rows;
    std::vector<int> valueOf;

    //- The pattern (pointing into this object)
    SymmetricPattern pattern() const
    {
        SymmetricPattern p;
        p.n = int(colStart.size()) - 1;
        p.colStart = colStart.data();
        p.rows = rows.data();
        return p;
    }
};

//- The lower triangle of addr's pattern (LduLowerColumns)
LduLowerColumns lduLowerColumns(const LduAddressingView& addr);

//- What the symbolic analysis found (LdltSolver::analysis)
struct LdltAnalysis
{
    int n = 0;
    LdltOrdering ordering = LdltOrdering::named("natural");
    //- nnz of A's lower triangle (diagonal included), of L (unit diagonal included), the flops
    //  of the numeric factorisation, the supernodes and the levels of their tree
    long nnzALower = 0;
    long nnzL = 0;
    double flops = 0;
    int nSupernodes = 0;
    int nLevels = 0;
    //- The values stored for L (the supernodes' dense blocks: nnzL plus the relaxation's zeros
    //  and the blocks' upper triangles), the entries of the update matrices' arena (those alive
    //  at once share nothing, the others share their place), and the memory the
    //  factorisation takes on its executor (checked against the free memory before allocating)
    long storedL = 0;
    long updateEntries = 0;
    double deviceBytes = 0;
    double seconds = 0;
};

//- What a numeric factorisation did
struct LdltFactorStats
{
    //- Pivots below the floor replaced by +-floor (static pivoting; complex: the floor in the
    //  pivot's direction); the floor, 1e-10 x the largest |a_ij| of the scaled matrix
    int nStaticPivots = 0;
    double pivotFloor = 0;
    double seconds = 0;
};

//- A x = b for a symmetric A (A = A^T) by the sparse factorisation A = P^T L D L^T P: the
//  symbolic analysis once (makeLdltSolver), the numeric factorisation per set of values, then
//  solves with iterative refinement on the executor. Scalar: double, or std::complex<double> for
//  a complex symmetric A (transposes, never conjugates: not for a Hermitian A).
template<class Scalar>
class BasicLdltSolver
{
public:
    virtual ~BasicLdltSolver() = default;

    virtual Executor executor() const = 0;

    virtual const LdltAnalysis& analysis() const = 0;

    //- Factor the values of the pattern's entries (in its order). Throws Error naming the
    //  column (of A) of a pivot that is not finite, or an entry that is not.
    virtual LdltFactorStats factor(const Scalar* values) = 0;

    //- x = A^-1 b (host arrays of n), then refined (x += A^-1 (b - A x)) until ||b - A x||_2 /
    //  ||b||_2 <= tolerance or after maxRefinement steps. initialResidual: after the plain
    //  solve; finalResidual: at the end; nIterations: the refinement steps; converged: the
    //  tolerance reached; times: upload b to the executor, setup the plain solve (with its
    //  residual), iterate the refinement. Before a factor: throws Error.
    virtual SolveResult solve(const Scalar* b, Scalar* x, double tolerance, int maxRefinement) = 0;

    //- A solver for another matrix of the same pattern (another field of a mesh) on the same
    //  executor in the same ordering: this one's symbolic analysis and set-up copied, not redone
    //  (analysis().seconds: the copy's), no factor yet. Throws Error where its factor would not
    //  fit the executor's memory.
    virtual std::unique_ptr<BasicLdltSolver> withSameAnalysis() const = 0;
};

using LdltSolver = BasicLdltSolver<double>;
using ComplexLdltSolver = BasicLdltSolver<std::complex<double>>;

//- The symbolic analysis of the lower triangle's pattern in an ordering, on an executor, for real
//  or complex values. Throws Error for a malformed pattern (sizes, rows out of range or above the
//  diagonal).
std::unique_ptr<LdltSolver> makeLdltSolver(Executor executor, const SymmetricPattern& lower, LdltOrdering ordering);
std::unique_ptr<ComplexLdltSolver> makeComplexLdltSolver(
    Executor executor,
    const SymmetricPattern& lower,
    LdltOrdering ordering
);

} // namespace gpuLdu

#endif
