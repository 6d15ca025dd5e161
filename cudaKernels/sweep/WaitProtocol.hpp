// SPDX-License-Identifier: GPL-3.0-or-later
// The wait protocol of a triangular sweep, for any lower or upper sweep of the form
//     out[i] = (scale_i*start_i - sum_m coeff_m*out[col_m]) [/ divisor_i]     (or coeff_m/out[col_m])
// where the terms m are row i's lower (forward) or upper (backward) neighbours in a fixed order.
// Every output holds notReady until its row is written. A row first loads what does not depend
// on the sweep (its start value and terms: prefetch), then reads the values at its terms'
// columns, reads the late ones again until none is notReady, and subtracts the terms in their
// order: the same arithmetic, in the same order, as a sequential sweep, whichever thread does
// which row when. On the GPU rows of one launch wait on each other this way
// (backend/cuda/sweepKernels.hpp); on the host rows run level by level, so every value is
// there at the first read (a notReady there would be a bug: it shows as a NaN, never a hang).

#ifndef GPULDU_WAITPROTOCOL_HPP
#define GPULDU_WAITPROTOCOL_HPP

#include "backend/Bits.hpp"
#include "backend/MemoryOrder.hpp"
#include "matrix/ValueCheck.hpp"

namespace gpuLdu
{

//- What an output of the value-waiting sweeps holds until its row is written: a signalling NaN
//  with a payload of its own. Arithmetic never produces it (its NaNs are quiet).
constexpr std::uint64_t notReadyBits = 0x7ff4'0000'dead'beefULL;

GPULDU_HD inline double notReady()
{
    return doubleOfBits(notReadyBits);
}

GPULDU_HD inline bool isReady(double v)
{
    return bitsOf(v) != notReadyBits;
}

//- What a row on the host throws where a value it needs is not written yet. The host runs a
//  sweep's rows in level order, so in a sweep it means a bug (and becomes an Error, never a
//  hang or a NaN); the out-of-order test of the protocol drives rows early on purpose and
//  catches it: the row has written nothing, and is tried again later.
struct SweepValueNotReady : Error
{
    SweepValueNotReady()
    :
        Error("gpuLdu: a triangular sweep read a value before its row was written (rows out of level order)")
    {}
};

//- v, loaded from p, once it is ready: on the GPU another warp may still be computing that row
//  (of an earlier level), so p is read again until it no longer holds notReady; on the host it
//  is there, or the row throws SweepValueNotReady.
GPULDU_HD inline double waitReady(const double* p, double v)
{
#ifdef GPULDU_DEVICE_PASS
    while (!isReady(v))
    {
        v = loadRelaxed(p);
    }
#else
    (void)p;
    if (!isReady(v))
    {
        throw SweepValueNotReady();
    }
#endif
    return v;
}

namespace detail
{

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

//- The first maxTerms terms of a row (RowTerms, or any positions first + m*step), in their
//  order: row.coefficient(i, p) and the column of p; the rest are left to subtractTerms. The
//  loops run over maxTerms, so that the terms stay in registers (an index known only at run
//  time would put them in local memory).
template<class Positions, class Row>
GPULDU_HD inline void gatherTerms(SweepRowTerms& t, const Positions& terms, const int* col, const Row& row)
{
    t.nTerms = terms.count < SweepRowTerms::maxTerms ? terms.count : SweepRowTerms::maxTerms;
GPULDU_UNROLL
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
GPULDU_UNROLL
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms)
        {
            t.x[m] = value(m);
            t.ready = t.ready && isReady(t.x[m]);
        }
    }
}

//- Reads the values at the terms' columns (other rows of the sweep write them: read fresh),
//  and whether all are ready.
template<class Terms>
GPULDU_HD inline void readTerms(Terms& t, const double* x)
{
    readTermsWith(t, [&](int m) { return loadRelaxed(&x[t.col[m]]); });
}

//- Reads again, all together, the values that were not ready
template<class Terms>
GPULDU_HD inline void rereadTerms(Terms& t, const double* x)
{
    t.ready = true;
GPULDU_UNROLL
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms && !isReady(t.x[m]))
        {
            t.x[m] = loadRelaxed(&x[t.col[m]]);
            t.ready = t.ready && isReady(t.x[m]);
        }
    }
}

//- start - sum of coefficient*x[col] (or coefficient/x[col]) over the terms in their order,
//  once readTerms found them ready (the terms past maxTerms are waited for one by one). A
//  quotient by a zero or non-finite x (a factorisation's bad pivot) is a quiet NaN instead
//  (quotientOrNaN): the factorisation's pivot check reports it, nothing divides by zero.
template<bool Quotient, class Terms, class Row>
GPULDU_HD inline double subtractTerms(const Terms& t, const double* x, const int* col, const Row& row)
{
    double acc = t.scale*t.start;
GPULDU_UNROLL
    for (int m = 0; m < Terms::maxTerms; ++m)
    {
        if (m < t.nTerms)
        {
            acc -= Quotient ? quotientOrNaN(t.coeff[m], t.x[m]) : t.coeff[m]*t.x[m];
        }
    }
    for (int p = t.rest; p != t.restEnd; p += t.step)
    {
        const double xj = waitReady(&x[col[p]], loadRelaxed(&x[col[p]]));
        acc -= Quotient ? quotientOrNaN(row.coefficient(t.i, p), xj) : row.coefficient(t.i, p)*xj;
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

//- result(subtractTerms) once all of t's values are ready (after readTerms): on the GPU the late
//  ones are read again until they are there; on the host a row that finds one missing throws
//  SweepValueNotReady, having written nothing.
template<bool Quotient, class Terms, class Row, class Result>
GPULDU_HD inline void awaitTerms(Terms& t, const double* x, const int* col, const Row& row, const Result& result)
{
    while (!tryFinishTerms<Quotient>(t, x, col, row, result))
    {
#ifndef GPULDU_DEVICE_PASS
        throw SweepValueNotReady();
#endif
    }
}

//- result(subtractTerms) once the values are ready: readTerms, then awaitTerms
template<bool Quotient, class Terms, class Row, class Result>
GPULDU_HD inline void finishTerms(Terms& t, const double* x, const int* col, const Row& row, const Result& result)
{
    readTerms(t, x);
    awaitTerms<Quotient>(t, x, col, row, result);
}

} // namespace detail

} // namespace gpuLdu

#endif
