// SPDX-License-Identifier: GPL-3.0-or-later
// LduSystem on a backend B: the value upload, A*x with coupled interfaces, OpenFOAM's
// normFactor, and the PCG loop exactly as OpenFOAM v1912 runs it (openfoam-api.md c.5-c.7).
// Compiled once per backend (cpuBackend.cpp, gpuBackend.cu).

#ifndef GPULDU_LDUSYSTEMIMPL_HPP
#define GPULDU_LDUSYSTEMIMPL_HPP

#include "CsrMatrix.hpp"
#include "Preconditioners.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- y = A x, each row summed as OpenFOAM's Amul does: diagonal, then lower, then upper entries.
//  About 104 B/row (val 8*7, col 4*7, x, y, rowStart, diagPos).
struct SpmvRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* x;
    double* y;

    GPULDU_HD void operator()(int i) const
    {
        const int d = diagPos[i];
        double yi = val[d]*x[i];
        for (int p = rowStart[i]; p < d; ++p)
        {
            yi += val[p]*x[col[p]];
        }
        for (int p = d + 1; p < rowStart[i + 1]; ++p)
        {
            yi += val[p]*x[col[p]];
        }
        y[i] = yi;
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

struct Gather
{
    const int* cells;
    const double* x;
    double* xAtCells;

    GPULDU_HD void operator()(int j) const
    {
        xAtCells[j] = x[cells[j]];
    }
};

//- y[cells[j]] += add[j]; the cells are distinct.
struct ScatterAdd
{
    const int* cells;
    const double* add;
    double* y;

    GPULDU_HD void operator()(int j) const
    {
        y[cells[j]] += add[j];
    }
};

//- r = b - Ax
struct Residual
{
    const double* b;
    const double* Ax;
    double* r;

    GPULDU_HD void operator()(int i) const
    {
        r[i] = b[i] - Ax[i];
    }
};

struct Sum
{
    const double* x;

    GPULDU_HD double operator()(int i) const
    {
        return x[i];
    }
};

struct SumMag
{
    const double* x;

    GPULDU_HD double operator()(int i) const
    {
        return x[i] < 0 ? -x[i] : x[i];
    }
};

struct Dot
{
    const double* x;
    const double* y;

    GPULDU_HD double operator()(int i) const
    {
        return x[i]*y[i];
    }
};

//- |Ax - sumA*xRef| + |b - sumA*xRef|, summed for OpenFOAM's normFactor.
struct NormFactorTerm
{
    const double* sumA;
    const double* Ax;
    const double* b;
    double xRef;

    GPULDU_HD double operator()(int i) const
    {
        const double t = sumA[i]*xRef;
        const double a = Ax[i] - t;
        const double c = b[i] - t;
        return (a < 0 ? -a : a) + (c < 0 ? -c : c);
    }
};

//- p = w (first iteration) or p = w + beta*p
struct UpdateSearchDirection
{
    const double* w;
    double* p;
    double beta;
    bool first;

    GPULDU_HD void operator()(int i) const
    {
        p[i] = first ? w[i] : w[i] + beta*p[i];
    }
};

//- psi += alpha*p; r -= alpha*w; returns |r| for the residual sum. 48 B/row.
struct UpdateSolutionAndResidual
{
    const double* p;
    const double* w;
    double* psi;
    double* r;
    double alpha;

    GPULDU_HD double operator()(int i) const
    {
        psi[i] += alpha*p[i];
        r[i] -= alpha*w[i];
        return r[i] < 0 ? -r[i] : r[i];
    }
};

} // namespace detail

//- OpenFOAM's SolverPerformance::checkConvergence.
inline bool isConverged(double finalResidual, double initialResidual, const SolverControls& c)
{
    return finalResidual < c.tolerance
        || (c.relTol > 1e-20 && finalResidual < c.relTol*initialResidual);
}

template<class B>
class LduSystemImpl : public LduSystem
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    CsrMatrix<B> A_;
    Preconditioners<B> precon_;
    typename B::Workspace ws_;

    //- Seconds spent in the last setMatrix
    double setMatrixSeconds_ = 0;

    //- [diag | upper | lower] as uploaded, then permuted into A_.val
    Vector<double> ldu_;
    bool symmetric_ = true;

    Vector<double> psi_;
    Vector<double> source_;
    Vector<double> rA_;
    Vector<double> wA_;
    Vector<double> pA_;
    Vector<double> sumA_;

    Vector<int> ifCells_;
    Vector<double> ifSumACorrection_;
    Vector<double> ifValues_;
    std::vector<double> hostIfX_;
    std::vector<double> hostIfAx_;

    int n() const
    {
        return A_.nRows;
    }

    int nIf() const
    {
        return int(hostIfX_.size());
    }

    //- Seconds since start, after the device has finished its queue
    static double secondsSince(std::chrono::steady_clock::time_point start)
    {
        B::synchronize();
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }

public:
    explicit LduSystemImpl(const LduAddressingView& addr)
    :
        A_(addr),
        precon_(A_, addr),
        ldu_(addr.nCells + 2*addr.nFaces),
        psi_(addr.nCells),
        source_(addr.nCells),
        rA_(addr.nCells),
        wA_(addr.nCells),
        pA_(addr.nCells),
        sumA_(addr.nCells)
    {}

    Executor executor() const override
    {
        return B::executor;
    }

    int nCells() const override
    {
        return A_.nRows;
    }

    int nFaces() const override
    {
        return A_.nFaces;
    }

    const CsrMatrix<B>& matrix() const
    {
        return A_;
    }

    Preconditioners<B>& preconditioners()
    {
        return precon_;
    }

    void setMatrix(const double* diag, const double* upper, const double* lower) override
    {
        const auto start = std::chrono::steady_clock::now();
        const std::size_t nF = A_.nFaces;
        symmetric_ = (lower == nullptr);
        ws_.upload(ptr(ldu_), {{diag, n()}, {upper, nF}, {lower, symmetric_ ? 0 : nF}});
        A_.permute(ptr(ldu_), symmetric_);
        setMatrixSeconds_ = secondsSince(start);
    }

    void setInterfaces(const std::vector<int>& cells, const std::vector<double>& sumACorrection) override
    {
        if (cells.size() != sumACorrection.size())
        {
            throw Error("gpuLdu: interface cells and row-sum corrections differ in size");
        }
        for (int c : cells)
        {
            if (c < 0 || c >= n())
            {
                throw Error("gpuLdu: interface cell " + std::to_string(c) + " out of range");
            }
        }
        const std::size_t m = cells.size();
        ifCells_.resize(m);
        ifSumACorrection_.resize(m);
        ifValues_.resize(m);
        B::upload(ptr(ifCells_), cells.data(), m);
        B::upload(ptr(ifSumACorrection_), sumACorrection.data(), m);
        hostIfX_.assign(m, 0.0);
        hostIfAx_.assign(m, 0.0);
    }

    //- y = A x, coupled interfaces included (x, y on the backend).
    void amul(double* y, const double* x, const Coupling& coupling)
    {
        forEach<B>(0, n(), detail::SpmvRow{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.val), x, y});
        if (nIf() > 0)
        {
            forEach<B>(0, nIf(), detail::Gather{ptr(ifCells_), x, ptr(ifValues_)});
            B::download(hostIfX_.data(), ptr(ifValues_), nIf());
            std::fill(hostIfAx_.begin(), hostIfAx_.end(), 0.0);
            coupling.interfaceProduct(hostIfX_.data(), hostIfAx_.data());
            B::upload(ptr(ifValues_), hostIfAx_.data(), nIf());
            forEach<B>(0, nIf(), detail::ScatterAdd{ptr(ifCells_), ptr(ifValues_), y});
        }
    }

    //- OpenFOAM's normFactor for the current psi_, given Apsi = A psi_ (c.5).
    double normFactor(const double* Apsi, const Coupling& coupling)
    {
        forEach<B>(0, n(), detail::RowSum{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.val), ptr(sumA_)});
        if (nIf() > 0)
        {
            forEach<B>(0, nIf(), detail::ScatterAdd{ptr(ifCells_), ptr(ifSumACorrection_), ptr(sumA_)});
        }
        const double xRef = coupling.sum(ws_.sum(n(), detail::Sum{ptr(psi_)}))/coupling.sum(n());
        return coupling.sum(ws_.sum(n(), detail::NormFactorTerm{ptr(sumA_), Apsi, ptr(source_), xRef}))
             + 1e-20;
    }

    SolveResult solvePCG(
        double* psi,
        const double* source,
        const SolverControls& controls,
        Preconditioner preconditioner,
        const Coupling& coupling
    ) override
    {
        SolveResult result;
        auto start = std::chrono::steady_clock::now();
        ws_.upload(ptr(psi_), {{psi, n()}});
        ws_.upload(ptr(source_), {{source, n()}});
        result.uploadSeconds = setMatrixSeconds_ + secondsSince(start);
        start = std::chrono::steady_clock::now();

        // rA = source - A psi
        amul(ptr(wA_), ptr(psi_), coupling);
        forEach<B>(0, n(), detail::Residual{ptr(source_), ptr(wA_), ptr(rA_)});
        const double normFactor = this->normFactor(ptr(wA_), coupling);
        result.initialResidual = coupling.sum(ws_.sum(n(), detail::SumMag{ptr(rA_)}))/normFactor;
        result.finalResidual = result.initialResidual;
        result.nonFinite = !std::isfinite(result.initialResidual);
        result.converged = isConverged(result.finalResidual, result.initialResidual, controls);

        if (!result.nonFinite && (controls.minIter > 0 || !result.converged))
        {
            const auto setupStart = std::chrono::steady_clock::now();
            precon_.setup(preconditioner);
            result.setupSeconds = secondsSince(setupStart);
            double wArA = 1e20;
            int& nIter = result.nIterations;
            do
            {
                const double wArAold = wArA;
                precon_.apply(ptr(wA_), ptr(rA_));
                wArA = coupling.sum(ws_.sum(n(), detail::Dot{ptr(wA_), ptr(rA_)}));

                // pA = wA + beta*pA
                forEach<B>(0, n(), detail::UpdateSearchDirection{ptr(wA_), ptr(pA_), wArA/wArAold, nIter == 0});

                amul(ptr(wA_), ptr(pA_), coupling);
                const double wApA = coupling.sum(ws_.sum(n(), detail::Dot{ptr(wA_), ptr(pA_)}));
                if (std::abs(wApA)/normFactor < 1e-300)
                {
                    result.singular = true;
                    break;
                }

                // psi += alpha*pA; rA -= alpha*wA
                const double alpha = wArA/wApA;
                result.finalResidual = coupling.sum(ws_.sum(n(), detail::UpdateSolutionAndResidual{
                    ptr(pA_), ptr(wA_), ptr(psi_), ptr(rA_), alpha})) / normFactor;
                if (!std::isfinite(result.finalResidual))
                {
                    result.nonFinite = true;
                    ++nIter;
                    break;
                }
            } while (
                (++nIter < controls.maxIter
                 && !(result.converged = isConverged(result.finalResidual, result.initialResidual, controls)))
             || nIter < controls.minIter
            );
        }

        ws_.download(psi, ptr(psi_), n());
        result.iterateSeconds = secondsSince(start) - result.setupSeconds;
        return result;
    }
};

} // namespace gpuLdu

#endif
