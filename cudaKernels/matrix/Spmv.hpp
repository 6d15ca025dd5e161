// SPDX-License-Identifier: GPL-3.0-or-later
// A x in CSR, each row summed as OpenFOAM's Amul sums it (lduMatrixATmul.C: the diagonal, then
// the faces; in CSR the lower entries by ascending column, then the upper ones), so the host's
// result is OpenFOAM's bit for bit; and the row sums of OpenFOAM's sumA in the same order. The
// other formats (SparseFormats.hpp) keep this order too. A^T x is the same product on A^T's
// values, gathered through the transpose index (detail::Gather).

#ifndef GPULDU_SPMV_HPP
#define GPULDU_SPMV_HPP

#include "backend/Backend.hpp"

#include <thrust/fill.h>
#include <thrust/scan.h>

namespace gpuLdu
{

namespace detail
{

//- acc + sum_{p in [from, to)} v(p)*x(col[p]), term by term in p order (the same sums as the
//  plain loop, bit for bit); each(p, value) is called for each term after it is added. The loads
//  go four terms at a time, predicated (no remainder loop): the four columns and values, then
//  the four x, so a row of up to four terms waits on two loads, not two a term. On GAMG's coarse
//  levels a row's chain of dependent loads is what a kernel costs (5-7 us a node at 512-130k
//  rows against 1.5 us for a prolongation, H200 kernel timeline, 2026-12-02)
template<class V, class X, class Each>
GPULDU_HD inline double addRowTerms(double acc, int from, int to, const int* col, const V* val, const X& x,
                                    const Each& each)
{
    constexpr int batch = 4;
    for (int p = from; p < to; p += batch)
    {
        bool in[batch];
        int c[batch];
        V a[batch];
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            in[k] = p + k < to;
            c[k] = in[k] ? col[p + k] : 0;
            a[k] = in[k] ? val[p + k] : V(0);
        }
        double xk[batch];
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            xk[k] = in[k] ? x(c[k]) : 0.0;
        }
        GPULDU_UNROLL
        for (int k = 0; k < batch; ++k)
        {
            if (in[k])
            {
                acc += double(a[k])*xk[k];
                each(p + k, a[k]);
            }
        }
    }
    return acc;
}

//- x[j], for addRowTerms
struct ReadAt
{
    const double* x;

    GPULDU_HD double operator()(int j) const
    {
        return x[j];
    }
};

//- Nothing for each term, for addRowTerms
struct NoEach
{
    template<class V>
    GPULDU_HD void operator()(int, V) const {}
};

//- y = A x, each row summed as OpenFOAM's Amul does: diagonal, then lower, then upper entries
//  (with the transposed values: Tmul). About 104 B/row (val 8*7, col 4*7, x, y, rowStart,
//  diagPos).
struct SpmvRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* x;
    double* y;

    //- Row i of A x in that order (also a part's of GAMG's coarsest team, CoarsestPcg)
    GPULDU_HD static double row(const int* rowStart, const int* col, const int* diagPos,
                                const double* val, const double* x, int i)
    {
        const int d = diagPos[i];
        const double yi = addRowTerms(val[d]*x[i], rowStart[i], d, col, val, ReadAt{x}, NoEach{});
        return addRowTerms(yi, d + 1, rowStart[i + 1], col, val, ReadAt{x}, NoEach{});
    }

    GPULDU_HD void operator()(int i) const
    {
        y[i] = row(rowStart, col, diagPos, val, x, i);
    }
};

//- Row sums in OpenFOAM's sumA order (same as SpmvRow with x = 1).
struct RowSum
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    double* sumA;

    GPULDU_HD void operator()(int i) const
    {
        const int d = diagPos[i];
        double s = val[d];
        for (int p = rowStart[i]; p < d; ++p)
        {
            s += val[p];
        }
        for (int p = d + 1; p < rowStart[i + 1]; ++p)
        {
            s += val[p];
        }
        sumA[i] = s;
    }
};

//- The interface terms a system holds (DeviceCouplings), row j's in order, as OpenFOAM's
//  interfaces apply them face after face: y[rows[j]] -= c[k]*x[cols[k]] (A x's terms); with
//  x == nullptr y[rows[j]] -= c[k] (the row sums of sumA). add: the same terms added instead
//  (lduMatrix::residual's and the Gauss-Seidel b's, whose coefficients OpenFOAM negates), and
//  with x == nullptr |c[k]| added (the rows' interface magnitudes). A column n or above reads
//  the halo (x across a face to another system: halo[cols[k] - n]).
struct ApplyCouplings
{
    const int* rows;
    const int* start;
    const int* cols;
    const double* c;
    const double* x;
    double* y;
    bool add;
    int n;
    const double* halo;

    GPULDU_HD double across(int col) const
    {
        return col < n ? x[col] : halo[col - n];
    }

    GPULDU_HD void operator()(int j) const
    {
        double acc = y[rows[j]];
        for (int k = start[j]; k < start[j + 1]; ++k)
        {
            if (add)
            {
                acc += x ? c[k]*across(cols[k]) : (c[k] < 0 ? -c[k] : c[k]);
            }
            else
            {
                acc -= x ? c[k]*across(cols[k]) : c[k];
            }
        }
        y[rows[j]] = acc;
    }
};

//- The same interface terms found by row (rowStart over every row, empty where a row has
//  none; the terms in ApplyCouplings' order): row i's source with them added, b_i + sum_k
//  c[k]*x[cols[k]], the same sum in the same order as ApplyCouplings with add gives it, for a
//  row kernel that adds its own terms instead of reading a b' made by a pass before it. A
//  column n or above reads the halo, as in ApplyCouplings (exchanged before the row kernel).
//  rowStart nullptr: no terms.
struct InterfaceRowTerms
{
    const int* rowStart = nullptr;
    const int* cols = nullptr;
    const double* c = nullptr;
    int n = 0;
    const double* halo = nullptr;

    GPULDU_HD double source(int i, const double* b, const double* x) const
    {
        if (!rowStart)
        {
            return b[i];
        }
        const auto across = [&](int j) { return j < n ? x[j] : halo[j - n]; };
        return addRowTerms(b[i], rowStart[i], rowStart[i + 1], cols, c, across, NoEach{});
    }
};

//- Row rows[j]'s count of terms, start[j + 1] - start[j], at rowStart[rows[j] + 1]
struct RowTermCount
{
    const int* rows;
    const int* start;
    int* rowStart;

    GPULDU_HD void operator()(int j) const
    {
        rowStart[rows[j] + 1] = start[j + 1] - start[j];
    }
};

} // namespace detail

//- InterfaceRowTerms' rowStart over n rows from the terms of nRows rows (rows ascending, row
//  rows[j]'s terms [start[j], start[j + 1])): each row's count scattered, then summed up, on the
//  backend (on the host, a list of every row's start made afresh was 30-50 ms of a set-up at 8M
//  cells: its pages' first touch and the sum on one core)
template<class B, class Starts>
void interfaceRowStarts(const int* rows, const int* start, int nRows, int n, Starts& rowStart)
{
    rowStart.resize(n + 1);
    thrust::fill(B::policy(), rowStart.begin(), rowStart.end(), 0);
    forEach<B>(0, nRows, detail::RowTermCount{rows, start, ptr(rowStart)});
    thrust::inclusive_scan(B::policy(), rowStart.begin(), rowStart.end(), rowStart.begin());
}

} // namespace gpuLdu

#endif
