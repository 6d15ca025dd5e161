// SPDX-License-Identifier: GPL-3.0-or-later
// ILU0: the zero-fill incomplete LU of the CSR matrix (L unit lower, U upper, in A's pattern).
// Not OpenFOAM's: it equals DILU only where no two neighbours of a row are neighbours of each
// other (no triangles in the matrix graph, as on a hexahedral mesh). The factor and both sweeps
// are level-scheduled on the same schedules as DIC/DILU.

#ifndef GPULDU_ILU0_HPP
#define GPULDU_ILU0_HPP

#include "matrix/CsrMatrix.hpp"
#include "matrix/ValueCheck.hpp"
#include "sweep/LevelSchedule.hpp"
#include "sweep/WaitProtocol.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace detail
{

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
            // a zero or non-finite u_kk gives NaN (setup's pivot check reports it)
            lu[p] = quotientOrNaN(lu[p], loadFresh(&lu[diagPos[kk]]));
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


} // namespace detail

template<class B>
class Ilu0Preconditioner
{
    const CsrMatrix<B>& A_;
    const LevelSchedule<B>& lower_;
    const LevelSchedule<B>& upper_;
    //- The factors L (strictly lower, unit diagonal implied) and U, in A's pattern
    typename B::template Vector<double> lu_;

    //- L U w = r (or U^T L^T w = r): the forward sweep, then the backward one
    template<bool Transposed>
    void sweeps(double* w, const double* r) const
    {
        lower_.sweep(detail::Ilu0SweepRow<false, Transposed>{
            lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
            ptr(A_.transpose), ptr(lu_), r, w});
        upper_.sweep(detail::Ilu0SweepRow<true, Transposed>{
            upper_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos),
            ptr(A_.transpose), ptr(lu_), nullptr, w});
    }

public:
    Ilu0Preconditioner(const CsrMatrix<B>& A, const LevelSchedule<B>& lower, const LevelSchedule<B>& upper)
    :
        A_(A),
        lower_(lower),
        upper_(upper)
    {}

    //- The factors (valid after setup)
    const typename B::template Vector<double>& lu() const
    {
        return lu_;
    }

    //- The factors from the current matrix values, by rows in level order. Throws ValueError
    //  at the first zero or non-finite pivot u_ii (a NaN carried past it, nothing divided by it).
    void setup(const char* pivotOf = "ILU0")
    {
        if (!A_.columnsAscending)
        {
            throw Error("gpuLdu: ILU0 needs faces in upper-triangular order (each row's columns "
                        "ascending); this addressing has a cell's upper neighbours out of order");
        }
        lu_.resize(A_.nnz());
        forEach<B>(0, A_.nnz(), detail::Copy{ptr(A_.val), ptr(lu_)});
        lower_.sweep(detail::Ilu0FactorRow{
            lower_.rows(), ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(lu_)});
        checkPivots<B>(pivotOf, ptr(lu_), ptr(A_.diagPos), A_.nRows);
    }

    //- w = (LU)^-1 r
    void apply(double* w, const double* r) const
    {
        sweeps<false>(w, r);
    }

    //- w = (LU)^-T r
    void applyT(double* w, const double* r) const
    {
        sweeps<true>(w, r);
    }
};

namespace preconditioners
{

//- The zero-fill incomplete LU of the CSR matrix: the plugin's own (native has none: no
//  checkNative), taken on both kinds of matrix
struct Ilu0
{
    static constexpr Variant variants[] = {{"ILU0", Takes::both, nullptr}};
    static constexpr bool openFOAMs = false;
    static constexpr bool needsSchedules = true;
    template<class B>
    using Type = Ilu0Preconditioner<B>;
};

} // namespace preconditioners

} // namespace gpuLdu

#endif
