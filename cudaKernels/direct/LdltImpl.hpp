// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver on a backend B: the multifrontal numeric factorisation of
// C = P S A S P^T = L D L^T over the supernodes of the symbolic phase (SymbolicLdlt.hpp), and the
// solves, level by level of the supernodal tree. Compiled once per backend (cpuSystem.cpp,
// gpuSystem.cu).
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
#include "direct/SymbolicLdlt.hpp"
#include "krylov/VectorOps.hpp"

#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/transform_reduce.h>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <complex>
#include <limits>
#include <string>

namespace gpuLdu
{

namespace detail
{

//- The kernels' scalar T for the API's (std::complex<double> -> Complex, the same layout), and
//  back
template<class Scalar>
struct KernelScalarOf
{
    using type = Scalar;
};

template<>
struct KernelScalarOf<std::complex<double>>
{
    using type = Complex;
};

template<class Scalar>
using KernelScalar = typename KernelScalarOf<Scalar>::type;

template<class T>
struct HostScalarOf
{
    using type = T;
};

template<>
struct HostScalarOf<Complex>
{
    using type = std::complex<double>;
};

//- |x|, |x|^2, finiteness (x - x is 0 for finite x only), and the static pivot of d: the floor
//  with d's sign (complex: in d's direction; +floor for 0)
GPULDU_HD inline double modulus(double x)
{
    return x < 0 ? -x : x;
}

GPULDU_HD inline double modulus(const Complex& x)
{
    return thrust::abs(x);
}

GPULDU_HD inline double squaredModulus(double x)
{
    return x*x;
}

GPULDU_HD inline double squaredModulus(const Complex& x)
{
    return x.real()*x.real() + x.imag()*x.imag();
}

template<class T>
GPULDU_HD bool isFinite(const T& x)
{
    return x - x == T(0);
}

//- The same on the host without floating-point operations (which OpenFOAM may trap)
inline bool finite(double x)
{
    return std::isfinite(x);
}

inline bool finite(const Complex& x)
{
    return std::isfinite(x.real()) && std::isfinite(x.imag());
}

GPULDU_HD inline double staticPivot(double d, double floor)
{
    return d < 0 ? -floor : floor;
}

GPULDU_HD inline Complex staticPivot(const Complex& d, double floor)
{
    const double a = thrust::abs(d);
    return a > 0 ? d*(floor/a) : Complex(floor);
}

//- The supernodes' storage as the kernels see it (SymbolicLdlt: superFirst, superRowStart,
//  valueStart, updateStart), values of type T
template<class T>
struct LdltFronts
{
    const int* superFirst;
    const long* superRowStart;
    const long* valueStart;
    const long* updateStart;
    T* values;
    T* update;

    //- Entry (i, j), i >= j, of supernode s's front: L's block for j < k, else U
    struct Front
    {
        T* L;
        T* U;
        int m;
        int k;

        GPULDU_HD T& operator()(int i, int j) const
        {
            return j < k ? L[long(j)*m + i] : U[long(j - k)*(m - k) + (i - k)];
        }
    };

    GPULDU_HD int cols(int s) const
    {
        return superFirst[s + 1] - superFirst[s];
    }

    GPULDU_HD int rows(int s) const
    {
        return int(superRowStart[s + 1] - superRowStart[s]);
    }

    GPULDU_HD Front front(int s) const
    {
        return {values + valueStart[s], update + updateStart[s], rows(s), cols(s)};
    }
};

//- The extend-add, one column of one child's update matrix per team: F_parent(rel(a), rel(b))
//  += U_c(a, b) for a >= b (teams[t]: the child, column[t]: b), leaving U_c's place zero (the
//  arena's free space is kept zero; the upper triangles are never written). One child of each
//  parent per launch, so no two teams write one value.
template<class T>
struct LdltExtendAdd
{
    LdltFronts<T> fronts;
    const int* superParent;
    const int* relIndex;
    const int* child;
    const int* column;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int c = child[t];
        const int b = column[t];
        const int w = fronts.rows(c) - fronts.cols(c);
        T* u = fronts.update + fronts.updateStart[c] + long(b)*w;
        const int* rel = relIndex + fronts.superRowStart[c] + fronts.cols(c);
        const typename LdltFronts<T>::Front parent = fronts.front(superParent[c]);
        const int jb = rel[b];
        for (int a = b + team.lane(); a < w; a += team.size())
        {
            parent(rel[a], jb) += u[a];
            u[a] = 0;   // free again: zero for the next update matrix placed here
        }
    }
};

//- Pivots c0 .. c1 - 1 of the front of nodes[t], by a team: for each pivot in turn its value
//  (static pivoting: flag[column] 0, 1 replaced or 2 not finite), the rank-one update of the
//  trailing lower triangle up to row rowEnd, then the column divided by the pivot. c1 < 0:
//  all k pivots; rowEnd < 0: all m rows (the whole partial factorisation of a small front).
template<class T>
struct LdltFactorFront
{
    LdltFronts<T> fronts;
    const int* nodes;
    int* flag;
    double floor;
    int c0;
    int c1;
    int rowEnd;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const typename LdltFronts<T>::Front F = fronts.front(s);
        const int last = c1 < 0 ? F.k : c1;
        const int end = rowEnd < 0 ? F.m : rowEnd;
        for (int c = c0; c < last; ++c)
        {
            if (team.lane() == 0)
            {
                T d = F(c, c);
                int f = 0;
                if (!isFinite(d))
                {
                    f = 2;
                }
                else if (!(modulus(d) >= floor))
                {
                    d = staticPivot(d, floor);
                    f = 1;
                }
                F(c, c) = d;
                flag[fronts.superFirst[s] + c] = f;
            }
            team.sync();
            const T d = F(c, c);
            const int w = end - c - 1;
            // F(i, j) -= F(i, c) F(j, c) / d for c < j <= i < end: lanes along the rows
            for (long e = team.lane(); e < long(w)*w; e += team.size())
            {
                const int j = c + 1 + int(e/w);
                const int i = c + 1 + int(e%w);
                if (i >= j)
                {
                    F(i, j) -= F(i, c)*(F(j, c)/d);
                }
            }
            team.sync();
            for (int i = c + 1 + team.lane(); i < end; i += team.size())
            {
                F(i, c) /= d;
            }
            team.sync();
        }
    }
};

//- After the triangular solve of a large front's panel (X = F21 L11^-T = L21 D1, leading
//  dimension m): W = X (leading dimension rows) and X = L21 (columns divided by their pivots)
template<class T>
struct LdltPanelScale
{
    T* X;
    const T* diag;   // the panel's first pivot; pivot c at diag[c (m + 1)]
    T* W;
    int rows;
    int m;

    GPULDU_HD void operator()(int e) const
    {
        const int r = e%rows;
        const int c = e/rows;
        T& x = X[long(c)*m + r];
        W[long(c)*rows + r] = x;
        x /= diag[long(c)*(m + 1)];
    }
};

//- The forward solve L y = y of the front of nodes[t] by a team: its children's update vectors
//  added (children in order), then for each pivot c, y_c final: y_i -= L(i, c) y_c for the rows
//  below, into y for s's own columns and into s's update vector u_s for the rows beyond
template<class T>
struct LdltForwardFront
{
    LdltFronts<T> fronts;
    const long* vectorStart;
    const int* relIndex;
    const int* childStart;
    const int* children;
    const int* nodes;
    T* y;
    T* u;
    //- Only the children's update vectors (the dense part by the BLAS: a long supernode)
    bool childrenOnly;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const int f = fronts.superFirst[s];
        const int k = fronts.cols(s);
        const int m = fronts.rows(s);
        const T* L = fronts.values + fronts.valueStart[s];
        T* us = u + vectorStart[s];
        for (int i = team.lane(); i < m - k; i += team.size())
        {
            us[i] = 0;
        }
        team.sync();
        for (int q = childStart[s]; q < childStart[s + 1]; ++q)
        {
            const int c = children[q];
            const int w = fronts.rows(c) - fronts.cols(c);
            const T* uc = u + vectorStart[c];
            const int* rel = relIndex + fronts.superRowStart[c] + fronts.cols(c);
            for (int a = team.lane(); a < w; a += team.size())
            {
                const int r = rel[a];
                if (r < k)
                {
                    y[f + r] += uc[a];
                }
                else
                {
                    us[r - k] += uc[a];
                }
            }
            team.sync();
        }
        for (int c = 0; c < k && !childrenOnly; ++c)
        {
            const T yc = y[f + c];
            for (int i = c + 1 + team.lane(); i < m; i += team.size())
            {
                const T v = L[long(c)*m + i]*yc;
                if (i < k)
                {
                    y[f + i] -= v;
                }
                else
                {
                    us[i - k] -= v;
                }
            }
            team.sync();
        }
    }
};

//- z = y / D
template<class T>
struct LdltDiagonal
{
    const T* D;
    T* y;

    GPULDU_HD void operator()(int j) const
    {
        y[j] /= D[j];
    }
};

//- The backward solve L^T w = w of the front of nodes[t] by a team (its ancestors' rows final):
//  w_j -= sum_{i beyond s} L(i, j) w_i for s's columns j, then the block's own rows, last
//  pivot first
template<class T>
struct LdltBackwardFront
{
    LdltFronts<T> fronts;
    const int* superRows;
    const int* nodes;
    T* w;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int s = nodes[t];
        const int f = fronts.superFirst[s];
        const int k = fronts.cols(s);
        const int m = fronts.rows(s);
        const T* L = fronts.values + fronts.valueStart[s];
        const int* R = superRows + fronts.superRowStart[s];
        for (int j = team.lane(); j < k; j += team.size())
        {
            T sum = w[f + j];
            for (int i = k; i < m; ++i)
            {
                sum -= L[long(j)*m + i]*w[R[i]];
            }
            w[f + j] = sum;
        }
        team.sync();
        for (int c = k - 1; c > 0; --c)
        {
            const T wc = w[f + c];
            for (int j = team.lane(); j < c; j += team.size())
            {
                w[f + j] -= L[long(j)*m + c]*wc;
            }
            team.sync();
        }
    }
};

//- Between A's order and C's, with the scaling S: to[i] = s[k] from[k] (gather), or
//  to[k] += s[k] from[i] (not gather), k = index[i]
template<class T>
struct LdltPermute
{
    const int* index;
    const double* s;
    const T* from;
    T* to;
    bool gather;

    GPULDU_HD void operator()(int i) const
    {
        const int k = index[i];
        if (gather)
        {
            to[i] = s[k]*from[k];
        }
        else
        {
            to[k] += s[k]*from[i];
        }
    }
};

//- r_i = b_i - (A x)_i, A in full symmetric CSR
template<class T>
struct LdltResidualRow
{
    const int* rowStart;
    const int* col;
    const T* val;
    const T* x;
    const T* b;
    T* r;

    GPULDU_HD void operator()(int i) const
    {
        T s = 0;
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            s += val[p]*x[col[p]];
        }
        r[i] = b[i] - s;
    }
};

//- |v_i|^2, for the norms
template<class T>
struct SquaredModulus
{
    const T* v;

    GPULDU_HD double operator()(int i) const
    {
        return squaredModulus(v[i]);
    }
};

} // namespace detail

//- T: double, or Complex for complex symmetric matrices (the API's std::complex<double>)
template<class B, class T = double>
class LdltSolverImpl : public BasicLdltSolver<typename detail::HostScalarOf<T>::type>
{
    using HostScalar = typename detail::HostScalarOf<T>::type;

    template<class V>
    using Vector = typename B::template Vector<V>;
    using Clock = std::chrono::steady_clock;

    //- The pivot floor over the largest |entry| of S A S (static pivoting)
    static constexpr double pivotFloorFactor = 1e-10;

    //- The GPU threads of a team (one front, one update column)
    static constexpr int team = 128;

    //- Fronts of more rows than this are factored in panels through the dense BLAS
    static constexpr int smallFront = 128;

    //- The panel width of a large front
    static constexpr int panel = 128;

    //- Supernodes of more columns than this are solved through the BLAS (trsv, gemv)
    static constexpr int longSupernode = 32;

    SymbolicLdlt s_;
    LdltAnalysis analysis_;
    bool factored_ = false;

    //- Each input entry's row and column (A's), its slot among the distinct places of C's
    //  lower part it adds to, and those places in the factor's values
    std::vector<int> entryRow_, entryCol_, entrySlot_;
    std::vector<long> slotPos_;
    std::vector<int> toCsr_[2];

    //- Per level: the fronts (small first, then large: nodes_[levelStart .. smallEnd) and
    //  [smallEnd .. levelStart + 1)), and the extend-add rounds (teams of round r of level l:
    //  [rounds_[l][r], rounds_[l][r + 1]))
    std::vector<int> smallEnd_, hostNodes_;
    //- The rows of the largest large front (a panel workspace per side stream: rows x panel)
    long panelRows_ = 0;
    //- The most rows below a long supernode (the backward solve's gather)
    long longestBelow_ = 0;
    //- The same for the solves: per level the supernodes of a team, then the long ones
    std::vector<int> solveTeamEnd_, hostSolveNodes_;
    std::vector<std::vector<long>> rounds_;

    //- On the backend: the supernodal structure, the fronts of each level, the extend-add teams,
    //  the factor's values, the update matrices and vectors, the panel workspace, D and its
    //  places, A's full CSR, the pivot flags, the permutation, work vectors
    Vector<int> superFirst_, superRows_, superParent_, relIndex_, childStart_, children_, nodes_;
    Vector<long> superRowStart_, valueStart_, updateStart_, vectorStart_, diagPos_, slotPos_d_;
    Vector<int> eaChild_, eaColumn_, flag_, perm_;
    Vector<int> solveNodes_;
    Vector<T> values_, update_, updateVector_, panelW_, D_, slots_, gathered_;
    Vector<int> csrStart_, csrCol_;
    Vector<T> csrVal_;
    Vector<T> x_, b_, r_, y_;
    //- The symmetric scaling S (A's order)
    Vector<double> scale_;
    std::vector<T> hostSlots_, hostCsr_;
    std::vector<double> hostScale_;

    static double secondsSince(Clock::time_point t)
    {
        B::synchronize();
        return std::chrono::duration<double>(Clock::now() - t).count();
    }

    detail::LdltFronts<T> fronts()
    {
        return {ptr(superFirst_), ptr(superRowStart_), ptr(valueStart_), ptr(updateStart_), ptr(values_),
                ptr(update_)};
    }

    //- The large front at nodes_[q], panel by panel
    void factorLarge(int q, double floor);

    //- The bytes the factorisation takes on the backend (symbolic analysis done, panelRows_
    //  set), checked against memory (< 0: what the backend has) before anything is allocated:
    //  an Error saying what it needs, what there is and what to do
    double checkMemory(double memory) const
    {
        const int ns = s_.nSupernodes();
        const double t = sizeof(T);
        const double bytes = t*(s_.valueStart[ns] + s_.updateArena + panelRows_*panel*B::sideStreams)
            + 4.0*s_.superRows.size()*2 + t*s_.vectorStart[ns] + (28.0 + 4*t)*s_.n + (8.0 + 2*t)*s_.nnzALower;
        const double available = memory < 0 ? B::availableMemory() : memory;
        if (bytes > 0.9*available)
        {
            throw Error("gpuLdu: LDL^T: the factorisation of " + std::to_string(s_.n) + " rows ("
                        + orderingName(analysis_.ordering) + ") needs " + std::to_string(long(bytes/1048576))
                        + " MiB (" + std::to_string(long(t*s_.valueStart[ns]/1048576)) + " MiB of L, "
                        + std::to_string(long(t*s_.updateArena/1048576)) + " MiB of update matrices), "
                        + std::to_string(long(available/1048576)) + " MiB are available on the "
                        + executorName(B::executor) + " executor: try the METIS ordering, another executor, "
                        "or an iterative solver");
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
        panelW_.resize(panelRows_*panel*B::sideStreams);
        gathered_.resize(longestBelow_);
        slots_.resize(slotPos_.size());
        csrVal_.resize(csrCol_.size());
        flag_.resize(n);
        for (Vector<T>* v : {&x_, &b_, &r_, &y_, &D_})
        {
            v->resize(n);
        }
        scale_.resize(n);
        hostSlots_.resize(slotPos_.size());
        hostScale_.resize(n);
        hostCsr_.resize(csrCol_.size());
    }

    //- The symbolic analysis and set-up of other, copied (not redone), and numeric arrays of
    //  its own (withSameAnalysis)
    struct CopyAnalysis {};
    LdltSolverImpl(const LdltSolverImpl& other, CopyAnalysis)
    :
        s_(other.s_),
        analysis_(other.analysis_),
        entryRow_(other.entryRow_),
        entryCol_(other.entryCol_),
        entrySlot_(other.entrySlot_),
        slotPos_(other.slotPos_),
        toCsr_{other.toCsr_[0], other.toCsr_[1]},
        smallEnd_(other.smallEnd_),
        hostNodes_(other.hostNodes_),
        panelRows_(other.panelRows_),
        longestBelow_(other.longestBelow_),
        solveTeamEnd_(other.solveTeamEnd_),
        hostSolveNodes_(other.hostSolveNodes_),
        rounds_(other.rounds_),
        superFirst_(other.superFirst_),
        superRows_(other.superRows_),
        superParent_(other.superParent_),
        relIndex_(other.relIndex_),
        childStart_(other.childStart_),
        children_(other.children_),
        nodes_(other.nodes_),
        superRowStart_(other.superRowStart_),
        valueStart_(other.valueStart_),
        updateStart_(other.updateStart_),
        vectorStart_(other.vectorStart_),
        diagPos_(other.diagPos_),
        slotPos_d_(other.slotPos_d_),
        eaChild_(other.eaChild_),
        eaColumn_(other.eaColumn_),
        perm_(other.perm_),
        solveNodes_(other.solveNodes_),
        csrStart_(other.csrStart_),
        csrCol_(other.csrCol_)
    {
        const auto begin = Clock::now();
        checkMemory(-1);
        allocateNumeric();
        analysis_.seconds = secondsSince(begin);
    }

    //- y = C^-1 y (C's order), level by level: supernodes of up to longSupernode columns by a
    //  team each (one launch per level), longer ones (their chain of columns would serialise a
    //  team) through the BLAS: trsv with L11, gemv with L21
    void solvePermuted(T* y)
    {
        const int* nodes = ptr(solveNodes_);
        T* u = ptr(updateVector_);
        const auto forward = [&](int begin, int end, bool childrenOnly)
        {
            B::forEachTeam(begin, end, team, detail::LdltForwardFront<T>{
                fronts(), ptr(vectorStart_), ptr(relIndex_), ptr(childStart_), ptr(children_), nodes, y, u,
                childrenOnly});
        };
        for (int l = 0; l < s_.nLevels(); ++l)
        {
            forward(s_.levelStart[l], solveTeamEnd_[l], false);
            for (int q = solveTeamEnd_[l]; q < s_.levelStart[l + 1]; ++q)
            {
                const int sn = hostSolveNodes_[q];
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
            B::forEachTeam(s_.levelStart[l], solveTeamEnd_[l], team, detail::LdltBackwardFront<T>{
                fronts(), ptr(superRows_), nodes, y});
            for (int q = solveTeamEnd_[l]; q < s_.levelStart[l + 1]; ++q)
            {
                const int sn = hostSolveNodes_[q];
                const int f = s_.superFirst[sn], k = s_.cols(sn), m = s_.rows(sn);
                const T* L = ptr(values_) + s_.valueStart[sn];
                if (m > k)
                {
                    // w_s -= L21^T w_R, the rows R beyond s gathered
                    forEach<B>(0, m - k, detail::Gather<T>{
                        ptr(superRows_) + s_.superRowStart[sn] + k, y, ptr(gathered_)});
                    B::subtractMatrixVector(m - k, k, L + k, m, ptr(gathered_), y + f, true);
                }
                B::solveUnitLowerVector(k, L, m, y + f, true);
            }
        }
    }

    //- x += A^-1 r (A's order): y = P S r, y = C^-1 y, x += S P^T y
    void correct(T* x, const T* r)
    {
        forEach<B>(0, s_.n, detail::LdltPermute<T>{ptr(perm_), ptr(scale_), r, ptr(y_), true});
        solvePermuted(ptr(y_));
        forEach<B>(0, s_.n, detail::LdltPermute<T>{ptr(perm_), ptr(scale_), ptr(y_), x, false});
    }

    //- r = b - A x
    void residual(const T* x, const T* b, T* r)
    {
        forEach<B>(0, s_.n, detail::LdltResidualRow<T>{ptr(csrStart_), ptr(csrCol_), ptr(csrVal_), x, b, r});
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
    const auto begin = Clock::now();
    const int n = lower.n;
    s_ = analyseLdlt(lower, ordering);
    for (int j = 0; j < n; ++j)
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
    const int ns = s_.nSupernodes();

    // What the factor needs on the backend, before any of it is allocated
    for (int sn = 0; sn < ns; ++sn)
    {
        if (s_.rows(sn) > smallFront)
        {
            panelRows_ = std::max(panelRows_, long(s_.rows(sn)));
        }
    }
    analysis_.ordering = ordering;
    const double bytes = checkMemory(memory);

    // Each entry's place in C's lower part: C(i', j') with i' = inverse[i], j' = inverse[j]
    // (swapped into the lower triangle), found among the rows of j's supernode; the distinct
    // places numbered as slots (duplicated entries share one)
    const int nnzA = n > 0 ? lower.colStart[n] : 0;
    entryRow_.resize(nnzA);
    entryCol_.resize(nnzA);
    entrySlot_.resize(nnzA);
    std::vector<long> place(nnzA);
    for (int j = 0; j < n; ++j)
    {
        for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
        {
            entryRow_[p] = lower.rows[p];
            entryCol_[p] = j;
            int a = s_.inverse[lower.rows[p]], c = s_.inverse[j];
            if (a < c)
            {
                std::swap(a, c);
            }
            const int sn = s_.superOf[c];
            const auto first = s_.superRows.begin() + s_.superRowStart[sn];
            const auto last = s_.superRows.begin() + s_.superRowStart[sn + 1];
            const long r = std::lower_bound(first, last, a) - first;
            place[p] = s_.valueStart[sn] + long(c - s_.superFirst[sn])*s_.rows(sn) + r;
        }
    }
    {
        std::vector<int> order(nnzA);
        for (int p = 0; p < nnzA; ++p)
        {
            order[p] = p;
        }
        std::sort(order.begin(), order.end(), [&](int x, int y) { return place[x] < place[y]; });
        for (int q = 0; q < nnzA; ++q)
        {
            if (q == 0 || place[order[q]] != place[order[q - 1]])
            {
                slotPos_.push_back(place[order[q]]);
            }
            entrySlot_[order[q]] = int(slotPos_.size()) - 1;
        }
    }

    // A's full CSR: row i holds the entries of column i and their mirrors, in input order
    std::vector<int> start(n + 1, 0);
    for (int j = 0; j < n; ++j)
    {
        for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
        {
            ++start[j + 1];
            if (lower.rows[p] != j)
            {
                ++start[lower.rows[p] + 1];
            }
        }
    }
    for (int i = 0; i < n; ++i)
    {
        start[i + 1] += start[i];
    }
    std::vector<int> col(start[n]);
    std::vector<int> next(start.begin(), start.end() - 1);
    toCsr_[0].assign(nnzA, -1);
    toCsr_[1].assign(nnzA, -1);
    for (int j = 0; j < n; ++j)
    {
        for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
        {
            const int i = lower.rows[p];
            toCsr_[0][p] = next[j];
            col[next[j]++] = i;
            if (i != j)
            {
                toCsr_[1][p] = next[i];
                col[next[i]++] = j;
            }
        }
    }

    // The fronts of each level, small ones first; the extend-add teams of each level's rounds
    // (round r: the r-th child of every front of the level that has one)
    std::vector<int> nodes;
    std::vector<int> eaChild, eaColumn;
    smallEnd_.resize(s_.nLevels());
    rounds_.resize(s_.nLevels());
    for (int l = 0; l < s_.nLevels(); ++l)
    {
        const auto first = s_.levelNodes.begin() + s_.levelStart[l];
        const auto last = s_.levelNodes.begin() + s_.levelStart[l + 1];
        std::vector<int> level(first, last);
        const auto large = std::stable_partition(level.begin(), level.end(), [&](int sn)
        {
            return s_.rows(sn) <= smallFront;
        });
        smallEnd_[l] = s_.levelStart[l] + int(large - level.begin());
        nodes.insert(nodes.end(), level.begin(), level.end());
        rounds_[l].push_back(long(eaChild.size()));
        for (int r = 0;; ++r)
        {
            bool any = false;
            for (const int p : level)
            {
                if (s_.childStart[p] + r < s_.childStart[p + 1])
                {
                    any = true;
                    const int c = s_.children[s_.childStart[p] + r];
                    for (int b = 0; b < s_.rows(c) - s_.cols(c); ++b)
                    {
                        eaChild.push_back(c);
                        eaColumn.push_back(b);
                    }
                }
            }
            if (!any)
            {
                break;
            }
            rounds_[l].push_back(long(eaChild.size()));
        }
    }
    std::vector<int> solveNodes;
    solveTeamEnd_.resize(s_.nLevels());
    long longestBelow = 0;
    for (int l = 0; l < s_.nLevels(); ++l)
    {
        std::vector<int> level(s_.levelNodes.begin() + s_.levelStart[l], s_.levelNodes.begin() + s_.levelStart[l + 1]);
        const auto longOnes = std::stable_partition(level.begin(), level.end(), [&](int sn)
        {
            return s_.cols(sn) <= longSupernode;
        });
        solveTeamEnd_[l] = s_.levelStart[l] + int(longOnes - level.begin());
        for (auto it = longOnes; it != level.end(); ++it)
        {
            longestBelow = std::max(longestBelow, long(s_.rows(*it) - s_.cols(*it)));
        }
        solveNodes.insert(solveNodes.end(), level.begin(), level.end());
    }
    std::vector<long> diagPos(n);
    for (int j = 0; j < n; ++j)
    {
        const int sn = s_.superOf[j];
        const long c = j - s_.superFirst[sn];
        diagPos[j] = s_.valueStart[sn] + c*s_.rows(sn) + c;
    }

    const auto upload = [](auto& to, const auto& from)
    {
        to.resize(from.size());
        B::upload(ptr(to), from.data(), from.size());
    };
    upload(superFirst_, s_.superFirst);
    upload(superRowStart_, s_.superRowStart);
    upload(superRows_, s_.superRows);
    upload(superParent_, s_.superParent);
    upload(relIndex_, s_.relIndex);
    upload(childStart_, s_.childStart);
    upload(children_, s_.children);
    upload(valueStart_, s_.valueStart);
    upload(updateStart_, s_.updateStart);
    upload(vectorStart_, s_.vectorStart);
    upload(nodes_, nodes);
    hostNodes_ = nodes;
    upload(solveNodes_, solveNodes);
    hostSolveNodes_ = solveNodes;
    longestBelow_ = longestBelow;
    upload(eaChild_, eaChild);
    upload(eaColumn_, eaColumn);
    upload(diagPos_, diagPos);
    upload(slotPos_d_, slotPos_);
    upload(perm_, s_.perm);
    upload(csrStart_, start);
    upload(csrCol_, col);
    allocateNumeric();

    analysis_.n = n;
    analysis_.nnzALower = s_.nnzALower;
    analysis_.nnzL = s_.nnzL;
    analysis_.flops = s_.flops;
    analysis_.nLevels = s_.nLevels();
    analysis_.nSupernodes = ns;
    analysis_.storedL = s_.valueStart[ns];
    analysis_.updateEntries = s_.updateArena;
    analysis_.deviceBytes = bytes;
    analysis_.seconds = secondsSince(begin);
}

template<class B, class T>
void LdltSolverImpl<B, T>::factorLarge(int q, double floor)
{
    const int sn = hostNodes_[q];
    const int m = s_.rows(sn), k = s_.cols(sn);
    T* F = ptr(values_) + s_.valueStart[sn];
    T* U = ptr(update_) + s_.updateStart[sn];
    T* W = ptr(panelW_) + long(q%B::sideStreams)*panelRows_*panel;
    for (int p = 0; p < k; p += panel)
    {
        // the panel's diagonal block F11 = L11 D1 L11^T, by one team
        const int nb = std::min(panel, k - p);
        B::forEachTeam(q, q + 1, team, detail::LdltFactorFront<T>{
            fronts(), ptr(nodes_), ptr(flag_), floor, p, p + nb, p + nb});
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
    const auto start = Clock::now();
    const int n = s_.n;
    LdltFactorStats stats;
    std::fill(hostSlots_.begin(), hostSlots_.end(), T(0));
    std::fill(hostCsr_.begin(), hostCsr_.end(), T(0));

    // A (duplicates summed) into its CSR; the symmetric scaling S: s_i = 1/sqrt(|a_ii|),
    // or where a_ii = 0, 1/sqrt(max_j |a_ij|), so that S A S has ones on the diagonal where A
    // has no zero there, and entries of about 1 at most: the pivot floor is relative to that
    std::vector<T> diag(n, T(0));
    std::vector<double> rowMax(n, 0.0);
    for (std::size_t p = 0; p < entrySlot_.size(); ++p)
    {
        const T v(values[p]);
        if (!detail::finite(v))
        {
            factored_ = false;
            throw Error("gpuLdu: LDL^T values: entry " + std::to_string(p + 1) + " is not finite");
        }
        hostCsr_[toCsr_[0][p]] += v;
        if (toCsr_[1][p] >= 0)
        {
            hostCsr_[toCsr_[1][p]] += v;
        }
        const int i = entryRow_[p], j = entryCol_[p];
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
            factored_ = false;
            throw Error("gpuLdu: LDL^T values: row " + std::to_string(i + 1) + " of A is all zero: the matrix is singular");
        }
        hostScale_[i] = 1/std::sqrt(d);
    }
    for (std::size_t p = 0; p < entrySlot_.size(); ++p)
    {
        hostSlots_[entrySlot_[p]] += T(values[p])*hostScale_[entryRow_[p]]*hostScale_[entryCol_[p]];
    }
    double largest = 0;
    for (const T& v : hostSlots_)
    {
        largest = std::max(largest, detail::modulus(v));
    }
    stats.pivotFloor = pivotFloorFactor*largest;
    B::upload(ptr(slots_), hostSlots_.data(), hostSlots_.size());
    B::upload(ptr(scale_), hostScale_.data(), n);
    B::upload(ptr(csrVal_), hostCsr_.data(), hostCsr_.size());
    thrust::fill_n(B::policy(), values_.begin(), values_.size(), T(0));
    thrust::fill_n(B::policy(), update_.begin(), update_.size(), T(0));
    forEach<B>(0, int(slotPos_.size()), detail::Scatter<T, long>{ptr(slotPos_d_), ptr(slots_), ptr(values_)});

    for (int l = 0; l < s_.nLevels(); ++l)
    {
        for (std::size_t r = 0; r + 1 < rounds_[l].size(); ++r)
        {
            B::forEachTeam(int(rounds_[l][r]), int(rounds_[l][r + 1]), team, detail::LdltExtendAdd<T>{
                fronts(), ptr(superParent_), ptr(relIndex_), ptr(eaChild_), ptr(eaColumn_)});
        }
        B::forEachTeam(s_.levelStart[l], smallEnd_[l], team, detail::LdltFactorFront<T>{
            fronts(), ptr(nodes_), ptr(flag_), stats.pivotFloor, 0, -1, -1});
        // the large fronts of the level one after another from here, each on a side stream of
        // its own turn (its own panel workspace): independent fronts overlap on the device
        struct BackToDefault
        {
            ~BackToDefault()
            {
                B::useDefaultStream();
            }
        } backToDefault;
        for (int q = smallEnd_[l]; q < s_.levelStart[l + 1]; ++q)
        {
            B::useSideStream(q);
            factorLarge(q, stats.pivotFloor);
        }
    }
    forEach<B>(0, n, detail::Gather<T, long>{ptr(diagPos_), ptr(values_), ptr(D_)});
    std::vector<int> flags(n);
    B::download(flags.data(), ptr(flag_), n);
    for (int j = 0; j < n; ++j)
    {
        if (flags[j] == 2)
        {
            factored_ = false;
            throw Error("gpuLdu: LDL^T: the pivot of column " + std::to_string(s_.perm[j] + 1)
                        + " (of A) is not finite: the matrix is singular or its values overflow");
        }
        stats.nStaticPivots += flags[j];
    }
    factored_ = true;
    stats.seconds = secondsSince(start);
    return stats;
}

template<class B, class T>
SolveResult LdltSolverImpl<B, T>::solve(const HostScalar* b, HostScalar* x, double tolerance, int maxRefinement)
{
    if (!factored_)
    {
        throw Error("gpuLdu: LDL^T solve without a factorisation");
    }
    const auto start = Clock::now();
    const int n = s_.n;
    SolveResult result;
    B::upload(ptr(b_), reinterpret_cast<const T*>(b), n);
    thrust::fill_n(B::policy(), ptr(x_), n, T(0));
    result.uploadSeconds = secondsSince(start);

    const auto iterate = Clock::now();
    const double bNorm = norm(ptr(b_));
    const double scale = bNorm > 0 ? 1/bNorm : 1;
    correct(ptr(x_), ptr(b_));
    residual(ptr(x_), ptr(b_), ptr(r_));
    result.initialResidual = result.finalResidual = norm(ptr(r_))*scale;
    result.setupSeconds = secondsSince(iterate);
    const auto refine = Clock::now();
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
    result.iterateSeconds = secondsSince(refine);
    B::download(reinterpret_cast<T*>(x), ptr(x_), n);
    return result;
}

} // namespace gpuLdu

#endif
