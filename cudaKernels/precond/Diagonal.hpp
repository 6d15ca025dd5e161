// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's noPreconditioner (w = r) and diagonalPreconditioner (rD = 1/diag, w = rD*r)
// (src/OpenFOAM/matrices/lduMatrix/preconditioners/diagonalPreconditioner/diagonalPreconditioner.C).
// Both are their own transposes.

#ifndef GPULDU_DIAGONAL_HPP
#define GPULDU_DIAGONAL_HPP

#include "matrix/CsrMatrix.hpp"
#include "matrix/ValueCheck.hpp"
#include "registry/Registry.hpp"

namespace gpuLdu
{

namespace detail
{

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

//- w = rD*r
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

} // namespace detail

template<class B>
class NoPreconditioner
{
    int n_;

public:
    explicit NoPreconditioner(const CsrMatrix<B>& A)
    :
        n_(A.nRows)
    {}

    void setup(const char* = "none")
    {}

    void apply(double* w, const double* r) const
    {
        forEach<B>(0, n_, detail::Copy{r, w});
    }

    void applyT(double* w, const double* r) const
    {
        apply(w, r);
    }
};

template<class B>
class DiagonalPreconditioner
{
    const CsrMatrix<B>& A_;
    typename B::template Vector<double> rD_;

public:
    explicit DiagonalPreconditioner(const CsrMatrix<B>& A)
    :
        A_(A)
    {}

    //- rD = 1/diag (valid after setup)
    const typename B::template Vector<double>& rD() const
    {
        return rD_;
    }

    //- Throws ValueError at the first zero or non-finite diagonal, before dividing by it
    void setup(const char* pivotOf = "diagonal")
    {
        checkPivots<B>(pivotOf, ptr(A_.val), ptr(A_.diagPos), A_.nRows);
        rD_.resize(A_.nRows);
        forEach<B>(0, A_.nRows, detail::InverseDiagonal{ptr(A_.diagPos), ptr(A_.val), ptr(rD_)});
    }

    void apply(double* w, const double* r) const
    {
        forEach<B>(0, A_.nRows, detail::Scale{ptr(rD_), r, w});
    }

    void applyT(double* w, const double* r) const
    {
        apply(w, r);
    }
};

namespace preconditioners
{

//- OpenFOAM's noPreconditioner (the registry's first: Preconditioner's default)
struct None
{
    static constexpr Variant variants[] = {{"none", Takes::both, nullptr}};
    static constexpr bool openFOAMs = true;
    //- Built from A alone (no level schedules)
    static constexpr bool needsSchedules = false;
    template<class B>
    using Type = NoPreconditioner<B>;
};

//- OpenFOAM's diagonalPreconditioner
struct Diagonal
{
    static constexpr Variant variants[] = {{"diagonal", Takes::both, nullptr}};
    static constexpr bool openFOAMs = true;
    static constexpr bool needsSchedules = false;
    template<class B>
    using Type = DiagonalPreconditioner<B>;
};

} // namespace preconditioners

} // namespace gpuLdu

#endif
