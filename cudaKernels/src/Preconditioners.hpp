// SPDX-License-Identifier: GPL-3.0-or-later
// Preconditioners, each the same arithmetic as OpenFOAM's (openfoam-api.md c.8):
//   none:      w = r
//   diagonal:  rD = 1/diag;  w = rD*r
//   DIC/DILU:  d[u] = diag[u] - sum_{f: u(f)=u, by face} upper[f]*lower[f]/d[l(f)];  rD = 1/d
//              forward  (faces by upper cell):  w[u] -= rD[u]*lower[f]*w[l]   (w starts as rD*r)
//              backward (faces descending):     w[l] -= rD[l]*upper[f]*w[u]
//              (DIC is DILU with lower = upper.) preconditionT swaps upper and lower.
//   ILU0:      zero-fill incomplete LU of the CSR matrix (L unit lower, U upper, same pattern
//              as A); not OpenFOAM's, and equal to DILU only where the matrix graph has no
//              triangles (as on a structured hex mesh).
// In CSR, the faces of one row are its lower (or upper) entries by ascending column, so the
// level-scheduled row loops below subtract the same terms in the same order as the face loops:
// the results are those of OpenFOAM's loops up to floating-point contraction by the compiler.

#ifndef GPULDU_PRECONDITIONERS_HPP
#define GPULDU_PRECONDITIONERS_HPP

#include "CsrMatrix.hpp"
#include "LevelSchedule.hpp"

#include <thrust/fill.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>

#include <algorithm>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace gpuLdu
{

namespace detail
{

struct Copy
{
    const double* r;
    double* w;

    GPULDU_HD void operator()(int i) const
    {
        w[i] = r[i];
    }
};

//- rD = 1/A[i][i]
struct InverseDiagonal
{
    const int* diagPos;
    const double* val;
    double* rD;

    GPULDU_HD void operator()(int i) const
    {
        rD[i] = 1.0/val[diagPos[i]];
    }
};

struct Scale
{
    const double* rD;
    const double* r;
    double* w;

    GPULDU_HD void operator()(int i) const
    {
        w[i] = rD[i]*r[i];
    }
};

struct Invert
{
    double* x;

    GPULDU_HD void operator()(int i) const
    {
        x[i] = 1.0/x[i];
    }
};

//- Entry p of A, or of A^T (through the transpose index).
template<bool Transposed>
GPULDU_HD inline double entry(const double* val, const int* transpose, int p)
{
    return Transposed ? val[transpose[p]] : val[p];
}

//- One row of a sweep in progress: what does not depend on other rows of the sweep, loaded
//  before the row waits (prefetch: the row, its start value and up to maxTerms coefficients
//  with their columns; longer rows read the rest at the end, subtractTerms), and the values at
//  those columns as the wait reads them (readTerms, rereadTerms). The loops over the terms run
//  over maxTerms (see gatherTerms): a narrower struct is fewer instructions and registers per
//  row (the DIC/DILU sweeps of hexahedral meshes, SweepRow's MaxTerms).
template<int MaxTerms>
struct SweepRowTermsOf
{
    static constexpr int maxTerms = MaxTerms;
    int i;
    int nTerms;
    //- The positions left over: rest, rest + step, ... up to restEnd (exclusive)
    int rest;
    int restEnd;
    int step;
    //- The row's value before its terms: scale*start (apart, so that a load ahead of the row
    //  does not wait for its operands: the product is taken when the row is finished)
    double start;
    double scale;
    //- The result is divided by this when it is not 1 (ILU0's U diagonal)
    double divisor;
    double coeff[maxTerms];
    int col[maxTerms];
    //- The values at the terms' columns as last read (readTerms), and whether all are ready
    double x[maxTerms];
    bool ready;
};

using SweepRowTerms = SweepRowTermsOf<8>;

//- A row of a sweep and its number of terms
struct SweepRowHead
{
    int i;
    int count;
};

//- Where the terms of row i of a sweep lie in the CSR matrix: the lower ones by ascending
//  column (forward), the upper ones by descending column (backward); term m is at
//  first + m*step, for m < count.
template<bool Upper>
struct RowTerms
{
    int first;
    int count;
    static constexpr int step = Upper ? -1 : 1;

    GPULDU_HD RowTerms(const int* rowStart, const int* diagPos, int i)
    :
        first(Upper ? rowStart[i + 1] - 1 : rowStart[i]),
        count(Upper ? rowStart[i + 1] - 1 - diagPos[i] : diagPos[i] - rowStart[i])
    {}

    GPULDU_HD int position(int m) const
    {
        return first + m*step;
    }
};

//- The first maxTerms terms of a row (RowTerms), in their order: row.coefficient(i, p) and the
//  column of p; the rest are left to subtractTerms. The loops run over maxTerms, so that the
//  terms stay in registers (an index known only at run time would put them in local memory).
template<bool Upper, class Row>
GPULDU_HD inline void gatherTerms(SweepRowTerms& t, const RowTerms<Upper>& terms, const int* col, const Row& row)
{
    t.nTerms = terms.count < SweepRowTerms::maxTerms ? terms.count : SweepRowTerms::maxTerms;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int m = 0; m < SweepRowTerms::maxTerms; ++m)
    {
        if (m < t.nTerms)
        {
            t.coeff[m] = row.coefficient(t.i, terms.position(m));
            t.col[m] = col[terms.position(m)];
        }
    }
    t.rest = terms.position(t.nTerms);
    t.restEnd = terms.position(terms.count);
    t.step = terms.step;
}

//- Reads the values at the terms' columns, value(m) for term m, and whether all are ready
template<class Terms, class Value>
GPULDU_HD inline void readTermsWith(Terms& t, const Value& value)
{
    t.ready = true;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms)
        {
            t.x[m] = value(m);
            t.ready = t.ready && isReady(t.x[m]);
        }
    }
}

//- Reads the values at the terms' columns (other rows of the sweep write them: read fresh).
//  On the GPU a value-waiting sweep writes notReady ahead of its rows; on the host rows run in
//  level order, so the values are ready (a notReady there would be a bug, and shows as a NaN in
//  the result, never as a hang).
template<class Terms>
GPULDU_HD inline void readTerms(Terms& t, const double* x)
{
    readTermsWith(t, [&](int m) { return loadRelaxed(&x[t.col[m]]); });
#ifndef __CUDA_ARCH__
    t.ready = true;
#endif
}

//- readTerms, where a term with slot[m] >= 0 reads own[slot[m]] instead: the slab sweep keeps
//  the values of its slab's last rows in shared memory (LevelSchedule::Slabs::slot)
template<class Terms>
GPULDU_HD inline void readTerms(Terms& t, const double* x, const int (&slot)[Terms::maxTerms], const double* own)
{
    readTermsWith(t, [&](int m) { return slot[m] >= 0 ? own[slot[m]] : loadRelaxed(&x[t.col[m]]); });
}

//- Reads again, all together, the values that were not ready (all of them after unread)
template<class Terms>
GPULDU_HD inline void rereadTerms(Terms& t, const double* x)
{
    t.ready = true;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms && !isReady(t.x[m]))
        {
            t.x[m] = loadRelaxed(&x[t.col[m]]);
            t.ready = t.ready && isReady(t.x[m]);
        }
    }
}

//- Marks all of t's values as not read yet
template<class Terms>
GPULDU_HD inline void unread(Terms& t)
{
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        t.x[m] = notReady();
    }
    t.ready = false;
}

//- start - sum of coefficient*x[col] (or coefficient/x[col]) over the terms in their order,
//  once readTerms found them ready (the terms past maxTerms are waited for one by one)
template<bool Quotient, class Terms, class Row>
GPULDU_HD inline double subtractTerms(const Terms& t, const double* x, const int* col, const Row& row)
{
    double acc = t.scale*t.start;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms)
        {
            acc -= Quotient ? t.coeff[m]/t.x[m] : t.coeff[m]*t.x[m];
        }
    }
    for (int p = t.rest; p != t.restEnd; p += t.step)
    {
        const double xj = waitReady(&x[col[p]], loadRelaxed(&x[col[p]]));
        acc -= Quotient ? row.coefficient(t.i, p)/xj : row.coefficient(t.i, p)*xj;
    }
    return acc;
}

//- One pass of a row's wait: reads the late values again (after readTerms); once all are
//  there, result(subtractTerms) and true. Each thread finishes its row in the pass where its
//  own values arrive, without waiting for the other threads of its warp.
template<bool Quotient, class Terms, class Row, class Result>
GPULDU_HD inline bool tryFinishTerms(Terms& t, const double* x, const int* col, const Row& row, const Result& result)
{
    if (!t.ready)
    {
        rereadTerms(t, x);
    }
    if (t.ready)
    {
        result(subtractTerms<Quotient>(t, x, col, row));
    }
    return t.ready;
}

//- result(subtractTerms) once the values are ready
template<bool Quotient, class Terms, class Row, class Result>
GPULDU_HD inline void finishTerms(Terms& t, const double* x, const int* col, const Row& row, const Result& result)
{
    readTerms(t, x);
    while (!tryFinishTerms<Quotient>(t, x, col, row, result))
    {}
}

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

//- The pattern of a DIC/DILU sweep packed in the order the sweep takes its rows (its slots k:
//  the positions of its level schedule, or of its chains, LevelSchedule::packedRows; a slot of
//  row -1 is empty): the row's number of terms, and the columns of its first `width` terms at
//  m*n + k, so that the threads of a warp read them coalesced. Terms past the width are read
//  from the CSR matrix.
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
        if (rows[k] < 0)
        {
            count[k] = 0;
            return;
        }
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
        if (i < 0)
        {
            return;
        }
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
//  out holds notReady until its rows are written (Preconditioners::sweeps fills it), so that the
//  GPU's rows can wait on the values themselves (valueWaitSweepKernel). At most MaxTerms terms
//  are packed (width).
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
    //- The slot of each position of the level schedule when the terms are packed by chains
    //  (LevelSchedule::slotOf), or nullptr
    const int* slotOf;
    //- Whether every row's terms are all packed (the chain sweep reads none from the CSR matrix)
    bool allPacked;

    GPULDU_HD double coefficient(int i, int p) const
    {
        return rD[i]*entry<Transposed>(val, transpose, p);
    }

    //- The row at slot k and its number of terms (the slab and chain sweeps load them a step
    //  ahead of prefetch)
    GPULDU_HD SweepRowHead head(int k) const
    {
        return {rows[k], count[k]};
    }

    //- The row at position k of the level schedule
    GPULDU_HD Terms prefetch(int k) const
    {
        if (slotOf)
        {
            k = slotOf[k];
        }
        return prefetch(k, head(k));
    }

    GPULDU_HD Terms prefetch(int k, SweepRowHead h) const
    {
        Terms t;
        t.i = h.i;
        const int c = h.count;
        t.start = Upper ? loadFresh(&in[t.i]) : in[t.i];
        t.scale = Upper ? 1 : packedRD[k];
        t.divisor = 1;
        t.nTerms = c < width ? c : width;
#ifdef __CUDA_ARCH__
#pragma unroll
#endif
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

    //- Asks L2 for what prefetch(k, head(k)) will load, ahead of time
    GPULDU_HD void prefetchL2(int k) const
    {
#ifdef __CUDA_ARCH__
        if (k < n)
        {
            asm volatile("prefetch.global.L2 [%0];" :: "l"(rows + k));
            asm volatile("prefetch.global.L2 [%0];" :: "l"(count + k));
            if (!Upper)
            {
                asm volatile("prefetch.global.L2 [%0];" :: "l"(packedRD + k));
            }
            for (int m = 0; m < width; ++m)
            {
                asm volatile("prefetch.global.L2 [%0];" :: "l"(packedCol + m*n + k));
                asm volatile("prefetch.global.L2 [%0];" :: "l"(packedCoeff + m*n + k));
            }
        }
#else
        (void)k;
#endif
    }

    //- finish(t) once t's values are read (readTerms), also handing the result to also(v)
    template<class Also>
    GPULDU_HD void finishRead(Terms& t, const Also& also) const
    {
        double* outI = out + t.i;
        const auto result = [outI, &also](double v) { storeRelaxed(outI, v); also(v); };
        while (!tryFinishTerms<false>(t, out, col, *this, result))
        {}
    }

    GPULDU_HD void finish(Terms t) const
    {
        readTerms(t, out);
        finishRead(t, [](double) {});
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};

//- One row of the zero-fill ILU (IKJ order): for each lower entry k of row i by ascending
//  column, l_ik = a_ik/u_kk, then a_ij -= l_ik*u_kj for the entries j > k of row i that row k
//  also has. Rows k < i are final (earlier levels).
struct Ilu0FactorRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    double* lu;

    GPULDU_HD void operator()(int k) const
    {
        const int i = rows[k];
        for (int p = rowStart[i]; p < diagPos[i]; ++p)
        {
            const int kk = col[p];
            lu[p] /= loadFresh(&lu[diagPos[kk]]);
            // merge row i after p with the upper part of row kk (both by ascending column)
            int r = diagPos[kk] + 1;
            const int rEnd = rowStart[kk + 1];
            for (int q = p + 1; q < rowStart[i + 1] && r < rEnd; ++q)
            {
                while (r < rEnd && col[r] < col[q])
                {
                    ++r;
                }
                if (r < rEnd && col[r] == col[q])
                {
                    lu[q] -= lu[p]*loadFresh(&lu[r]);
                }
            }
        }
    }
};

//- One row of an ILU0 sweep (L unit lower, U upper, in A's pattern).
//  forward  (Upper = false): y[i] = r[i] - sum_lower L[i][j]*y[j]
//    transposed (U^T z = r): z[i] = (r[i] - sum_lower U[j][i]*z[j])/U[i][i]
//  backward (Upper = true):  x[i] = (y[i] - sum_upper U[i][j]*x[j])/U[i][i]
//    transposed (L^T w = z): w[i] = z[i] - sum_upper L[j][i]*w[j]
template<bool Upper, bool Transposed>
struct Ilu0SweepRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const int* transpose;
    const double* lu;
    //- The right-hand side (forward sweep only)
    const double* r;
    double* w;

    //- Whether this sweep divides by U's diagonal
    static constexpr bool divides = Upper != Transposed;

    GPULDU_HD double coefficient(int, int p) const
    {
        return entry<Transposed>(lu, transpose, p);
    }

    GPULDU_HD SweepRowTerms prefetch(int k) const
    {
        SweepRowTerms t;
        t.i = rows[k];
        t.start = Upper ? loadFresh(&w[t.i]) : r[t.i];
        t.scale = 1;
        t.divisor = divides ? lu[diagPos[t.i]] : 1;
        gatherTerms(t, RowTerms<Upper>(rowStart, diagPos, t.i), col, *this);
        return t;
    }

    GPULDU_HD void finish(SweepRowTerms t) const
    {
        double* wi = &w[t.i];
        const double divisor = t.divisor;
        finishTerms<false>(t, w, col, *this, [wi, divisor](double v) { *wi = divides ? v/divisor : v; });
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};

struct CopyValues
{
    const double* from;
    double* to;

    GPULDU_HD void operator()(int k) const
    {
        to[k] = from[k];
    }
};

} // namespace detail

//- All preconditioners of one system: built for the pattern once, set up per solve.
template<class B>
class Preconditioners
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- A DIC/DILU sweep's terms packed in its order (detail::PackPattern, PackCoefficients);
    //  the coefficients of M (Transposed = 0) and M^T (1) are packed when first used after a
    //  set-up
    struct PackedSweep
    {
        int width = 0;
        //- Whether width is the widest row's number of terms
        bool allPacked = true;
        Vector<int> count;
        Vector<int> col;
        mutable Vector<double> rD;
        mutable Vector<double> coeff[2];
        mutable bool packed[2] = {false, false};
    };

    const CsrMatrix<B>& A_;
    LevelSchedule<B> lower_;
    LevelSchedule<B> upper_;
    Vector<double> rD_;
    //- The forward sweep's result (DIC/DILU)
    mutable Vector<double> y_;
    //- ILU0 factors L (strictly lower, unit diagonal implied) and U, in A's pattern
    Vector<double> lu_;
    Preconditioner type_ = Preconditioner::none;
    PackedSweep forward_;
    PackedSweep backward_;
    //- setPackedWidth's argument
    int packedWidth_ = detail::SweepRowTerms::maxTerms;
    //- setSlabs' arguments
    int nSlabs_ = 0;
    bool slabSharedValues_ = true;

    static std::vector<int> toStd(const Vector<int>& v)
    {
        const thrust::host_vector<int> h(v);
        return {h.begin(), h.end()};
    }

    //- Each sweep's terms packed, as many per row as the widest row has, at most maxWidth
    void packPatterns(int maxWidth)
    {
        packPattern<false>(forward_, lower_, maxWidth);
        packPattern<true>(backward_, upper_, maxWidth);
    }

    template<bool Upper>
    void packPattern(PackedSweep& s, const LevelSchedule<B>& schedule, int maxWidth)
    {
        const int n = schedule.nPacked();
        s.count.resize(n);
        s.rD.resize(Upper ? 0 : n);
        s.packed[0] = s.packed[1] = false;
        const auto pack = [&](int width)
        {
            forEach<B>(0, n, detail::PackPattern<Upper>{
                schedule.packedRows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), n, width,
                ptr(s.count), ptr(s.col)});
        };
        pack(0);
        const int widest = thrust::reduce(B::policy(), s.count.begin(), s.count.end(), 0, thrust::maximum<int>());
        // slots are indexed m*n + k in int
        s.width = std::min({widest, maxWidth, std::numeric_limits<int>::max()/std::max(n, 1)});
        s.allPacked = s.width == widest;
        s.col.resize(std::size_t(s.width)*n);
        pack(s.width);
    }

    //- The row functor of one DIC/DILU sweep, in -> out, its coefficients packed first if
    //  this set-up has not yet
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
        const int n = schedule.nPacked();
        Vector<double>& coeff = s.coeff[Transposed];
        if (!s.packed[Transposed])
        {
            coeff.resize(std::size_t(s.width)*n);
            forEach<B>(0, n, detail::PackCoefficients<Upper, Transposed>{
                schedule.packedRows(), ptr(A_.rowStart), ptr(A_.diagPos), ptr(A_.transpose),
                ptr(A_.val), ptr(rD_), n, s.width, ptr(s.rD), ptr(coeff)});
            s.packed[Transposed] = true;
        }
        return {schedule.packedRows(), n, s.width, ptr(s.count), ptr(s.col), ptr(coeff), ptr(s.rD),
                ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.transpose), ptr(A_.val),
                ptr(rD_), in, out, schedule.slotOf(), s.allPacked};
    }

    template<bool Transposed>
    void sweeps(double* w, const double* r) const
    {
        if (type_ == Preconditioner::ILU0)
        {
            lower_.sweep(detail::Ilu0SweepRow<false, Transposed>{
                lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                ptr(A_.transpose), ptr(lu_), r, w});
            upper_.sweep(detail::Ilu0SweepRow<true, Transposed>{
                upper_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                ptr(A_.transpose), ptr(lu_), nullptr, w});
        }
        else
        {
            // y and w filled with notReady first (coalesced), then each sweep reads per row
            // (hexahedra: 3 terms) the row, count, columns, coefficients, and writes its value
            if (packedWidth() <= narrowTerms)
            {
                dicSweeps<Transposed, narrowTerms>(w, r);
            }
            else
            {
                dicSweeps<Transposed, detail::SweepRowTerms::maxTerms>(w, r);
            }
        }
    }

    //- The DIC/DILU sweeps r -> y -> w by row functors of MaxTerms terms
    template<bool Transposed, int MaxTerms>
    void dicSweeps(double* w, const double* r) const
    {
        const int n = A_.nRows;
        thrust::fill_n(B::policy(), ptr(y_), n, notReady());
        lower_.sweep(forwardSweep<Transposed, MaxTerms>(r, ptr(y_)));
        thrust::fill_n(B::policy(), w, n, notReady());
        upper_.sweep(backwardSweep<Transposed, MaxTerms>(ptr(y_), w));
    }

    //- The host schedules (lower, upper), rebuilt from the CSR pattern: its upper triangle, row
    //  by row, is the LDU addressing in OpenFOAM's face order
    std::pair<HostLevelSchedule, HostLevelSchedule> hostSchedules() const
    {
        const thrust::host_vector<int> rowStart(A_.rowStart);
        const thrust::host_vector<int> col(A_.col);
        const thrust::host_vector<int> diagPos(A_.diagPos);
        std::vector<int> lower;
        std::vector<int> upper;
        for (int i = 0; i < A_.nRows; ++i)
        {
            for (int p = diagPos[i] + 1; p < rowStart[i + 1]; ++p)
            {
                lower.push_back(i);
                upper.push_back(col[p]);
            }
        }
        const LduAddressingView addr{A_.nRows, int(lower.size()), lower.data(), upper.data()};
        return {lowerLevelSchedule(addr), upperLevelSchedule(addr)};
    }

    template<bool Transposed>
    void applyAny(double* w, const double* r) const
    {
        const int n = A_.nRows;
        switch (type_)
        {
            case Preconditioner::none:
                forEach<B>(0, n, detail::Copy{r, w});
                break;
            case Preconditioner::diagonal:
                forEach<B>(0, n, detail::Scale{ptr(rD_), r, w});
                break;
            case Preconditioner::DIC:
            case Preconditioner::DILU:
            case Preconditioner::ILU0:
                sweeps<Transposed>(w, r);
                break;
        }
    }

public:
    Preconditioners(const CsrMatrix<B>& A, const LduAddressingView& addr)
    :
        A_(A),
        lower_(lowerLevelSchedule(addr)),
        upper_(upperLevelSchedule(addr)),
        rD_(A.nRows),
        y_(A.nRows)
    {
        packPatterns(packedWidth_);
    }

    //- The most terms a row has on either side on a hexahedral mesh numbered lexicographically
    //  (blockMesh): where no packed row has more, the sweeps use row functors of this many terms
    //  (fewer instructions and registers per row: 10% faster sweeps at 1M, docs/performance.md,
    //  "Row functors of 3 terms, chain sweep, cluster microbenchmark")
    static constexpr int narrowTerms = 3;

    //- The row functors of the DIC/DILU sweeps, r -> y (forward) and y -> w (backward), each
    //  holding MaxTerms packed terms (an Error where setPackedWidth packed more); valid after
    //  set-up with DIC or DILU
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

    //- At most this many terms per row packed for the DIC/DILU sweeps (the default, and the
    //  most: SweepRowTerms::maxTerms); the rest are read from the CSR matrix
    void setPackedWidth(int width)
    {
        packedWidth_ = std::max(0, std::min(width, int(detail::SweepRowTerms::maxTerms)));
        packPatterns(packedWidth_);
        if (lower_.slabs())
        {
            setSlabs(nSlabs_, slabSharedValues_);
        }
    }

    //- The most terms per row packed, over both sweeps
    int packedWidth() const
    {
        return std::max(forward_.width, backward_.width);
    }

    const LevelSchedule<B>& lowerSchedule() const
    {
        return lower_;
    }

    const LevelSchedule<B>& upperSchedule() const
    {
        return upper_;
    }

    //- How the GPU sweeps (LevelSchedule::setOneLaunchBlocks), for both schedules
    void setOneLaunchBlocks(int blocks)
    {
        lower_.setOneLaunchBlocks(blocks);
        upper_.setOneLaunchBlocks(blocks);
    }

    //- Whether the GPU's DIC/DILU sweeps wait on the values (LevelSchedule::setValueWaits)
    void setValueWaits(bool on)
    {
        lower_.setValueWaits(on);
        upper_.setValueWaits(on);
    }

    //- The DIC/DILU sweeps by chains (LevelSchedule::setChains), for both schedules, or not;
    //  the terms are packed again in the chains' order
    void setChains(bool on)
    {
        if (on)
        {
            setSlabs(0);
            const auto [lower, upper] = hostSchedules();
            lower_.setChains(&lower);
            upper_.setChains(&upper);
        }
        else
        {
            lower_.setChains(nullptr);
            upper_.setChains(nullptr);
        }
        packPatterns(packedWidth_);
    }

    bool chains() const
    {
        return lower_.chains() != nullptr;
    }

    //- The GPU sweep by slabs (LevelSchedule::setSlabs), for both schedules: n slabs, -1 one
    //  per multiprocessor, 0 off; with sharedValues, a block reads the values of its slab's
    //  recent rows from shared memory (slabSlots). Turns the chains off.
    void setSlabs(int n, bool sharedValues = true)
    {
        if (n != 0 && chains())
        {
            setChains(false);
        }
        nSlabs_ = n;
        slabSharedValues_ = sharedValues;
        if constexpr (B::executor == Executor::gpu)
        {
            n = n < 0 ? B::multiprocessors() : n;
        }
        if (n == 0)
        {
            lower_.setSlabs(0, {});
            upper_.setSlabs(0, {});
            return;
        }
        const auto [lower, upper] = hostSchedules();
        const auto setOn = [&](LevelSchedule<B>& schedule, const HostLevelSchedule& h, const PackedSweep& packed)
        {
            const int width = sharedValues ? packed.width : 0;
            schedule.setSlabs(std::max(n, 1), h, toStd(packed.count), toStd(packed.col), width);
        };
        setOn(lower_, lower, forward_);
        setOn(upper_, upper, backward_);
    }

    //- rD of diagonal, DIC or DILU (valid after setup).
    const Vector<double>& rD() const
    {
        return rD_;
    }

    //- The ILU0 factors (valid after setup with ILU0).
    const Vector<double>& lu() const
    {
        return lu_;
    }

    //- The numeric part, from the current matrix values.
    void setup(Preconditioner type)
    {
        type_ = type;
        const int n = A_.nRows;
        switch (type)
        {
            case Preconditioner::none:
                break;
            case Preconditioner::diagonal:
                forEach<B>(0, n, detail::InverseDiagonal{ptr(A_.diagPos), ptr(A_.val), ptr(rD_)});
                break;
            case Preconditioner::DIC:
            case Preconditioner::DILU:
                lower_.sweep(detail::DicFactorRow{
                    lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                    ptr(A_.transpose), ptr(A_.val), ptr(rD_)});
                forEach<B>(0, n, detail::Invert{ptr(rD_)});
                forward_.packed[0] = forward_.packed[1] = false;
                backward_.packed[0] = backward_.packed[1] = false;
                break;
            case Preconditioner::ILU0:
                lu_.resize(A_.nnz());
                forEach<B>(0, A_.nnz(), detail::CopyValues{ptr(A_.val), ptr(lu_)});
                lower_.sweep(detail::Ilu0FactorRow{
                    lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(lu_)});
                break;
        }
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

} // namespace gpuLdu

#endif
