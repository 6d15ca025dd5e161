// SPDX-License-Identifier: GPL-3.0-or-later
// Preconditioners, each the same arithmetic as OpenFOAM's (openfoam-api.md c.8):
//   none:      w = r
//   diagonal:  rD = 1/diag;  w = rD*r
//   DIC:       d[u] = diag[u] - sum_{f: u(f)=u, by face} upper[f]^2/d[l(f)];  rD = 1/d
//              forward  (faces ascending):  w[u] -= rD[u]*upper[f]*w[l]   (w starts as rD*r)
//              backward (faces descending): w[l] -= rD[l]*upper[f]*w[u]
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

//- The incomplete-Cholesky pivot of one row: d[i] = A[i][i] - sum_lower A[j][i]*A[i][j]/d[j].
struct DicFactorRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const int* transpose;
    const double* val;
    double* d;

    GPULDU_HD void operator()(int k) const
    {
        const int i = rows[k];
        double di = val[diagPos[i]];
        for (int p = rowStart[i]; p < diagPos[i]; ++p)
        {
            di -= val[transpose[p]]*val[p]/d[col[p]];
        }
        d[i] = di;
    }
};

//- Forward sweep of one row: w[i] = rD[i]*r[i] - sum_lower rD[i]*A[i][j]*w[j].
struct LowerSweepRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* rD;
    const double* r;
    double* w;

    GPULDU_HD void operator()(int k) const
    {
        const int i = rows[k];
        double wi = rD[i]*r[i];
        for (int p = rowStart[i]; p < diagPos[i]; ++p)
        {
            wi -= rD[i]*val[p]*w[col[p]];
        }
        w[i] = wi;
    }
};

//- Backward sweep of one row: w[i] -= rD[i]*A[i][j]*w[j], upper entries by descending column.
struct UpperSweepRow
{
    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* rD;
    double* w;

    GPULDU_HD void operator()(int k) const
    {
        const int i = rows[k];
        double wi = w[i];
        for (int p = rowStart[i + 1] - 1; p > diagPos[i]; --p)
        {
            wi -= rD[i]*val[p]*w[col[p]];
        }
        w[i] = wi;
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
    Preconditioner type_ = Preconditioner::none;

public:
    Preconditioners(const CsrMatrix<B>& A, const LduAddressingView& addr)
    :
        A_(A),
        lower_(lowerLevelSchedule(addr)),
        upper_(upperLevelSchedule(addr)),
        rD_(A.nRows)
    {}

    const LevelSchedule<B>& lowerSchedule() const
    {
        return lower_;
    }

    const LevelSchedule<B>& upperSchedule() const
    {
        return upper_;
    }

    //- rD of diagonal or DIC (valid after setup).
    const typename B::template Vector<double>& rD() const
    {
        return rD_;
    }

    //- The numeric part, from the current matrix values.
    void setup(Preconditioner type)
    {
        type_ = type;
        const int n = A_.nRows;
        if (type == Preconditioner::diagonal)
        {
            forEach<B>(0, n, detail::InverseDiagonal{ptr(A_.diagPos), ptr(A_.val), ptr(rD_)});
        }
        else if (type == Preconditioner::DIC)
        {
            lower_.sweep(detail::DicFactorRow{
                ptr(lower_.rows), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                ptr(A_.transpose), ptr(A_.val), ptr(rD_)});
            forEach<B>(0, n, detail::Invert{ptr(rD_)});
        }
    }

    //- w = M^-1 r
    void apply(double* w, const double* r) const
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
                // About 110 B/row: val, col, rD, r, w, each read about once per sweep.
                lower_.sweep(detail::LowerSweepRow{
                    ptr(lower_.rows), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                    ptr(A_.val), ptr(rD_), r, w});
                upper_.sweep(detail::UpperSweepRow{
                    ptr(upper_.rows), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
                    ptr(A_.val), ptr(rD_), w});
                break;
        }
    }
};

} // namespace gpuLdu

#endif
