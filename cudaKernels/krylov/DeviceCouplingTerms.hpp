// SPDX-License-Identifier: GPL-3.0-or-later
// The interface terms a system holds itself (LduSystem::setDeviceCouplings: the processor faces
// between the ranks of a group, those to other groups through a halo): their pattern on the
// backend, the coefficients of A and of A^T one after the other, the terms by row as the row
// functors read them, and the halo of x the terms read across (HaloExchange).

#ifndef GPULDU_DEVICECOUPLINGTERMS_HPP
#define GPULDU_DEVICECOUPLINGTERMS_HPP

#include "krylov/HaloExchange.hpp"
#include "matrix/Spmv.hpp"

#include <thrust/copy.h>


namespace gpuLdu
{

template<class B>
class DeviceCouplingTerms
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- The rows with terms, where each row's terms start among them, their columns (n and
    //  above: the halo's), the coefficients of A then of A^T
    Vector<int> rows_;
    Vector<int> start_;
    Vector<int> cols_;
    Vector<double> coeffs_;
    //- Where row i's terms start in cols_ (every row of the system)
    Vector<int> rowStart_;
    //- x across faces to other systems (DeviceCouplings::haloSend, nHalo)
    HaloExchange<B> halo_;
    int n_ = 0;

public:
    //- The terms of c on a system of n rows: rows ascending and in range, columns below n plus
    //  the halo's size, halo cells in range; else an Error
    void set(const DeviceCouplings& c, int n)
    {
        const int nRows = int(c.rows.size());
        bool valid = int(c.start.size()) == nRows + 1 && c.start[0] == 0 && int(c.cols.size()) == c.nTerms();
        for (int j = 0; valid && j < nRows; ++j)
        {
            valid = c.rows[j] >= 0 && c.rows[j] < n && c.start[j] <= c.start[j + 1]
                && (j == 0 || c.rows[j - 1] < c.rows[j]);
        }
        for (std::size_t k = 0; valid && k < c.cols.size(); ++k)
        {
            valid = c.cols[k] >= 0 && c.cols[k] < n + c.nHalo;
        }
        for (std::size_t k = 0; valid && k < c.haloSend.size(); ++k)
        {
            valid = c.haloSend[k] >= 0 && c.haloSend[k] < n;
        }
        if (!valid)
        {
            throw Error("gpuLdu: device couplings out of range or not in ascending rows");
        }
        n_ = n;
        rows_.resize(nRows);
        start_.resize(nRows + 1);
        cols_.resize(c.cols.size());
        coeffs_.resize(2*c.cols.size());
        B::upload(ptr(rows_), c.rows.data(), nRows);
        B::upload(ptr(start_), c.start.data(), nRows + 1);
        B::upload(ptr(cols_), c.cols.data(), c.cols.size());
        interfaceRowStarts<B>(ptr(rows_), ptr(start_), nRows, n, rowStart_);
        halo_.set(c);
    }

    bool empty() const
    {
        return rows_.empty();
    }

    int nTerms() const
    {
        return int(cols_.size());
    }

    //- Whether some terms read x across, in the halo
    bool hasHalo() const
    {
        return halo_.size() > 0;
    }

    //- The coefficients of A and of A^T from the host (through the workspace's staging)
    void setCoeffs(const double* coeffs, const double* intCoeffs, typename B::Workspace& ws)
    {
        const std::size_t m = cols_.size();
        ws.upload(ptr(coeffs_), {{coeffs, m}, {intCoeffs, m}});
    }

    //- The same from the backend: nTerms of A, then as many of A^T, in the kernels' order
    void setCoeffsOnBackend(const double* both)
    {
        thrust::copy_n(B::policy(), both, 2*cols_.size(), coeffs_.begin());
    }

    //- The terms by row, as lduMatrix::residual adds them (none: empty); those that read x
    //  across read the halo of the last exchangeHalo
    detail::InterfaceRowTerms rowTerms() const
    {
        if (empty())
        {
            return {};
        }
        return {ptr(rowStart_), ptr(cols_), ptr(coeffs_), n_, hasHalo() ? halo_.values() : nullptr};
    }

    //- The halo of x, where the terms read one (HaloExchange)
    void exchangeHalo(const double* x, const Coupling& coupling, typename B::Workspace& ws)
    {
        if (hasHalo())
        {
            halo_.exchange(x, coupling, ws);
        }
    }

    //- The terms of A (or of A^T: transposed) at x subtracted from y, or added (add); no x: the
    //  coefficients themselves, or with add their magnitudes (detail::ApplyCouplings). The halo
    //  is the last exchangeHalo's
    void apply(double* y, const double* x, bool transposed, bool add) const
    {
        forEach<B>(0, int(rows_.size()), detail::ApplyCouplings{
            ptr(rows_), ptr(start_), ptr(cols_), ptr(coeffs_) + (transposed ? nTerms() : 0), x, y, add,
            n_, halo_.values()});
    }
};

} // namespace gpuLdu

#endif
