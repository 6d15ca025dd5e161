// SPDX-License-Identifier: GPL-3.0-or-later
// LduSystem on a backend B: the value upload, A*x and A^T*x with coupled interfaces, OpenFOAM's
// normFactor and the start every Krylov loop shares (openfoam-api.md c.5-c.7); the loops are in
// Pcg.hpp, PBiCG.hpp, PBiCGStab.hpp. Compiled once per backend (cpuBackend.cpp, gpuBackend.cu).

#ifndef GPULDU_LDUSYSTEMIMPL_HPP
#define GPULDU_LDUSYSTEMIMPL_HPP

#include "CsrMatrix.hpp"
#include "Preconditioners.hpp"
#include "SparseFormats.hpp"
#include "VectorOps.hpp"

#include <thrust/fill.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <vector>

namespace gpuLdu
{

namespace detail
{

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

//- *a += v, atomically on the GPU (the CPU twin runs sequentially)
GPULDU_HD inline void addTo(double* a, double v)
{
#ifdef __CUDA_ARCH__
    atomicAdd(a, v);
#else
    *a += v;
#endif
}

//- y[i] = diag[i]*x[i]  (first half of the atomic transposed product)
struct DiagonalProduct
{
    const int* diagPos;
    const double* val;
    const double* x;
    double* y;

    GPULDU_HD void operator()(int i) const
    {
        y[i] = val[diagPos[i]]*x[i];
    }
};

//- y += A^T x by scattering row i of A: y[j] += A[i][j]*x[i] for j != i, with atomics. The
//  alternative to gathering A^T's values; the order of the additions is not fixed.
struct TransposeScatterRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* x;
    double* y;

    GPULDU_HD void operator()(int i) const
    {
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            if (p != diagPos[i])
            {
                addTo(&y[col[p]], val[p]*x[i]);
            }
        }
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

struct GatherValues
{
    const int* index;
    const double* from;
    double* to;

    GPULDU_HD void operator()(int k) const
    {
        to[k] = from[index[k]];
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

} // namespace detail

// The host-side tests below use quiet comparisons (std::isless): OpenFOAM runs with floating-
// point exceptions trapped, and an ordinary comparison with NaN raises one.

//- OpenFOAM's SolverPerformance::checkConvergence.
inline bool isConverged(double finalResidual, double initialResidual, const SolverControls& c)
{
    return std::isless(finalResidual, c.tolerance)
        || (c.relTol > 1e-20 && std::isless(finalResidual, c.relTol*initialResidual));
}

//- A residual that is NaN or infinite ends the loop (counted as an iteration).
inline bool stopOnNonFinite(SolveResult& r)
{
    if (std::isfinite(r.finalResidual))
    {
        return false;
    }
    r.nonFinite = true;
    ++r.nIterations;
    return true;
}

//- OpenFOAM's loop condition: (++nIter < maxIter && !converged) || nIter < minIter, with
//  converged evaluated (and recorded) only when the first part gets to it.
inline bool continueIterating(SolveResult& r, const SolverControls& c)
{
    return (++r.nIterations < c.maxIter
            && !(r.converged = isConverged(r.finalResidual, r.initialResidual, c)))
        || r.nIterations < c.minIter;
}

template<class B>
class LduSystemImpl : public LduSystem
{
public:
    template<class T>
    using Vector = typename B::template Vector<T>;

private:
    CsrMatrix<B> A_;
    Preconditioners<B> precon_;
    typename B::Workspace ws_;

    //- [diag | upper | lower] as uploaded, then permuted into A_.val
    Vector<double> ldu_;
    //- A^T's values (same pattern), gathered when a loop needs Tmul
    Vector<double> valT_;

    //- The format of A x and A^T x; the patterns converted so far; A's and A^T's values in
    //  the format in use (A^T's gathered when a loop first needs them after an upload)
    MatrixFormat format_ = MatrixFormat::csr;
    //- The pattern's row lengths (what the automatic format choice looks at)
    RowLengthStats rowLengths_;
    std::map<MatrixFormat, std::unique_ptr<FormattedPattern<B>>> patterns_;
    typename FormattedPattern<B>::Values formatted_;
    typename FormattedPattern<B>::Values formattedT_;
    bool hasMatrix_ = false;
    bool formattedTValid_ = false;

    //- Seconds spent in the last setMatrix
    double setMatrixSeconds_ = 0;

    Vector<double> psi_;
    Vector<double> source_;
    Vector<double> rA_;
    Vector<double> wA_;
    //- Further work vectors, allocated by the loops that need them
    std::deque<Vector<double>> work_;

    Vector<double> sumA_;

    Vector<int> ifCells_;
    Vector<double> ifSumACorrection_;
    Vector<double> ifValues_;
    std::vector<double> hostIfX_;
    std::vector<double> hostIfAx_;

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

    //- y = (A or A^T) x without interfaces, in the format in use; val: CSR values
    void spmv(double* y, const double* x, const Vector<double>& val, const typename FormattedPattern<B>::Values& formatted)
    {
        if (format_ == MatrixFormat::csr)
        {
            forEach<B>(0, n(), detail::SpmvRow{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(val), x, y});
        }
        else
        {
            patterns_.at(format_)->spmv(formatted, x, y);
        }
    }

    //- The pattern of a format, converted from CSR on first use
    const FormattedPattern<B>& pattern(MatrixFormat format)
    {
        auto& p = patterns_[format];
        if (!p)
        {
            // each row's terms in OpenFOAM's order: diagonal first, then by ascending column
            Vector<int> termCol(A_.nnz());
            Vector<int> termSrc(A_.nnz());
            forEach<B>(0, n(), detail::DiagonalFirstTerms{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(termCol), ptr(termSrc)});
            try
            {
                p = std::make_unique<FormattedPattern<B>>(format, n(), A_.rowStart, termCol, termSrc);
            }
            catch (...)
            {
                patterns_.erase(format);
                throw;
            }
        }
        return *p;
    }

    //- y += interface part, through the coupling (host)
    template<class Product>
    void addInterfaces(double* y, const double* x, const Product& product)
    {
        if (nIf() > 0)
        {
            forEach<B>(0, nIf(), detail::Gather{ptr(ifCells_), x, ptr(ifValues_)});
            ws_.download(hostIfX_.data(), ptr(ifValues_), nIf());
            std::fill(hostIfAx_.begin(), hostIfAx_.end(), 0.0);
            product(hostIfX_.data(), hostIfAx_.data());
            ws_.upload(ptr(ifValues_), {{hostIfAx_.data(), std::size_t(nIf())}});
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
        sumA_(addr.nCells)
    {
        rowLengths_ = gpuLdu::rowLengthStats<B>(n(), A_.rowStart);
    }

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

    int n() const
    {
        return A_.nRows;
    }

    const CsrMatrix<B>& matrix() const
    {
        return A_;
    }

    Preconditioners<B>& preconditioners()
    {
        return precon_;
    }

    typename B::Workspace& workspace()
    {
        return ws_;
    }

    //- The solution, the source, the residual rA and the work vector wA of the current solve
    double* psi()
    {
        return ptr(psi_);
    }

    double* rA()
    {
        return ptr(rA_);
    }

    double* wA()
    {
        return ptr(wA_);
    }

    //- Work vector k (k = 0, 1, ...), allocated on first use; a deque, so that growing it
    //  keeps the earlier vectors where they are
    double* work(std::size_t k)
    {
        if (work_.size() <= k)
        {
            work_.resize(k + 1);
        }
        if (int(work_[k].size()) != n())
        {
            work_[k].resize(n());
        }
        return ptr(work_[k]);
    }

    void setMatrix(const double* diag, const double* upper, const double* lower) override
    {
        const auto start = std::chrono::steady_clock::now();
        const std::size_t nF = A_.nFaces;
        const bool symmetric = (lower == nullptr);
        ws_.upload(ptr(ldu_), {{diag, n()}, {upper, nF}, {lower, symmetric ? 0 : nF}});
        A_.permute(ptr(ldu_), symmetric);
        valT_.clear();
        hasMatrix_ = true;
        if (format_ != MatrixFormat::csr)
        {
            pattern(format_).fill(ptr(A_.val), formatted_);
        }
        formattedTValid_ = false;
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

    //- y = A x, coupled interfaces included (x, y on the backend): OpenFOAM's Amul.
    void amul(double* y, const double* x, const Coupling& coupling)
    {
        spmv(y, x, A_.val, formatted_);
        addInterfaces(y, x, [&](const double* xi, double* yi) { coupling.interfaceProduct(xi, yi); });
    }

    //- y = A^T x, coupled interfaces included: OpenFOAM's Tmul.
    void tmul(double* y, const double* x, const Coupling& coupling)
    {
        if (int(valT_.size()) != A_.nnz())
        {
            // A^T has A's pattern: its values are one gather through the transpose index
            valT_.resize(A_.nnz());
            forEach<B>(0, A_.nnz(), detail::GatherValues{ptr(A_.transpose), ptr(A_.val), ptr(valT_)});
        }
        if (format_ != MatrixFormat::csr && !formattedTValid_)
        {
            pattern(format_).fill(ptr(valT_), formattedT_);
            formattedTValid_ = true;
        }
        spmv(y, x, valT_, formattedT_);
        addInterfaces(y, x, [&](const double* xi, double* yi) { coupling.interfaceProductT(xi, yi); });
    }

    MatrixFormat setFormat(MatrixFormat format) override
    {
        if (format == MatrixFormat::automatic)
        {
            format = chooseFormat(rowLengths_);
        }
        if (format != format_)
        {
            if (format != MatrixFormat::csr)
            {
                const FormattedPattern<B>& p = pattern(format);
                if (hasMatrix_)
                {
                    p.fill(ptr(A_.val), formatted_);
                }
            }
            format_ = format;
            formattedTValid_ = false;
            B::synchronize();
        }
        return format_;
    }

    RowLengthStats rowLengthStats() const override
    {
        return rowLengths_;
    }

    void multiply(const double* x, double* y) override
    {
        B::upload(work(0), x, n());
        spmv(work(1), work(0), A_.val, formatted_);
        B::download(y, work(1), n());
    }

    double timeMultiply(int repeats) override
    {
        double* x = work(0);
        double* y = work(1);
        thrust::fill(B::policy(), work_[0].begin(), work_[0].end(), 1.0);
        std::vector<double> ms;
        for (int r = 0; r <= std::max(repeats, 1); ++r)
        {
            const auto start = std::chrono::steady_clock::now();
            spmv(y, x, A_.val, formatted_);
            // the first run warms up and is not counted
            if (r > 0)
            {
                ms.push_back(1e3*secondsSince(start));
            }
            else
            {
                B::synchronize();
            }
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size()/2];
    }

    //- y = A^T x without interfaces, by atomics from A's values (no transposed copy; the
    //  summation order varies from run to run on the GPU). Measured against tmul in the
    //  kernel benchmark; the solvers use tmul.
    void tmulAtomic(double* y, const double* x)
    {
        forEach<B>(0, n(), detail::DiagonalProduct{ptr(A_.diagPos), ptr(A_.val), x, y});
        forEach<B>(0, n(), detail::TransposeScatterRow{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.val), x, y});
    }

    //- Sum over all ranks of f(i), i in [0, n)
    template<class F>
    double gSum(const F& f, const Coupling& coupling)
    {
        return coupling.sum(ws_.sum(n(), f));
    }

    //- The same into the workspace's scalar slot `slot` (workspace().scalars()), where the next
    //  kernels read it: on one rank it stays on the device; across ranks it travels to the host
    //  for the global sum and back
    template<class F>
    void gSumInto(const F& f, int slot, const Coupling& coupling)
    {
        ws_.sumInto(n(), f, slot);
        if (!coupling.sumsAreLocal())
        {
            double local;
            ws_.fetch(slot, 1, &local);
            ws_.store(slot, coupling.sum(local));
        }
    }

    SolveResult solve(
        KrylovMethod method,
        double* psi,
        const double* source,
        const SolverControls& controls,
        Preconditioner preconditioner,
        const Coupling& coupling
    ) override;
};

} // namespace gpuLdu

#include "Pcg.hpp"
#include "PBiCG.hpp"
#include "PBiCGStab.hpp"

namespace gpuLdu
{

//- The start all three loops share (c.7): rA = source - A psi, normFactor, initial residual;
//  then the loop unless already converged; psi back to the host.
template<class B>
SolveResult LduSystemImpl<B>::solve(
    KrylovMethod method,
    double* psi,
    const double* source,
    const SolverControls& controls,
    Preconditioner preconditioner,
    const Coupling& coupling
)
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
    result.initialResidual = gSum(detail::SumMag{ptr(rA_)}, coupling)/normFactor;
    result.finalResidual = result.initialResidual;
    result.nonFinite = !std::isfinite(result.initialResidual);
    result.converged =
        !result.nonFinite && isConverged(result.finalResidual, result.initialResidual, controls);

    if (!result.nonFinite && (controls.minIter > 0 || !result.converged))
    {
        const auto setupStart = std::chrono::steady_clock::now();
        precon_.setup(preconditioner);
        result.setupSeconds = secondsSince(setupStart);

        switch (method)
        {
            case KrylovMethod::PCG:
                pcgLoop(*this, result, normFactor, controls, coupling);
                break;
            case KrylovMethod::PBiCG:
                pbicgLoop(*this, result, normFactor, controls, coupling, ptr(source_));
                break;
            case KrylovMethod::PBiCGStab:
                pbicgStabLoop(*this, result, normFactor, controls, coupling);
                break;
        }
    }

    ws_.download(psi, ptr(psi_), n());
    result.iterateSeconds = secondsSince(start) - result.setupSeconds;
    return result;
}

} // namespace gpuLdu

#endif
