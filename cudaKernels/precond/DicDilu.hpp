// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's DIC and DILU preconditioners (src/OpenFOAM/matrices/lduMatrix/preconditioners/
// DICPreconditioner/DICPreconditioner.C, DILUPreconditioner/DILUPreconditioner.C), the same
// arithmetic in the same order:
//   factor:    d[u] = diag[u] - sum_{f: u(f)=u, by face} upper[f]*lower[f]/d[l(f)];  rD = 1/d
//   forward    (faces by upper cell):  w[u] -= rD[u]*lower[f]*w[l]   (w starts as rD*r)
//   backward   (faces descending):     w[l] -= rD[l]*upper[f]*w[u]
//   (DIC is DILU with lower = upper; preconditionT swaps upper and lower.)
// In CSR the faces of one row are its lower (or upper) entries by ascending column, so the
// level-scheduled row loops below subtract the same terms in the same order as the face loops,
// whichever rows run together: the results are OpenFOAM's, bit for bit on the host.

#ifndef GPULDU_DICDILU_HPP
#define GPULDU_DICDILU_HPP

#include "matrix/CsrMatrix.hpp"
#include "matrix/ValueCheck.hpp"
#include "sweep/LevelSchedule.hpp"
#include "registry/Registry.hpp"
#include "sweep/WaitProtocol.hpp"

#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <limits>
#include <string>

namespace gpuLdu
{

namespace detail
{

//- One row's terms p = from, from + step, ... (before stop) subtracted from acc in that order,
//  acc -= (rD_i a_p) x_col(p), four at a time: the four columns and values loaded first, then the
//  four x values, then the four subtractions (a lane past stop loads nothing and leaves acc as
//  it is), so a row's loads overlap instead of waiting on one another (a part's sweep in GAMG's
//  coarsest team is one thread's chain of dependent loads: its iteration 7-16% faster than term
//  by term on OpenFOAM-like coarsest levels, gpuLduBench coarsest on an H200).
template<bool Transposed>
GPULDU_HD inline double subtractRowTerms
(
    double acc,
    double rDi,
    int from,
    int stop,
    int step,
    const int* col,
    const int* transpose,
    const double* val,
    const double* x
)
{
    constexpr int batch = 4;
    for (int p = from; step*(stop - p) > 0; p += batch*step)
    {
        bool in[batch];
        int c[batch];
        double a[batch];
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            in[k] = step*(stop - (p + k*step)) > 0;
            c[k] = in[k] ? col[p + k*step] : 0;
            a[k] = in[k] ? entry<Transposed>(val, transpose, p + k*step) : 0.0;
        }
        double xk[batch];
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            xk[k] = in[k] ? x[c[k]] : 0.0;
        }
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            const double t = acc - (rDi*a[k])*xk[k];
            acc = in[k] ? t : acc;
        }
    }
    return acc;
}

//- OpenFOAM's DIC/DILU sweeps over the rows [first, end) in row order, the forward one by
//  ascending row, the backward one by descending row: y_i = rD_i r_i - sum_{j<i} (rD_i a_ij) y_j,
//  then w_i = y_i - sum_{j>i} (rD_i a_ij) w_j, each row's terms in its order (SweepRow's
//  arithmetic, subtractRowTerms), so the bits are the level schedule's. The rows reach only rows
//  of [first, end); y and w may be one array (in place). Transposed: A^T's entries (DILU's second
//  use). The host's sweeps (DicDilu::rowOrderSweeps) and a part's of GAMG's coarsest team
//  (CoarsestPcg::precondition).
template<bool Transposed>
GPULDU_HD inline void rowOrderSweeps
(
    int first,
    int end,
    const int* rowStart,
    const int* col,
    const int* diagPos,
    const int* transpose,
    const double* val,
    const double* rD,
    const double* r,
    double* y,
    double* w
)
{
    for (int i = first; i < end; ++i)
    {
        y[i] = subtractRowTerms<Transposed>(rD[i]*r[i], rD[i], rowStart[i], diagPos[i], 1, col,
                                            transpose, val, y);
    }
    for (int i = end - 1; i >= first; --i)
    {
        w[i] = subtractRowTerms<Transposed>(y[i], rD[i], rowStart[i + 1] - 1, diagPos[i], -1, col,
                                            transpose, val, w);
    }
}

//- x = 1/x
struct Invert
{
    double* x;

    GPULDU_HD void operator()(int i) const
    {
        x[i] = 1.0/x[i];
    }
};

//- The DIC/DILU pivot of one row: d[i] = A[i][i] - sum_lower A[j][i]*A[i][j]/d[j]
//  (upper[f]*lower[f]/d[l] in OpenFOAM's terms).
struct DicFactorRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const int* transpose;
    const double* val;
    double* d;

    GPULDU_HD double coefficient(int, int p) const
    {
        return val[transpose[p]]*val[p];
    }

    GPULDU_HD SweepRowTerms prefetch(int k) const
    {
        SweepRowTerms t;
        t.i = rows[k];
        t.start = val[diagPos[t.i]];
        t.scale = 1;
        t.divisor = 1;
        gatherTerms(t, RowTerms<false>(rowStart, diagPos, t.i), col, *this);
        return t;
    }

    GPULDU_HD void finish(SweepRowTerms t) const
    {
        double* di = &d[t.i];
        finishTerms<true>(t, d, col, *this, [di](double v) { *di = v; });
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};


//- The pattern of a DIC/DILU sweep packed in the order the sweep takes its rows (the positions
//  k of its level schedule): the row's number of terms, and the columns of its first `width`
//  terms at m*n + k, so that the threads of a warp read them coalesced. Terms past the width are
//  read from the CSR matrix.
template<bool Upper>
struct PackPattern
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    int n;
    int width;
    int* count;
    int* packedCol;

    GPULDU_HD void operator()(int k) const
    {
        const RowTerms<Upper> terms(rowStart, diagPos, rows[k]);
        count[k] = terms.count;
        for (int m = 0; m < width && m < terms.count; ++m)
        {
            packedCol[m*n + k] = col[terms.position(m)];
        }
    }
};

//- The numeric part, per set-up: the coefficients rD[i]*A[i][j] (of A^T when Transposed) of
//  the packed terms of the row at position k, and its rD for the forward sweep (the backward
//  sweep starts from y[i], unscaled)
template<bool Upper, bool Transposed>
struct PackCoefficients
{
    const int* rows;
    const int* rowStart;
    const int* diagPos;
    const int* transpose;
    const double* val;
    const double* rD;
    int n;
    int width;
    double* packedRD;
    double* packedCoeff;

    GPULDU_HD void operator()(int k) const
    {
        const int i = rows[k];
        const RowTerms<Upper> terms(rowStart, diagPos, i);
        if (!Upper)
        {
            packedRD[k] = rD[i];
        }
        for (int m = 0; m < width && m < terms.count; ++m)
        {
            packedCoeff[m*n + k] = rD[i]*entry<Transposed>(val, transpose, terms.position(m));
        }
    }
};


//- One row of a DIC/DILU sweep, from in to out:
//  forward  (Upper = false): y[i] = rD[i]*r[i] - sum_lower rD[i]*A[i][j]*y[j]
//  backward (Upper = true):  w[i] = y[i] - sum_upper rD[i]*A[i][j]*w[j], by descending column
//  The terms come packed in the sweep's order (PackPattern, PackCoefficients): a thread reaches
//  the values it waits on in two dependent loads (its terms, then the values) instead of four
//  (row, row extent, terms, values).
//  out holds notReady until its rows are written (DicDiluPreconditioner::sweeps fills it), so
//  that the GPU's rows wait on the values themselves (sweep/WaitProtocol.hpp). At most MaxTerms
//  terms are packed (width); the rest are read from the CSR matrix.
template<bool Upper, bool Transposed, int MaxTerms = SweepRowTerms::maxTerms>
struct SweepRow
{
    static constexpr bool waitsOnValues = true;
    using Terms = SweepRowTermsOf<MaxTerms>;

    const int* rows;
    int n;
    int width;
    const int* count;
    const int* packedCol;
    const double* packedCoeff;
    const double* packedRD;
    //- The CSR matrix, for the terms past the width
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const int* transpose;
    const double* val;
    const double* rD;
    //- forward: r; backward: y (an earlier launch wrote it)
    const double* in;
    //- forward: y; backward: w
    double* out;

    GPULDU_HD double coefficient(int i, int p) const
    {
        return rD[i]*entry<Transposed>(val, transpose, p);
    }

    //- The row at position k of the level schedule, its start value and its packed terms
    GPULDU_HD Terms prefetch(int k) const
    {
        Terms t;
        t.i = rows[k];
        const int c = count[k];
        t.start = Upper ? loadFresh(&in[t.i]) : in[t.i];
        t.scale = Upper ? 1 : packedRD[k];
        t.divisor = 1;
        t.nTerms = c < width ? c : width;
GPULDU_UNROLL
        for (int m = 0; m < Terms::maxTerms; ++m)
        {
            if (m < t.nTerms)
            {
                t.coeff[m] = packedCoeff[m*n + k];
                t.col[m] = packedCol[m*n + k];
            }
        }
        t.step = RowTerms<Upper>::step;
        t.rest = 0;
        t.restEnd = 0;
        if (c > width)
        {
            const RowTerms<Upper> terms(rowStart, diagPos, t.i);
            t.rest = terms.position(width);
            t.restEnd = terms.position(c);
        }
        return t;
    }

    //- Asks L2 for what prefetch(k) will load, ahead of time
    GPULDU_HD void prefetchL2(int k) const
    {
        if (k < n)
        {
            prefetchLine(rows + k);
            prefetchLine(count + k);
            if (!Upper)
            {
                prefetchLine(packedRD + k);
            }
            for (int m = 0; m < width; ++m)
            {
                prefetchLine(packedCol + m*n + k);
                prefetchLine(packedCoeff + m*n + k);
            }
        }
    }

    //- The row's value into out once the values it reads are there (a relaxed store: warps of
    //  the same launch poll for it)
    GPULDU_HD void finish(Terms t) const
    {
        double* outI = out + t.i;
        readTerms(t, out);
        awaitTerms<false>(t, out, col, *this, [outI](double v) { storeRelaxed(outI, v); });
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};
} // namespace detail

//- DIC (symmetric A) or DILU: the factor on the lower schedule, the two sweeps on the lower and
//  upper schedules, each sweep's terms packed in its order at set-up
template<class B>
class DicDiluPreconditioner
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- A sweep's terms packed in its order (detail::PackPattern, PackCoefficients); the
    //  coefficients of M (Transposed = 0) and M^T (1) are packed when first used after a set-up
    struct PackedSweep
    {
        int width = 0;
        Vector<int> count;
        Vector<int> col;
        mutable Vector<double> rD;
        mutable Vector<double> coeff[2];
        mutable bool packed[2] = {false, false};
    };

    const CsrMatrix<B>& A_;
    const LevelSchedule<B>& lower_;
    const LevelSchedule<B>& upper_;
    Vector<double> rD_;
    //- The forward sweep's result
    mutable Vector<double> y_;
    PackedSweep forward_;
    PackedSweep backward_;
    //- setPackedWidth's argument
    int packedWidth_ = detail::SweepRowTerms::maxTerms;

    //- Each sweep's terms packed, as many per row as the widest row has, at most maxWidth
    void packPatterns(int maxWidth)
    {
        packPattern<false>(forward_, lower_, maxWidth);
        packPattern<true>(backward_, upper_, maxWidth);
    }

    template<bool Upper>
    void packPattern(PackedSweep& s, const LevelSchedule<B>& schedule, int maxWidth)
    {
        const int n = A_.nRows;
        s.count.resize(n);
        s.rD.resize(Upper ? 0 : n);
        s.packed[0] = s.packed[1] = false;
        const auto pack = [&](int width)
        {
            forEach<B>(0, n, detail::PackPattern<Upper>{
                schedule.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), n, width,
                ptr(s.count), ptr(s.col)});
        };
        pack(0);
        const int widest = thrust::reduce(B::policy(), s.count.begin(), s.count.end(), 0, thrust::maximum<int>());
        // slots are indexed m*n + k in int
        s.width = std::min({widest, maxWidth, std::numeric_limits<int>::max()/std::max(n, 1)});
        s.col.resize(std::size_t(s.width)*n);
        pack(s.width);
    }

    //- The row functor of one sweep, in -> out, its coefficients packed first if this set-up
    //  has not yet
    template<bool Upper, bool Transposed, int MaxTerms>
    detail::SweepRow<Upper, Transposed, MaxTerms> sweepRow(const double* in, double* out) const
    {
        const PackedSweep& s = Upper ? backward_ : forward_;
        if (s.width > MaxTerms)
        {
            throw Error("gpuLdu: a DIC/DILU sweep packs " + std::to_string(s.width)
                        + " terms per row, more than its row functor holds (" + std::to_string(MaxTerms) + ")");
        }
        const LevelSchedule<B>& schedule = Upper ? upper_ : lower_;
        const int n = A_.nRows;
        Vector<double>& coeff = s.coeff[Transposed];
        if (!s.packed[Transposed])
        {
            coeff.resize(std::size_t(s.width)*n);
            forEach<B>(0, n, detail::PackCoefficients<Upper, Transposed>{
                schedule.rows(), ptr(A_.rowStart), ptr(A_.diagPos), ptr(A_.transpose),
                ptr(A_.val), ptr(rD_), n, s.width, ptr(s.rD), ptr(coeff)});
            s.packed[Transposed] = true;
        }
        return {schedule.rows(), n, s.width, ptr(s.count), ptr(s.col), ptr(coeff), ptr(s.rD),
                ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.transpose), ptr(A_.val),
                ptr(rD_), in, out};
    }

    //- The sweeps r -> y -> w by row functors of MaxTerms terms; y and w filled with notReady
    //  first (coalesced), then each sweep reads per row (hexahedra: 3 terms) the row, count,
    //  columns, coefficients, and writes its value
    template<bool Transposed, int MaxTerms>
    void sweeps(double* w, const double* r) const
    {
        const int n = A_.nRows;
        thrust::fill_n(B::policy(), ptr(y_), n, notReady());
        lower_.sweep(forwardSweep<Transposed, MaxTerms>(r, ptr(y_)));
        thrust::fill_n(B::policy(), w, n, notReady());
        upper_.sweep(backwardSweep<Transposed, MaxTerms>(ptr(y_), w));
    }

    //- The host's sweeps r -> y -> w as plain loops (detail::rowOrderSweeps over every row):
    //  the bits are the schedule's, without its levels, notReady fills and waits or packed terms
    //  (a small level's loop, GAMG's coarsest on the owner's host, ran at about 45 ns a row an
    //  iteration through them)
    template<bool Transposed>
    void rowOrderSweeps(double* w, const double* r) const
    {
        detail::rowOrderSweeps<Transposed>(0, A_.nRows, ptr(A_.rowStart), ptr(A_.col),
                                           ptr(A_.diagPos), ptr(A_.transpose), ptr(A_.val),
                                           ptr(rD_), r, ptr(y_), w);
    }

    template<bool Transposed>
    void applyAny(double* w, const double* r) const
    {
        if constexpr (B::executor == Executor::cpu)
        {
            rowOrderSweeps<Transposed>(w, r);
            return;
        }
        if (packedWidth() <= narrowTerms)
        {
            sweeps<Transposed, narrowTerms>(w, r);
        }
        else
        {
            sweeps<Transposed, detail::SweepRowTerms::maxTerms>(w, r);
        }
    }

public:
    DicDiluPreconditioner(const CsrMatrix<B>& A, const LevelSchedule<B>& lower, const LevelSchedule<B>& upper)
    :
        A_(A),
        lower_(lower),
        upper_(upper),
        rD_(A.nRows),
        y_(A.nRows)
    {
        packPatterns(packedWidth_);
    }

    //- The most terms a row has on either side on a hexahedral mesh numbered lexicographically
    //  (blockMesh): where no packed row has more, the sweeps use row functors of this many terms
    //  (fewer instructions and registers per row)
    static constexpr int narrowTerms = 3;

    //- The row functors of the sweeps, r -> y (forward) and y -> w (backward), each holding
    //  MaxTerms packed terms (an Error where setPackedWidth packed more); valid after setup
    template<bool Transposed, int MaxTerms = detail::SweepRowTerms::maxTerms>
    detail::SweepRow<false, Transposed, MaxTerms> forwardSweep(const double* r, double* y) const
    {
        return sweepRow<false, Transposed, MaxTerms>(r, y);
    }

    template<bool Transposed, int MaxTerms = detail::SweepRowTerms::maxTerms>
    detail::SweepRow<true, Transposed, MaxTerms> backwardSweep(const double* y, double* w) const
    {
        return sweepRow<true, Transposed, MaxTerms>(y, w);
    }

    //- At most this many terms per row packed (the default, and the most:
    //  SweepRowTerms::maxTerms); the rest are read from the CSR matrix
    void setPackedWidth(int width)
    {
        packedWidth_ = std::max(0, std::min(width, int(detail::SweepRowTerms::maxTerms)));
        packPatterns(packedWidth_);
    }

    //- The most terms per row packed, over both sweeps
    int packedWidth() const
    {
        return std::max(forward_.width, backward_.width);
    }

    //- rD = 1/d (valid after setup)
    const Vector<double>& rD() const
    {
        return rD_;
    }

    //- The factor from the current matrix values. Throws ValueError (pivotOf: DIC or DILU) at
    //  the first zero or non-finite pivot d, before anything divides by it: the factor carries a
    //  NaN past it (quotientOrNaN), then one reduction finds it.
    void setup(const char* pivotOf = "DIC/DILU")
    {
        lower_.sweep(detail::DicFactorRow{
            lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
            ptr(A_.transpose), ptr(A_.val), ptr(rD_)});
        checkPivots<B>(pivotOf, ptr(rD_), nullptr, A_.nRows);
        forEach<B>(0, A_.nRows, detail::Invert{ptr(rD_)});
        forward_.packed[0] = forward_.packed[1] = false;
        backward_.packed[0] = backward_.packed[1] = false;
    }

    //- w = M^-1 r  (OpenFOAM's precondition)
    void apply(double* w, const double* r) const
    {
        applyAny<false>(w, r);
    }

    //- w = M^-T r  (OpenFOAM's preconditionT)
    void applyT(double* w, const double* r) const
    {
        applyAny<true>(w, r);
    }
};

namespace preconditioners
{

//- OpenFOAM's DICPreconditioner (FDICPreconditioner: the same arithmetic, rD*upper cached) and
//  DILUPreconditioner: one class, DIC being DILU with lower = upper
struct DicDilu
{
    static constexpr Variant variants[] =
    {
        {"DIC", Takes::symmetric, "FDIC"},
        {"DILU", Takes::asymmetric, nullptr}
    };
    static constexpr bool openFOAMs = true;
    //- Built on the lower and upper level schedules
    static constexpr bool needsSchedules = true;
    template<class B>
    using Type = DicDiluPreconditioner<B>;
};

} // namespace preconditioners

} // namespace gpuLdu

#endif
