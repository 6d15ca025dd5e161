// SPDX-License-Identifier: GPL-3.0-or-later
// The row operations of OpenFOAM's GAMG smoothers and V-cycle (src/OpenFOAM/matrices/lduMatrix/
// smoothers/, lduMatrix::residual, GAMGSolverInterpolate.C, GAMGSolverScale.C), each row's
// terms taken in the order of OpenFOAM's face loops: in CSR (CsrMatrix) a row's lower entries
// by ascending column, then its upper entries in face order.
//
// Gauss-Seidel in cell order (GaussSeidelSmoother.C) keeps bPrime = b, and for each cell i in
// turn: psi_i = (bPrime_i - sum_{faces owned by i} upper_f*psi_u(f))/diag_i, then subtracts
// lower_f*psi_i from bPrime of each upper neighbour. So when cell i is reached, bPrime_i has
// lost the terms of its lower neighbours, in face order, with their new values:
//     psi_i = ((b_i - sum_lower A_ij psi_j^new) - sum_upper A_ij psi_j^old) / A_ii
// a lower-triangular solve on the dependency graph of the DIC forward sweep, level-scheduled
// the same way (the new values wait in `out`, sweep/WaitProtocol.hpp).
// symGaussSeidel then runs the cells backwards on the same bPrime (it is not reset): the
// lower terms stay those of the forward pass, the upper ones take the backward pass's values:
//     psi_i = (bPrime_i - sum_upper A_ij psi_j^back) / A_ii    (upper schedule)

#ifndef GPULDU_SMOOTHERROWS_HPP
#define GPULDU_SMOOTHERROWS_HPP

#include "krylov/VectorOps.hpp"
#include "sweep/WaitProtocol.hpp"

namespace gpuLdu
{

namespace detail
{

//- The positions of a row's upper terms in OpenFOAM's face order (ascending CSR position)
struct UpperTermsInFaceOrder
{
    int first;
    int count;
    static constexpr int step = 1;

    GPULDU_HD UpperTermsInFaceOrder(const int* rowStart, const int* diagPos, int i)
    :
        first(diagPos[i] + 1),
        count(rowStart[i + 1] - 1 - diagPos[i])
    {}

    GPULDU_HD int position(int m) const
    {
        return first + m;
    }
};

//- One row of a Gauss-Seidel sweep (forward: lower terms, new values from out; then the upper
//  terms with the old values of in) or of symGaussSeidel's backward sweep (Backward: from
//  bPrime, the upper terms with the new values of out). The forward row keeps bPrime_i (its
//  value after the lower terms) where bPrime is not null, for the backward sweep.
template<bool Backward>
struct GaussSeidelRow
{
    static constexpr bool waitsOnValues = true;
    using Terms = SweepRowTerms;

    const int* rows;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    //- forward: b; backward: bPrime of the forward sweep
    const double* b;
    //- forward: the old values
    const double* in;
    double* out;
    //- forward: where bPrime goes (or nullptr)
    double* bPrime;

    GPULDU_HD double coefficient(int, int p) const
    {
        return val[p];
    }

    GPULDU_HD Terms prefetch(int k) const
    {
        Terms t;
        t.i = rows[k];
        t.start = b[t.i];
        t.scale = 1;
        t.divisor = val[diagPos[t.i]];
        if (Backward)
        {
            gatherTerms(t, UpperTermsInFaceOrder(rowStart, diagPos, t.i), col, *this);
        }
        else
        {
            gatherTerms(t, RowTerms<false>(rowStart, diagPos, t.i), col, *this);
        }
        return t;
    }

    GPULDU_HD void prefetchL2(int) const
    {}

    GPULDU_HD void finish(Terms t) const
    {
        readTerms(t, out);
        const GaussSeidelRow& row = *this;
        awaitTerms<false>(t, out, col, *this, [&row, &t](double acc)
        {
            if (!Backward)
            {
                if (row.bPrime)
                {
                    row.bPrime[t.i] = acc;
                }
                for (int p = row.diagPos[t.i] + 1; p < row.rowStart[t.i + 1]; ++p)
                {
                    acc -= row.val[p]*row.in[row.col[p]];
                }
            }
            storeRelaxed(&row.out[t.i], acc/t.divisor);
        });
    }

    GPULDU_HD void operator()(int k) const
    {
        finish(prefetch(k));
    }
};

//- diagonalSolver: x_i = b_i / A_ii (the coarsest level of a GAMG without faces)
struct DiagonalSolveRow
{
    const int* diagPos;
    const double* val;
    const double* b;
    double* x;

    GPULDU_HD void operator()(int i) const
    {
        x[i] = b[i]/val[diagPos[i]];
    }
};

//- lduMatrix::residual: r_i = b_i - A_ii x_i, then minus each off-diagonal term in face order
//  (not b - (A x): the rounding differs)
struct ResidualRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* b;
    const double* x;
    double* r;

    GPULDU_HD void operator()(int i) const
    {
        const int d = diagPos[i];
        double acc = b[i] - val[d]*x[i];
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            if (p != d)
            {
                acc -= val[p]*x[col[p]];
            }
        }
        r[i] = acc;
    }
};

//- GAMGSolver::interpolate's sum: Apsi_i = the off-diagonal terms of row i added from 0 in
//  face order (the interfaces' terms follow, then psi = -Apsi/D: NegativeQuotient)
struct OffDiagonalSumRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* x;
    double* Apsi;

    GPULDU_HD void operator()(int i) const
    {
        const int d = diagPos[i];
        double acc = 0;
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            if (p != d)
            {
                acc += val[p]*x[col[p]];
            }
        }
        Apsi[i] = acc;
    }
};

//- psi_i = -Apsi_i/D_i
struct NegativeQuotient
{
    const double* Apsi;
    const double* D;
    double* psi;

    GPULDU_HD void operator()(int i) const
    {
        psi[i] = -Apsi[i]/D[i];
    }
};

//- OpenFOAM's stabilise(s, small): s moved away from zero by small
GPULDU_HD inline double stabilise(double s, double small)
{
    return s >= 0 ? s + small : s - small;
}

//- GAMGSolver::scale's update: field = sf*field + (source - sf*Acf)/D, with
//  sf = sums[0]/stabilise(sums[1], VSMALL) from the sums left on the backend (no wait for the
//  host; on the host the step holds them, so sf is taken once and not at every row)
struct ScaleCorrection
{
    HeldScalars<2> sums;
    const double* source;
    const double* Acf;
    const double* D;
    double* field;

    GPULDU_HD void operator()(int i) const
    {
        const double sf = sums[0]/stabilise(sums[1], 1e-300);
        field[i] = sf*field[i] + (source[i] - sf*Acf[i])/D[i];
    }
};

//- y += x
struct AddTo
{
    const double* x;
    double* y;

    GPULDU_HD void operator()(int i) const
    {
        y[i] += x[i];
    }
};

} // namespace detail

} // namespace gpuLdu

#endif
