// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver on a backend B: the numeric factorisation of C = P A P^T = L D L^T and
// the solves, level by level of the elimination tree (SymbolicLdlt.hpp), each column of a level
// one parallel task. Compiled once per backend (cpuSystem.cpp, gpuSystem.cu).
//
// The factorisation is the reference method's column algorithm, left-looking (a team of threads
// per column: LdltFactorColumn): column j gathers
// the updates of the columns k < j with L(j, k) != 0 (all in lower levels, so final), in
// ascending k,
//     d_j    = c_jj - sum_k L(j,k)^2 d_k,
//     L(i,j) = (c_ij - sum_k L(i,k) d_k L(j,k)) / d_j      (i > j),
// where the right-looking form scatters column k's updates into the columns above it with atomics.
// No two tasks write the same value and every sum has a fixed order: the factor is the same, bit
// for bit, on both backends and from run to run. A pivot below the floor sqrt(eps) max|a_ij| is
// replaced by +-floor (static pivoting) and counted; the refinement of the solve makes up for it.

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
#include <limits>

namespace gpuLdu
{

namespace detail
{

//- Column cols[t] of L and its pivot, from C's values in L and D (see above), by a team: the
//  updates one after another (a barrier between two), the rows of each update spread over the
//  team's lanes (a team of one merges the two columns' rows, a lane of a larger team bisects
//  column j for its row: the same place); so every value takes its updates in ascending k
//  whatever the team's size, the same bits on both backends. flag[j]: 0, 1 (pivot replaced by
//  static pivoting) or 2 (pivot not finite)
struct LdltFactorColumn
{
    const int* cols;
    const long* lStart;
    const int* lRows;
    const long* rowStart;
    const int* rowCols;
    const long* rowPos;
    double* L;
    double* D;
    int* flag;
    double floor;

    template<class Team>
    GPULDU_HD void operator()(int t, const Team& team) const
    {
        const int j = cols[t];
        const long first = lStart[j];
        const long last = lStart[j + 1];
        double dj = D[j];
        for (long e = rowStart[j]; e < rowStart[j + 1]; ++e)
        {
            const int k = rowCols[e];
            const long p = rowPos[e];
            const double ljk = L[p];
            const double s = ljk*D[k];
            dj -= s*ljk;
            // column k's rows below j are rows of column j (the structure of L): a team of one
            // walks both columns together, a lane of a team bisects column j for its row
            long q = first;
            for (long r = p + 1 + team.lane(); r < lStart[k + 1]; r += team.size())
            {
                const int i = lRows[r];
                if (team.size() == 1)
                {
                    while (lRows[q] != i)
                    {
                        ++q;
                    }
                }
                else
                {
                    long hi = last - 1;
                    q = first;
                    while (q < hi)
                    {
                        const long mid = (q + hi)/2;
                        if (lRows[mid] < i)
                        {
                            q = mid + 1;
                        }
                        else
                        {
                            hi = mid;
                        }
                    }
                }
                L[q] -= L[r]*s;
            }
            team.sync();
        }
        if (team.lane() == 0)
        {
            int f = 0;
            if (!(dj - dj == 0))
            {
                f = 2;
            }
            else if (!(dj >= floor || dj <= -floor))
            {
                dj = dj < 0 ? -floor : floor;
                f = 1;
            }
            flag[j] = f;
            D[j] = dj;
        }
        team.sync();
        const double d = D[j];
        for (long q = first + team.lane(); q < last; q += team.size())
        {
            L[q] /= d;
        }
    }
};

//- Forward solve L y = y, row cols[t]: y_j -= sum_k L(j,k) y_k (its columns in lower levels)
struct LdltForwardRow
{
    const int* cols;
    const long* rowStart;
    const int* rowCols;
    const long* rowPos;
    const double* L;
    double* y;

    GPULDU_HD void operator()(int t) const
    {
        const int j = cols[t];
        double s = y[j];
        for (long e = rowStart[j]; e < rowStart[j + 1]; ++e)
        {
            s -= L[rowPos[e]]*y[rowCols[e]];
        }
        y[j] = s;
    }
};

//- z = y / D
struct LdltDiagonal
{
    const double* D;
    double* y;

    GPULDU_HD void operator()(int j) const
    {
        y[j] /= D[j];
    }
};

//- Backward solve L^T w = w, column cols[t]: w_j -= sum_i L(i,j) w_i (its rows in higher levels)
struct LdltBackwardColumn
{
    const int* cols;
    const long* lStart;
    const int* lRows;
    const double* L;
    double* w;

    GPULDU_HD void operator()(int t) const
    {
        const int j = cols[t];
        double s = w[j];
        for (long q = lStart[j]; q < lStart[j + 1]; ++q)
        {
            s -= L[q]*w[lRows[q]];
        }
        w[j] = s;
    }
};

//- Between A's order and C's, with the scaling S: to[i] = s[k] from[k] (gather), or
//  to[k] += s[k] from[i] (not gather), k = index[i]
struct LdltPermute
{
    const int* index;
    const double* s;
    const double* from;
    double* to;
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
struct LdltResidualRow
{
    const int* rowStart;
    const int* col;
    const double* val;
    const double* x;
    const double* b;
    double* r;

    GPULDU_HD void operator()(int i) const
    {
        double s = 0;
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            s += val[p]*x[col[p]];
        }
        r[i] = b[i] - s;
    }
};

} // namespace detail

template<class B>
class LdltSolverImpl : public LdltSolver
{
    template<class T>
    using Vector = typename B::template Vector<T>;
    using Clock = std::chrono::steady_clock;

    //- The pivot floor over the largest |entry| of S A S (static pivoting)
    static constexpr double pivotFloorFactor = 1e-10;

    //- The GPU threads that factor one column together
    static constexpr int columnTeam = 128;

    SymbolicLdlt s_;
    LdltAnalysis analysis_;
    bool factored_ = false;

    //- Where each input value goes: into C's lower part (L's slot, or n_L + j for the pivot
    //  d_j) and into A's full CSR (one or two slots)
    std::vector<long> toFactor_;
    std::vector<int> toCsr_[2];
    //- Each input entry's row and column (A's)
    std::vector<int> entryRow_, entryCol_;

    //- On the backend: the symbolic structure, the levels, the factor (L then D), A's full CSR,
    //  the pivot flags, the permutation, work vectors
    Vector<long> lStart_, rowStart_, rowPos_;
    Vector<int> lRows_, rowCols_, levelCols_, flag_, perm_;
    Vector<double> factor_;
    Vector<int> csrStart_, csrCol_;
    Vector<double> csrVal_;
    Vector<double> x_, b_, r_, y_;
    //- The symmetric scaling S (A's order)
    Vector<double> scale_;
    std::vector<double> hostFactor_, hostCsr_, hostScale_;

    static double secondsSince(Clock::time_point t)
    {
        B::synchronize();
        return std::chrono::duration<double>(Clock::now() - t).count();
    }

    double* L()
    {
        return ptr(factor_);
    }

    double* D()
    {
        return ptr(factor_) + s_.lRows.size();
    }

    //- y = C^-1 y (C's order), level by level
    void solvePermuted(double* y)
    {
        const int* cols = ptr(levelCols_);
        for (int l = 0; l < s_.nLevels(); ++l)
        {
            forEach<B>(s_.levelStart[l], s_.levelStart[l + 1], detail::LdltForwardRow{
                cols, ptr(rowStart_), ptr(rowCols_), ptr(rowPos_), L(), y});
        }
        forEach<B>(0, s_.n, detail::LdltDiagonal{D(), y});
        for (int l = s_.nLevels() - 1; l >= 0; --l)
        {
            forEach<B>(s_.levelStart[l], s_.levelStart[l + 1], detail::LdltBackwardColumn{
                cols, ptr(lStart_), ptr(lRows_), L(), y});
        }
    }

    //- x += A^-1 r (A's order): y = P S r, y = C^-1 y, x += S P^T y
    void correct(double* x, const double* r)
    {
        forEach<B>(0, s_.n, detail::LdltPermute{ptr(perm_), ptr(scale_), r, ptr(y_), true});
        solvePermuted(ptr(y_));
        forEach<B>(0, s_.n, detail::LdltPermute{ptr(perm_), ptr(scale_), ptr(y_), x, false});
    }

    //- r = b - A x
    void residual(const double* x, const double* b, double* r)
    {
        forEach<B>(0, s_.n, detail::LdltResidualRow{ptr(csrStart_), ptr(csrCol_), ptr(csrVal_), x, b, r});
    }

    double norm(const double* v) const
    {
        return std::sqrt(thrust::transform_reduce(B::policy(), thrust::counting_iterator<int>(0),
                                                  thrust::counting_iterator<int>(s_.n), detail::Dot{v, v}, 0.0,
                                                  thrust::plus<double>()));
    }

public:
    LdltSolverImpl(const SymmetricPattern& lower, LdltOrdering ordering);

    Executor executor() const override
    {
        return B::executor;
    }

    const LdltAnalysis& analysis() const override
    {
        return analysis_;
    }

    LdltFactorStats factor(const double* values) override;

    SolveResult solve(const double* b, double* x, double tolerance, int maxRefinement) override;

    //- The factor to the host: L's values below the diagonal in the symbolic structure's order,
    //  then D (nnzL values; for the tests)
    void downloadFactor(double* to)
    {
        B::download(to, ptr(factor_), factor_.size());
    }
};


template<class B>
LdltSolverImpl<B>::LdltSolverImpl(const SymmetricPattern& lower, LdltOrdering ordering)
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

    // Each entry's place in C's lower part: C(i', j') with i' = inverse[i], j' = inverse[j]
    // (swapped into the lower triangle), found in L's sorted column j'
    const int nnzA = n > 0 ? lower.colStart[n] : 0;
    toFactor_.resize(nnzA);
    entryRow_.resize(nnzA);
    entryCol_.resize(nnzA);
    for (int j = 0; j < n; ++j)
    {
        for (int p = lower.colStart[j]; p < lower.colStart[j + 1]; ++p)
        {
            entryRow_[p] = lower.rows[p];
            entryCol_[p] = j;
            int a = s_.inverse[lower.rows[p]], c = s_.inverse[j];
            if (a == c)
            {
                toFactor_[p] = long(s_.lRows.size()) + a;
                continue;
            }
            if (a < c)
            {
                std::swap(a, c);
            }
            const auto first = s_.lRows.begin() + s_.lStart[c];
            const auto last = s_.lRows.begin() + s_.lStart[c + 1];
            toFactor_[p] = std::lower_bound(first, last, a) - s_.lRows.begin();
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

    const auto upload = [](auto& to, const auto& from)
    {
        to.resize(from.size());
        B::upload(ptr(to), from.data(), from.size());
    };
    upload(lStart_, s_.lStart);
    upload(lRows_, s_.lRows);
    upload(rowStart_, s_.rowStart);
    upload(rowCols_, s_.rowCols);
    upload(rowPos_, s_.rowPos);
    upload(levelCols_, s_.levelCols);
    upload(perm_, s_.perm);
    upload(csrStart_, start);
    upload(csrCol_, col);
    factor_.resize(s_.lRows.size() + n);
    csrVal_.resize(col.size());
    flag_.resize(n);
    for (Vector<double>* v : {&x_, &b_, &r_, &y_, &scale_})
    {
        v->resize(n);
    }
    hostFactor_.resize(factor_.size());
    hostScale_.resize(n);
    hostCsr_.resize(col.size());

    analysis_.n = n;
    analysis_.ordering = ordering;
    analysis_.nnzALower = s_.nnzALower;
    analysis_.nnzL = s_.nnzL;
    analysis_.flops = s_.flops;
    analysis_.nLevels = s_.nLevels();
    analysis_.seconds = secondsSince(begin);
}

template<class B>
LdltFactorStats LdltSolverImpl<B>::factor(const double* values)
{
    const auto start = Clock::now();
    const int n = s_.n;
    LdltFactorStats stats;
    std::fill(hostFactor_.begin(), hostFactor_.end(), 0.0);
    std::fill(hostCsr_.begin(), hostCsr_.end(), 0.0);

    // A (duplicates summed) into its CSR; the symmetric scaling S: s_i = 1/sqrt(|a_ii|),
    // or where a_ii = 0, 1/sqrt(max_j |a_ij|), so that S A S has ones on the diagonal where A
    // has no zero there, and entries of about 1 at most: the pivot floor is relative to that
    std::vector<double> diag(n, 0.0), rowMax(n, 0.0);
    for (std::size_t p = 0; p < toFactor_.size(); ++p)
    {
        const double v = values[p];
        if (!std::isfinite(v))
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
        rowMax[i] = std::max(rowMax[i], std::abs(v));
        rowMax[j] = std::max(rowMax[j], std::abs(v));
    }
    for (int i = 0; i < n; ++i)
    {
        const double d = diag[i] != 0 ? std::abs(diag[i]) : rowMax[i];
        if (!(d > 0))
        {
            factored_ = false;
            throw Error("gpuLdu: LDL^T values: row " + std::to_string(i + 1) + " of A is all zero");
        }
        hostScale_[i] = 1/std::sqrt(d);
    }
    double largest = 0;
    for (std::size_t p = 0; p < toFactor_.size(); ++p)
    {
        const double v = values[p]*hostScale_[entryRow_[p]]*hostScale_[entryCol_[p]];
        hostFactor_[toFactor_[p]] += v;
        largest = std::max(largest, std::abs(v));
    }
    stats.pivotFloor = pivotFloorFactor*largest;
    B::upload(ptr(factor_), hostFactor_.data(), hostFactor_.size());
    B::upload(ptr(scale_), hostScale_.data(), n);
    B::upload(ptr(csrVal_), hostCsr_.data(), hostCsr_.size());

    for (int l = 0; l < s_.nLevels(); ++l)
    {
        B::forEachTeam(s_.levelStart[l], s_.levelStart[l + 1], columnTeam, detail::LdltFactorColumn{
            ptr(levelCols_), ptr(lStart_), ptr(lRows_), ptr(rowStart_), ptr(rowCols_), ptr(rowPos_),
            L(), D(), ptr(flag_), stats.pivotFloor});
    }
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

template<class B>
SolveResult LdltSolverImpl<B>::solve(const double* b, double* x, double tolerance, int maxRefinement)
{
    if (!factored_)
    {
        throw Error("gpuLdu: LDL^T solve without a factorisation");
    }
    const auto start = Clock::now();
    const int n = s_.n;
    SolveResult result;
    B::upload(ptr(b_), b, n);
    thrust::fill_n(B::policy(), ptr(x_), n, 0.0);
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
    B::download(x, ptr(x_), n);
    return result;
}

} // namespace gpuLdu

#endif
