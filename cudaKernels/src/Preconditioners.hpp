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

namespace gpuLdu
{

namespace detail
{

struct Fill
{
    double* x;
    double value;

    GPULDU_HD void operator()(int i) const
    {
        x[i] = value;
    }
};

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

//- The part of a sweep row that does not depend on other rows of the sweep, loaded before
//  the row waits for its level (GPU one-launch sweep): the row, its start value and up to
//  maxTerms coefficients with their columns. Longer rows finish the rest directly.
struct SweepRowTerms
{
    static constexpr int maxTerms = 8;
    int i;
    int nTerms;
    //- The positions left over: rest, rest + step, ... up to restEnd (exclusive)
    int rest;
    int restEnd;
    int step;
    double start;
    //- The result is divided by this when it is not 1 (ILU0's U diagonal)
    double divisor;
    double coeff[maxTerms];
    int col[maxTerms];
};

//- The terms of row positions first, first + step, ... (up to end, exclusive), in that order:
//  row.coefficient(i, p) and the column of p
template<class Row>
GPULDU_HD inline void gatherTerms(SweepRowTerms& t, int first, int end, int step, const int* col, const Row& row)
{
    int p = first;
    t.nTerms = 0;
    for (; p != end && t.nTerms < SweepRowTerms::maxTerms; p += step, ++t.nTerms)
    {
        t.coeff[t.nTerms] = row.coefficient(t.i, p);
        t.col[t.nTerms] = col[p];
    }
    t.rest = p;
    t.restEnd = end;
    t.step = step;
}

//- start - sum of coefficient*x[col] (or coefficient/x[col]) over the terms in their order;
//  x is read fresh (other rows of the sweep wrote it), all terms' loads issued before the first
//  is waited for (waitReady: a no-op unless the sweep writes notReady ahead of its rows)
template<bool Quotient, class Row>
GPULDU_HD inline double subtractTerms(const SweepRowTerms& t, const double* x, const int* col, const Row& row)
{
    double xs[SweepRowTerms::maxTerms];
    for (int m = 0; m < t.nTerms; ++m)
    {
        xs[m] = loadRelaxed(&x[t.col[m]]);
    }
    double acc = t.start;
    for (int m = 0; m < t.nTerms; ++m)
    {
        const double xj = waitReady(&x[t.col[m]], xs[m]);
        acc -= Quotient ? t.coeff[m]/xj : t.coeff[m]*xj;
    }
    for (int p = t.rest; p != t.restEnd; p += t.step)
    {
        const double xj = waitReady(&x[col[p]], loadRelaxed(&x[col[p]]));
        acc -= Quotient ? row.coefficient(t.i, p)/xj : row.coefficient(t.i, p)*xj;
    }
    return acc;
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
        t.divisor = 1;
        gatherTerms(t, rowStart[t.i], diagPos[t.i], 1, col, *this);
        return t;
    }

    GPULDU_HD void finish(const SweepRowTerms& t) const
    {
        d[t.i] = subtractTerms<true>(t, d, col, *this);
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};

//- One row of a DIC/DILU sweep, from in to out:
//  forward  (Upper = false): y[i] = rD[i]*r[i] - sum_lower rD[i]*A[i][j]*y[j]
//  backward (Upper = true):  w[i] = y[i] - sum_upper rD[i]*A[i][j]*w[j], by descending column
//  out holds notReady until its rows are written (Preconditioners::sweeps fills it), so that the
//  GPU's rows can wait on the values themselves (valueWaitSweepKernel).
template<bool Upper, bool Transposed>
struct SweepRow
{
    static constexpr bool waitsOnValues = true;

    const int* rows;
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

    GPULDU_HD SweepRowTerms prefetch(int k) const
    {
        SweepRowTerms t;
        t.i = rows[k];
        t.start = Upper ? loadFresh(&in[t.i]) : rD[t.i]*in[t.i];
        t.divisor = 1;
        if (Upper)
        {
            gatherTerms(t, rowStart[t.i + 1] - 1, diagPos[t.i], -1, col, *this);
        }
        else
        {
            gatherTerms(t, rowStart[t.i], diagPos[t.i], 1, col, *this);
        }
        return t;
    }

    GPULDU_HD void finish(const SweepRowTerms& t) const
    {
        storeRelaxed(&out[t.i], subtractTerms<false>(t, out, col, *this));
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};

template<bool Transposed>
using LowerSweepRow = SweepRow<false, Transposed>;

template<bool Transposed>
using UpperSweepRow = SweepRow<true, Transposed>;

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
        t.divisor = divides ? lu[diagPos[t.i]] : 1;
        if (Upper)
        {
            gatherTerms(t, rowStart[t.i + 1] - 1, diagPos[t.i], -1, col, *this);
        }
        else
        {
            gatherTerms(t, rowStart[t.i], diagPos[t.i], 1, col, *this);
        }
        return t;
    }

    GPULDU_HD void finish(const SweepRowTerms& t) const
    {
        const double wi = subtractTerms<false>(t, w, col, *this);
        w[t.i] = divides ? wi/t.divisor : wi;
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
    const CsrMatrix<B>& A_;
    LevelSchedule<B> lower_;
    LevelSchedule<B> upper_;
    typename B::template Vector<double> rD_;
    //- The forward sweep's result (DIC/DILU)
    mutable typename B::template Vector<double> y_;
    //- ILU0 factors L (strictly lower, unit diagonal implied) and U, in A's pattern
    typename B::template Vector<double> lu_;
    Preconditioner type_ = Preconditioner::none;

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
            // About 120 B/row: val, col, rD, r, y, w, each read or written about once per sweep,
            // and y and w filled with notReady first (coalesced)
            const int n = A_.nRows;
            forEach<B>(0, n, detail::Fill{ptr(y_), notReady()});
            lower_.sweep(detail::LowerSweepRow<Transposed>{
                lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                ptr(A_.transpose), ptr(A_.val), ptr(rD_), r, ptr(y_)});
            forEach<B>(0, n, detail::Fill{w, notReady()});
            upper_.sweep(detail::UpperSweepRow<Transposed>{
                upper_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                ptr(A_.transpose), ptr(A_.val), ptr(rD_), ptr(y_), w});
        }
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
    {}

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

    //- The GPU sweep by slabs (LevelSchedule::setSlabs), for both schedules: n slabs, -1 one
    //  per multiprocessor, 0 off. The host schedules are rebuilt from the CSR pattern (its
    //  upper triangle, row by row, is the LDU addressing in OpenFOAM's face order).
    void setSlabs(int n)
    {
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
        lower_.setSlabs(std::max(n, 1), lowerLevelSchedule(addr));
        upper_.setSlabs(std::max(n, 1), upperLevelSchedule(addr));
    }

    //- rD of diagonal, DIC or DILU (valid after setup).
    const typename B::template Vector<double>& rD() const
    {
        return rD_;
    }

    //- The ILU0 factors (valid after setup with ILU0).
    const typename B::template Vector<double>& lu() const
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
