// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver on a backend B: the multifrontal numeric factorisation of
// C = P S A S P^T = L D L^T over the supernodes of the symbolic phase (SymbolicLdlt.hpp), and the
// solves, level by level of the supernodal tree. Compiled once per backend (instantiate/cpu/,
// instantiate/cuda/).
//
// Supernode s (k columns, m rows R_s) owns a dense front F of m x m (lower triangle): its first
// k columns are L's block (m x k, D on its diagonal), the rest its update matrix U (m - k)^2.
// F starts as C's entries of s's columns; each child c adds its U into F at the rows
// relIndex_c (the extend-add: children one after another, so every sum has a fixed order);
// then the k pivots are eliminated,
//     F11 = L11 D1 L11^T,   L21 = F21 L11^-T D1^-1,   U = F22 - L21 D1 L21^T,
// which leaves L's block final and U for the parent. Small fronts: one team of threads per front,
// all fronts of a level in one launch (LdltFactorFront: the rank-one updates of each pivot in
// turn). Large fronts: panels of `panel` columns, the panel's diagonal block by one team, then
// the dense BLAS (trsm for L21 D, gemm and syrk-like products for the trailing part: cuBLAS on the
// GPU, BLAS on the host); the large fronts of a level on the GPU's side streams, so that they
// overlap. A pivot below the floor (1e-10 x max|S A S|) is replaced by
// +-floor (static pivoting) and counted; the refinement of the solve makes up for it.
//
// The forward solve runs the same tree bottom-up with vectors instead of matrices: each
// supernode receives its children's update vectors, solves with L11 and passes
// -L21 y_s (plus what it received for rows below it) to its parent; the backward solve runs top
// down, each supernode gathering from its ancestors' final rows.

#ifndef GPULDU_LDLTIMPL_HPP
#define GPULDU_LDLTIMPL_HPP

#include "backend/Backend.hpp"
#include "direct/LdltSolveKernels.hpp"
#include "direct/LdltStructure.hpp"
#include "direct/SymbolicLdlt.hpp"
#include "krylov/VectorOps.hpp"
#include "matrix/ValueCheck.hpp"

#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/transform_reduce.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

namespace gpuLdu
{

//- T: double, or Complex for complex symmetric matrices (the API's std::complex<double>)
template<class B, class T = double>
class LdltSolverImpl : public BasicLdltSolver<typename detail::HostScalarOf<T>::type>
{
    using HostScalar = typename detail::HostScalarOf<T>::type;

    template<class V>
    using Vector = typename B::template Vector<V>;

    //- The pivot floor over the largest |entry| of S A S (static pivoting)
    static constexpr double pivotFloorFactor = 1e-10;

    //- The GPU threads of a team (one front, one update column)
    static constexpr int team = 128;

    //- The panel width of a large front
    static constexpr int panel = 128;

    SymbolicLdlt s_;
    LdltAnalysis analysis_;
    bool factored_ = false;

    //- What depends on the pattern only: the entries' places, the schedules of the levels, the
    //  supernodal structure on the backend (copied as a whole by withSameAnalysis)
    LdltStructure<B> structure_;

    //- On the backend: the factor's values, the update matrices and vectors, the panel
    //  workspace, D, the slots' values, the gather of the backward solve, A's full CSR values,
    //  the pivot flags, work vectors
    Vector<T> values_, update_, updateVector_, panelW_, D_, slots_, gathered_;
    Vector<T> csrVal_;
    Vector<int> flag_;
    Vector<T> x_, b_, r_, y_;
    //- The symmetric scaling S (A's order)
    Vector<double> scale_;
    std::vector<T> hostSlots_, hostCsr_;
    std::vector<double> hostScale_;


    detail::LdltFronts<T> fronts()
    {
        return {ptr(structure_.superFirst), ptr(structure_.superRowStart), ptr(structure_.valueStart),
                ptr(structure_.updateStart), ptr(values_), ptr(update_)};
    }

    //- Throws Error for an entry of the pattern above the diagonal
    static void checkLowerTriangle(const SymmetricPattern& lower);

    //- The steps of factor: A's values scaled into the factor's places and into A's CSR (the
    //  pivot floor returned); the fronts level by level; the static pivots' count (an Error for
    //  a pivot that is not finite)
    double setValues(const HostScalar* values);
    void factorLevels(double floor);
    int countStaticPivots();

    //- The large front at structure_.nodes[q], panel by panel
    void factorLarge(int q, double floor);

    //- The bytes the factorisation takes on the backend (symbolic analysis done,
    //  structure_.panelRows set), checked against memory (< 0: what the backend has) before
    //  anything is allocated: an Error saying what it needs, what there is and what to do (the
    //  METIS ordering only where it is not the one in use)
    double checkMemory(double memory) const
    {
        const int ns = s_.nSupernodes();
        const double t = sizeof(T);
        const double bytes = t*(s_.valueStart[ns] + s_.updateArena + structure_.panelRows*panel*B::sideStreams)
            + 4.0*s_.superRows.size()*2 + t*s_.vectorStart[ns] + (28.0 + 4*t)*s_.n + (8.0 + 2*t)*s_.nnzALower;
        const double available = memory < 0 ? B::availableMemory() : memory;
        if (bytes > 0.9*available)
        {
            throw Error("gpuLdu: LDL^T: the factorisation of " + std::to_string(s_.n) + " rows ("
                        + orderingName(analysis_.ordering) + ") needs " + std::to_string(long(bytes/1048576))
                        + " MiB (" + std::to_string(long(t*s_.valueStart[ns]/1048576)) + " MiB of L, "
                        + std::to_string(long(t*s_.updateArena/1048576)) + " MiB of update matrices), "
                        + std::to_string(long(available/1048576)) + " MiB are available on the "
                        + executorName(B::executor) + " executor: try "
                        + (analysis_.ordering == LdltOrdering::named("METIS") ? "" : "the METIS ordering, ")
                        + "another executor, or an iterative solver");
        }
        return bytes;
    }

    //- The factor's values, the update matrices and vectors, the workspaces (after the
    //  structure is set up)
    void allocateNumeric()
    {
        const int n = s_.n;
        const int ns = s_.nSupernodes();
        values_.resize(s_.valueStart[ns]);
        update_.resize(s_.updateArena);
        updateVector_.resize(s_.vectorStart[ns]);
        panelW_.resize(structure_.panelRows*panel*B::sideStreams);
        gathered_.resize(structure_.longestBelow);
        slots_.resize(structure_.slotPos.size());
        csrVal_.resize(structure_.csrCol.size());
        flag_.resize(n);
        for (Vector<T>* v : {&x_, &b_, &r_, &y_, &D_})
        {
            v->resize(n);
        }
        scale_.resize(n);
        hostSlots_.resize(structure_.slotPos.size());
        hostScale_.resize(n);
        hostCsr_.resize(structure_.csrCol.size());
    }

    //- The symbolic analysis and set-up of other, copied (not redone), and numeric arrays of
    //  its own (withSameAnalysis)
    struct CopyAnalysis {};
    LdltSolverImpl(const LdltSolverImpl& other, CopyAnalysis)
    :
        s_(other.s_),
        analysis_(other.analysis_),
        structure_(other.structure_)
    {
        const Stopwatch watch;
        checkMemory(-1);
        allocateNumeric();
        analysis_.seconds = queueSeconds<B>(watch);
    }

    //- y = C^-1 y (C's order), level by level: supernodes of up to longSupernode columns by a
    //  team each (one launch per level), longer ones (their chain of columns would serialise a
    //  team) through the BLAS: trsv with L11, gemv with L21
    void solvePermuted(T* y)
    {
        const int* nodes = ptr(structure_.solveNodes);
        T* u = ptr(updateVector_);
        const auto forward = [&](int begin, int end, bool childrenOnly)
        {
            B::forEachTeam(begin, end, team, detail::LdltForwardFront<T>{
                fronts(), ptr(structure_.vectorStart), ptr(structure_.relIndex), ptr(structure_.childStart),
                ptr(structure_.children), nodes, y, u, childrenOnly});
        };
        for (int l = 0; l < s_.nLevels(); ++l)
        {
            forward(s_.levelStart[l], structure_.solveTeamEnd[l], false);
            for (int q = structure_.solveTeamEnd[l]; q < s_.levelStart[l + 1]; ++q)
            {
                const int sn = structure_.hostSolveNodes[q];
                const int f = s_.superFirst[sn], k = s_.cols(sn), m = s_.rows(sn);
                const T* L = ptr(values_) + s_.valueStart[sn];
                forward(q, q + 1, true);
                B::solveUnitLowerVector(k, L, m, y + f, false);
                if (m > k)
                {
                    B::subtractMatrixVector(m - k, k, L + k, m, y + f, u + s_.vectorStart[sn], false);
                }
            }
        }
        forEach<B>(0, s_.n, detail::LdltDiagonal<T>{ptr(D_), y});
        for (int l = s_.nLevels() - 1; l >= 0; --l)
        {
            B::forEachTeam(s_.levelStart[l], structure_.solveTeamEnd[l], team, detail::LdltBackwardFront<T>{
                fronts(), ptr(structure_.superRows), nodes, y});
            for (int q = structure_.solveTeamEnd[l]; q < s_.levelStart[l + 1]; ++q)
            {
                const int sn = structure_.hostSolveNodes[q];
                const int f = s_.superFirst[sn], k = s_.cols(sn), m = s_.rows(sn);
                const T* L = ptr(values_) + s_.valueStart[sn];
                if (m > k)
                {
                    // w_s -= L21^T w_R, the rows R beyond s gathered
                    forEach<B>(0, m - k, detail::Gather<T>{
                        ptr(structure_.superRows) + s_.superRowStart[sn] + k, y, ptr(gathered_)});
                    B::subtractMatrixVector(m - k, k, L + k, m, ptr(gathered_), y + f, true);
                }
                B::solveUnitLowerVector(k, L, m, y + f, true);
            }
        }
    }

    //- x += A^-1 r (A's order): y = P S r, y = C^-1 y, x += S P^T y
    void correct(T* x, const T* r)
    {
        forEach<B>(0, s_.n, detail::LdltPermute<T>{ptr(structure_.perm), ptr(scale_), r, ptr(y_), true});
        solvePermuted(ptr(y_));
        forEach<B>(0, s_.n, detail::LdltPermute<T>{ptr(structure_.perm), ptr(scale_), ptr(y_), x, false});
    }

    //- r = b - A x
    void residual(const T* x, const T* b, T* r)
    {
        forEach<B>(0, s_.n, detail::LdltResidualRow<T>{
            ptr(structure_.csrStart), ptr(structure_.csrCol), ptr(csrVal_), x, b, r});
    }

    double norm(const T* v) const
    {
        return std::sqrt(thrust::transform_reduce(B::policy(), thrust::counting_iterator<int>(0),
                                                  thrust::counting_iterator<int>(s_.n), detail::SquaredModulus<T>{v}, 0.0,
                                                  thrust::plus<double>()));
    }

public:
    //- The symbolic analysis and the backend's arrays; memory: the bytes the factorisation may
    //  take (< 0: what the backend has, B::availableMemory; a limit for the tests)
    LdltSolverImpl(const SymmetricPattern& lower, LdltOrdering ordering, double memory = -1);

    Executor executor() const override
    {
        return B::executor;
    }

    const LdltAnalysis& analysis() const override
    {
        return analysis_;
    }

    LdltFactorStats factor(const HostScalar* values) override;

    std::unique_ptr<BasicLdltSolver<HostScalar>> withSameAnalysis() const override
    {
        return std::unique_ptr<BasicLdltSolver<HostScalar>>(new LdltSolverImpl(*this, CopyAnalysis{}));
    }

    SolveResult solve(const HostScalar* b, HostScalar* x, double tolerance, int maxRefinement) override;

    //- x = A^-1 b with the factor, on the backend (b and x its arrays of n, A's order), no
    //  refinement and no residual: a direct solve inside another solver (GAMG's coarsest level)
    void applyInverse(const T* b, T* x)
    {
        if (!factored_)
        {
            throw Error("gpuLdu: LDL^T solve without a factorisation");
        }
        thrust::fill_n(B::policy(), x, s_.n, T(0));
        correct(x, b);
    }

    const SymbolicLdlt& symbolic() const
    {
        return s_;
    }

    //- The factor on the host as a dense n x n matrix (row-major, C's order): L strictly below
    //  the diagonal, D on it, zeros elsewhere (for the tests)
    std::vector<T> denseFactor()
    {
        const int n = s_.n;
        std::vector<T> values(values_.size()), dense(std::size_t(n)*n, T(0));
        B::download(values.data(), ptr(values_), values.size());
        for (int sn = 0; sn < s_.nSupernodes(); ++sn)
        {
            const int m = s_.rows(sn), k = s_.cols(sn), f = s_.superFirst[sn];
            for (int c = 0; c < k; ++c)
            {
                for (int i = c; i < m; ++i)
                {
                    const int row = s_.superRows[s_.superRowStart[sn] + i];
                    dense[std::size_t(row)*n + f + c] = values[s_.valueStart[sn] + long(c)*m + i];
                }
            }
        }
        return dense;
    }
};


template<class B, class T>
LdltSolverImpl<B, T>::LdltSolverImpl(const SymmetricPattern& lower, LdltOrdering ordering, double memory)
{
    const Stopwatch watch;
    s_ = analyseLdlt(lower, ordering);
    checkLowerTriangle(lower);
    analysis_.ordering = ordering;
    // what the factor needs on the backend, before any of it is allocated
    structure_.panelRows = LdltStructure<B>::largeFrontRows(s_);
    const double bytes = checkMemory(memory);
    structure_.setUp(s_, lower);
    allocateNumeric();

    const int ns = s_.nSupernodes();
    analysis_.n = s_.n;
    analysis_.nnzALower = s_.nnzALower;
    analysis_.nnzL = s_.nnzL;
    analysis_.flops = s_.flops;
    analysis_.nLevels = s_.nLevels();
    analysis_.nSupernodes = ns;
    analysis_.storedL = s_.valueStart[ns];
    analysis_.updateEntries = s_.updateArena;
    analysis_.deviceBytes = bytes;
    analysis_.seconds = queueSeconds<B>(watch);
}

template<class B, class T>
void LdltSolverImpl<B, T>::checkLowerTriangle(const SymmetricPattern& lower)
{
    for (int j = 0; j < lower.n; ++j)
    {
        for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
        {
            if (lower.rows[p] < j)
            {
                throw Error("gpuLdu: LDL^T values: entry (" + std::to_string(lower.rows[p] + 1) + ", "
                            + std::to_string(j + 1) + ") is above the diagonal: give the lower triangle");
            }
        }
    }
}

template<class B, class T>
void LdltSolverImpl<B, T>::factorLarge(int q, double floor)
{
    const int sn = structure_.hostNodes[q];
    const int m = s_.rows(sn), k = s_.cols(sn);
    T* F = ptr(values_) + s_.valueStart[sn];
    T* U = ptr(update_) + s_.updateStart[sn];
    T* W = ptr(panelW_) + long(q%B::sideStreams)*structure_.panelRows*panel;
    for (int p = 0; p < k; p += panel)
    {
        // the panel's diagonal block F11 = L11 D1 L11^T, by one team
        const int nb = std::min(panel, k - p);
        B::forEachTeam(q, q + 1, team, detail::LdltFactorFront<T>{
            fronts(), ptr(structure_.nodes), ptr(flag_), floor, p, p + nb, p + nb});
        const int rows = m - p - nb;
        if (rows == 0)
        {
            continue;
        }
        // X = F21 L11^-T = L21 D1, W = L21 D1, X = L21
        T* X = F + long(p)*m + p + nb;
        B::solveUnitLowerTransposedRight(rows, nb, F + long(p)*m + p, m, X, m);
        forEach<B>(0, rows*nb, detail::LdltPanelScale<T>{X, F + long(p)*m + p, W, rows, m});
        // the trailing part: the later pivots' columns of L's block, then U (lower triangle)
        const int later = k - p - nb;
        if (later > 0)
        {
            B::subtractProductNT(rows, later, nb, X, m, W, rows, F + long(p + nb)*m + p + nb, m, false);
        }
        if (m > k)
        {
            B::subtractProductNT(m - k, m - k, nb, X + later, m, W + later, rows, U, m - k, true);
        }
    }
}

template<class B, class T>
LdltFactorStats LdltSolverImpl<B, T>::factor(const HostScalar* values)
{
    const Stopwatch watch;
    factored_ = false;
    LdltFactorStats stats;
    stats.pivotFloor = setValues(values);
    factorLevels(stats.pivotFloor);
    stats.nStaticPivots = countStaticPivots();
    factored_ = true;
    stats.seconds = queueSeconds<B>(watch);
    return stats;
}

template<class B, class T>
double LdltSolverImpl<B, T>::setValues(const HostScalar* values)
{
    const int n = s_.n;
    std::fill(hostSlots_.begin(), hostSlots_.end(), T(0));
    std::fill(hostCsr_.begin(), hostCsr_.end(), T(0));

    // A (duplicates summed) into its CSR; the symmetric scaling S: s_i = 1/sqrt(|a_ii|),
    // or where a_ii = 0, 1/sqrt(max_j |a_ij|), so that S A S has ones on the diagonal where A
    // has no zero there, and entries of about 1 at most: the pivot floor is relative to that
    std::vector<T> diag(n, T(0));
    std::vector<double> rowMax(n, 0.0);
    for (std::size_t p = 0; p < structure_.entrySlot.size(); ++p)
    {
        const T v(values[p]);
        if (!isFiniteValue(v))
        {
            throw Error("gpuLdu: LDL^T values: entry " + std::to_string(p + 1) + " is not finite");
        }
        hostCsr_[structure_.toCsr[0][p]] += v;
        if (structure_.toCsr[1][p] >= 0)
        {
            hostCsr_[structure_.toCsr[1][p]] += v;
        }
        const int i = structure_.entryRow[p], j = structure_.entryCol[p];
        if (i == j)
        {
            diag[i] += v;
        }
        rowMax[i] = std::max(rowMax[i], detail::modulus(v));
        rowMax[j] = std::max(rowMax[j], detail::modulus(v));
    }
    for (int i = 0; i < n; ++i)
    {
        const double d = diag[i] != T(0) ? detail::modulus(diag[i]) : rowMax[i];
        if (!(d > 0))
        {
            throw Error("gpuLdu: LDL^T values: row " + std::to_string(i + 1)
                        + " of A is all zero: the matrix is singular");
        }
        hostScale_[i] = 1/std::sqrt(d);
    }
    for (std::size_t p = 0; p < structure_.entrySlot.size(); ++p)
    {
        hostSlots_[structure_.entrySlot[p]] +=
            T(values[p])*hostScale_[structure_.entryRow[p]]*hostScale_[structure_.entryCol[p]];
    }
    double largest = 0;
    for (const T& v : hostSlots_)
    {
        largest = std::max(largest, detail::modulus(v));
    }
    B::upload(ptr(slots_), hostSlots_.data(), hostSlots_.size());
    B::upload(ptr(scale_), hostScale_.data(), n);
    B::upload(ptr(csrVal_), hostCsr_.data(), hostCsr_.size());
    thrust::fill_n(B::policy(), values_.begin(), values_.size(), T(0));
    thrust::fill_n(B::policy(), update_.begin(), update_.size(), T(0));
    forEach<B>(0, int(structure_.slotPos.size()), detail::Scatter<T, long>{
        ptr(structure_.slotPlaces), ptr(slots_), ptr(values_)});
    return pivotFloorFactor*largest;
}

template<class B, class T>
void LdltSolverImpl<B, T>::factorLevels(double floor)
{
    for (int l = 0; l < s_.nLevels(); ++l)
    {
        const std::vector<long>& rounds = structure_.rounds[l];
        for (std::size_t r = 0; r + 1 < rounds.size(); ++r)
        {
            B::forEachTeam(int(rounds[r]), int(rounds[r + 1]), team, detail::LdltExtendAdd<T>{
                fronts(), ptr(structure_.superParent), ptr(structure_.relIndex), ptr(structure_.eaChild),
                ptr(structure_.eaColumn)});
        }
        B::forEachTeam(s_.levelStart[l], structure_.smallEnd[l], team, detail::LdltFactorFront<T>{
            fronts(), ptr(structure_.nodes), ptr(flag_), floor, 0, -1, -1});
        // the large fronts of the level one after another from here, each on a side stream of
        // its own turn (its own panel workspace): independent fronts overlap on the device
        struct BackToDefault
        {
            ~BackToDefault()
            {
                B::useDefaultStream();
            }
        } backToDefault;
        for (int q = structure_.smallEnd[l]; q < s_.levelStart[l + 1]; ++q)
        {
            B::useSideStream(q);
            factorLarge(q, floor);
        }
    }
    forEach<B>(0, s_.n, detail::Gather<T, long>{ptr(structure_.diagPos), ptr(values_), ptr(D_)});
}

template<class B, class T>
int LdltSolverImpl<B, T>::countStaticPivots()
{
    const int n = s_.n;
    std::vector<int> flags(n);
    B::download(flags.data(), ptr(flag_), n);
    int count = 0;
    for (int j = 0; j < n; ++j)
    {
        if (flags[j] == 2)
        {
            throw Error("gpuLdu: LDL^T: the pivot of column " + std::to_string(s_.perm[j] + 1)
                        + " (of A) is not finite: the matrix is singular or its values overflow");
        }
        count += flags[j];
    }
    return count;
}

template<class B, class T>
SolveResult LdltSolverImpl<B, T>::solve(const HostScalar* b, HostScalar* x, double tolerance, int maxRefinement)
{
    if (!factored_)
    {
        throw Error("gpuLdu: LDL^T solve without a factorisation");
    }
    Stopwatch watch;
    const int n = s_.n;
    SolveResult result;
    B::upload(ptr(b_), reinterpret_cast<const T*>(b), n);
    thrust::fill_n(B::policy(), ptr(x_), n, T(0));
    result.times.upload = queueLap<B>(watch);

    const double bNorm = norm(ptr(b_));
    const double scale = bNorm > 0 ? 1/bNorm : 1;
    correct(ptr(x_), ptr(b_));
    residual(ptr(x_), ptr(b_), ptr(r_));
    result.initialResidual = result.finalResidual = norm(ptr(r_))*scale;
    result.times.setup = queueLap<B>(watch);
    while (result.finalResidual > tolerance && result.nIterations < maxRefinement
           && std::isfinite(result.finalResidual))
    {
        correct(ptr(x_), ptr(r_));
        residual(ptr(x_), ptr(b_), ptr(r_));
        result.finalResidual = norm(ptr(r_))*scale;
        ++result.nIterations;
    }
    result.nonFinite = !std::isfinite(result.finalResidual);
    result.converged = result.finalResidual <= tolerance;
    result.times.iterate = queueLap<B>(watch);
    B::download(reinterpret_cast<T*>(x), ptr(x_), n);
    return result;
}

} // namespace gpuLdu

#endif
