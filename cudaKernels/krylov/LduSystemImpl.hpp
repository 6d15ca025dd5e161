// SPDX-License-Identifier: GPL-3.0-or-later
// LduSystem on a backend B: the value upload, A*x and A^T*x with coupled interfaces (the
// products in the format in use: matrix/MatrixProducts.hpp), OpenFOAM's normFactor
// (lduMatrix::solver::normFactor in lduMatrixSolver.C) and the start every Krylov loop shares;
// the loops are in krylov/ (krylov/KrylovMethodList.hpp). Compiled once per backend
// (instantiate/cpu/, instantiate/cuda/).

#ifndef GPULDU_LDUSYSTEMIMPL_HPP
#define GPULDU_LDUSYSTEMIMPL_HPP

#include "krylov/DeviceCouplingTerms.hpp"
#include "krylov/KrylovMethodList.hpp"
#include "krylov/UploadAhead.hpp"
#include "matrix/CsrMatrix.hpp"
#include "matrix/MatrixProducts.hpp"
#include "matrix/ValueCheck.hpp"
#include "matrix/Spmv.hpp"
#include "precond/Preconditioners.hpp"

#include <thrust/fill.h>

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpuLdu
{

template<class B>
class LduSystemImpl : public LduSystem
{
public:
    template<class T>
    using Vector = typename B::template Vector<T>;

private:
    CsrMatrix<B> A_;
    //- The level schedules of A_'s triangles (whatever sweeps its rows takes them from here)
    TriangleSchedules<B> schedules_;
    Preconditioners<B> precon_;
    typename B::Workspace ws_;

    //- [diag | upper | lower] as uploaded, then permuted into A_.val
    Vector<double> ldu_;
    //- A x and A^T x without interfaces, in the format in use
    MatrixProducts<B> products_;
    //- Whether the values uploaded last are symmetric (no lower)
    bool symmetric_ = true;

    //- Seconds spent in the last setMatrix, until a solve reports them
    double setMatrixSeconds_ = 0;
    //- What came ahead of the next setMatrix and solve (uploadAhead)
    UploadAhead<B> ahead_;

    Vector<double> psi_;
    Vector<double> source_;
    Vector<double> rA_;
    Vector<double> wA_;
    //- Further work vectors, allocated by the loops that need them
    WorkVectors<B> work_;

    Vector<double> sumA_;

    //- The rows of each rank whose matrix this system holds (setParts), each one's slot of
    //  how many (setPartSlots)
    std::vector<int> partStarts_;
    std::vector<int> partSlots_;
    int nPartSlots_ = 0;

    //- The interface terms applied here (setDeviceCouplings)
    DeviceCouplingTerms<B> terms_;

    //- The interface cells, and x and y there (on the backend, then on the host)
    Vector<int> ifCells_;
    Vector<double> ifValues_;
    std::vector<double> hostIfValues_;

    int nIf() const
    {
        return int(ifCells_.size());
    }

    //- f(xAtCells, yAtCells) on the host with x and y at the interface cells (no x: nullptr),
    //  then y's new values back into their cells: the coupling applies its terms there in
    //  OpenFOAM's order (Coupling::interfaceProduct)
    template<class F>
    void atInterfaceCells(double* y, const double* x, const F& f)
    {
        if (nIf() == 0)
        {
            return;
        }
        const int m = nIf();
        double* xAt = ptr(ifValues_);
        double* yAt = xAt + m;
        if (x)
        {
            forEach<B>(0, m, detail::Gather<double>{ptr(ifCells_), x, xAt});
        }
        forEach<B>(0, m, detail::Gather<double>{ptr(ifCells_), y, yAt});
        // x and y in one transfer, or y alone
        const std::size_t first = x ? 0 : m;
        ws_.download(hostIfValues_.data() + first, ptr(ifValues_) + first, 2*std::size_t(m) - first);
        f(hostIfValues_.data(), hostIfValues_.data() + m);
        ws_.upload(yAt, {{hostIfValues_.data() + m, std::size_t(m)}});
        forEach<B>(0, m, detail::Scatter<double>{ptr(ifCells_), yAt, y});
    }

    //- What the coupled interfaces do to y at their cells (Coupling): A x's terms subtracted
    //  (product), A^T x's (productT), the row sums' (rowSums: no x), A x's terms added as in
    //  lduMatrix::residual (residual), the coefficients' magnitudes added (magnitudes: no x)
    enum class InterfaceTerms
    {
        product,
        productT,
        rowSums,
        residual,
        magnitudes
    };

    //- The interface terms of a kind applied to y in OpenFOAM's order: the host's early
    //  patches, the device couplings, the host's late ones
    void interfaceTerms(InterfaceTerms kind, double* y, const double* x, const Coupling& coupling)
    {
        const auto host = [&](InterfacePhase phase)
        {
            if (coupling.hasPhase(phase))
            {
                atInterfaceCells(y, x, [&](const double* xi, double* yi)
                {
                    switch (kind)
                    {
                        case InterfaceTerms::product: coupling.interfaceProduct(phase, xi, yi); break;
                        case InterfaceTerms::productT: coupling.interfaceProductT(phase, xi, yi); break;
                        case InterfaceTerms::rowSums: coupling.interfaceRowSums(phase, yi); break;
                        case InterfaceTerms::residual: coupling.interfaceResidual(phase, xi, yi); break;
                        case InterfaceTerms::magnitudes: coupling.interfaceMagnitudes(phase, yi); break;
                    }
                });
            }
        };
        host(InterfacePhase::early);
        if (!terms_.empty())
        {
            if (x)
            {
                exchangeHalo(x, coupling);
            }
            terms_.apply(y, x, kind == InterfaceTerms::productT,
                         kind == InterfaceTerms::residual || kind == InterfaceTerms::magnitudes);
        }
        host(InterfacePhase::late);
    }

    //- OpenFOAM's normFactor for the current psi_, given Apsi = A psi_:
    //  sum(|Apsi - sumA*xRef| + |source - sumA*xRef|) + 1e-20, xRef the mean of psi
    double normFactor(const double* Apsi, DeviceScalars<B>& sums, const Coupling& coupling)
    {
        forEach<B>(0, n(), detail::RowSum{ptr(A_.rowStart), ptr(A_.col), ptr(A_.diagPos), ptr(A_.val), ptr(sumA_)});
        interfaceTerms(InterfaceTerms::rowSums, ptr(sumA_), nullptr, coupling);
        const double xRef = sums.gSum(detail::Sum{ptr(psi_)})/sums.gCount();
        return sums.gSum(detail::NormFactorTerm{ptr(sumA_), Apsi, ptr(source_), xRef}) + 1e-20;
    }

    //- A x and A^T x of this system with a coupling's interfaces, as the loops see them
    class CoupledOperator : public LinearOperator
    {
        LduSystemImpl& sys_;
        const Coupling& coupling_;

    public:
        CoupledOperator(LduSystemImpl& sys, const Coupling& coupling)
        :
            sys_(sys),
            coupling_(coupling)
        {}

        void amul(double* y, const double* x) override
        {
            sys_.amul(y, x, coupling_);
        }

        void tmul(double* y, const double* x) override
        {
            sys_.tmul(y, x, coupling_);
        }
    };

public:
    explicit LduSystemImpl(const LduAddressingView& addr)
    :
        LduSystemImpl(addr, FacesOnBackend<B>(addr))
    {}

    //- The same, from the faces already on the backend
    LduSystemImpl(const LduAddressingView& addr, const FacesOnBackend<B>& faces)
    :
        A_(addr, faces),
        schedules_(A_),
        precon_(A_, schedules_),
        ldu_(addr.nCells + 2*addr.nFaces),
        products_(A_),
        psi_(addr.nCells),
        source_(addr.nCells),
        rA_(addr.nCells),
        wA_(addr.nCells),
        work_(addr.nCells),
        sumA_(addr.nCells)
    {
        setParts({0, n()});
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

    TriangleSchedules<B>& schedules()
    {
        return schedules_;
    }

    typename B::Workspace& workspace()
    {
        return ws_;
    }

    void setMatrix(const double* diag, const double* upper, const double* lower) override
    {
        const Stopwatch watch;
        const std::size_t nF = A_.nFaces;
        const bool symmetric = (lower == nullptr);
        if (!ahead_.matrixCame(n(), int(nF), symmetric))
        {
            ws_.upload(ptr(ldu_), {{diag, n()}, {upper, nF}, {lower, symmetric ? 0 : nF}});
        }
        setMatrixFromLdu(symmetric);
        setMatrixSeconds_ = queueSeconds<B>(watch);
    }

    void uploadAhead(const ValuesAhead& part) override
    {
        ahead_.give(ws_, part, n(), A_.nFaces, ptr(psi_), ptr(source_), ptr(ldu_));
    }

    //- psi and source of a solve to the backend, where they did not come ahead
    void uploadValues(const double* psi, const double* source)
    {
        if (!ahead_.valuesCame(n()))
        {
            ws_.upload(ptr(psi_), {{psi, n()}});
            ws_.upload(ptr(source_), {{source, n()}});
        }
    }

    //- The LDU values on the backend, [diag | upper | lower] (lower unused when symmetric):
    //  written there by whoever builds the matrix on the backend (a GAMG coarse level), then
    //  taken by setMatrixFromLdu
    double* lduValues()
    {
        return ptr(ldu_);
    }

    //- The matrix from the values in lduValues()
    void setMatrixFromLdu(bool symmetric)
    {
        A_.permute(ptr(ldu_), symmetric);
        products_.valuesChanged();
        symmetric_ = symmetric;
    }

    void setInterfaces(const std::vector<int>& cells) override
    {
        for (int c : cells)
        {
            if (c < 0 || c >= n())
            {
                throw Error("gpuLdu: interface cell " + std::to_string(c) + " out of range");
            }
        }
        const std::size_t m = cells.size();
        ifCells_.resize(m);
        ifValues_.resize(2*m);
        B::upload(ptr(ifCells_), cells.data(), m);
        hostIfValues_.assign(2*m, 0.0);
    }

    void setParts(const std::vector<int>& starts) override
    {
        bool valid = starts.size() >= 2 && starts.front() == 0 && starts.back() == n();
        for (std::size_t p = 1; valid && p < starts.size(); ++p)
        {
            valid = starts[p - 1] <= starts[p];
        }
        if (!valid)
        {
            throw Error("gpuLdu: the parts of a system must split its " + std::to_string(n())
                + " rows in order");
        }
        std::vector<int> slots(starts.size() - 1);
        for (std::size_t p = 0; p < slots.size(); ++p)
        {
            slots[p] = int(p);
        }
        ws_.setParts(starts, slots, int(slots.size()));
        partStarts_ = starts;
        partSlots_ = slots;
        nPartSlots_ = int(slots.size());
    }

    void setPartSlots(const std::vector<int>& slots, int nSlots) override
    {
        ws_.setParts(partStarts_, slots, nSlots);
        partSlots_ = slots;
        nPartSlots_ = nSlots;
    }

    void setDeviceCouplings(const DeviceCouplings& c) override
    {
        terms_.set(c, n());
    }

    //- The device couplings' terms by row, as lduMatrix::residual adds them (none: empty);
    //  those that read x across read the halo of the last exchangeHalo
    detail::InterfaceRowTerms interfaceRowTerms() const
    {
        return terms_.rowTerms();
    }

    //- The halo of x (x across the faces to other systems: HaloExchange), where this system has
    //  one, for the terms that read it
    void exchangeHalo(const double* x, const Coupling& coupling)
    {
        terms_.exchangeHalo(x, coupling, ws_);
    }

    //- Whether a coupling has interfaces of this system that the host evaluates itself
    //  (OpenFOAM's interface updates: its early or late patches)
    bool hostEvaluatesInterfaces(const Coupling& coupling) const
    {
        return nIf() > 0 && (coupling.hasPhase(InterfacePhase::early) || coupling.hasPhase(InterfacePhase::late));
    }

    //- Whether a coupling has interfaces of this system that the host evaluates, or a halo
    //  that goes through the host (exchanged on the backend it is work on the backend)
    bool hasHostInterfaces(const Coupling& coupling) const
    {
        return (hasHalo() && !coupling.exchangesOnBackend(B::executor)) || hostEvaluatesInterfaces(coupling);
    }

    void setDeviceCouplingCoeffs(const double* coeffs, const double* intCoeffs) override
    {
        terms_.setCoeffs(coeffs, intCoeffs, ws_);
    }

    int nDeviceCouplingTerms() const
    {
        return terms_.nTerms();
    }

    //- The device coupling coefficients from the backend: nDeviceCouplingTerms of A, then as
    //  many of A^T, copied in the kernels' order
    void setDeviceCouplingCoeffsOnBackend(const double* both)
    {
        terms_.setCoeffsOnBackend(both);
    }

    //- y = A x, coupled interfaces included (x, y on the backend): OpenFOAM's Amul.
    void amul(double* y, const double* x, const Coupling& coupling)
    {
        products_.amul(y, x);
        interfaceTerms(InterfaceTerms::product, y, x, coupling);
    }

    //- y -= the coupled interfaces' terms of A x at their cells (Amul's, GAMG's interpolate)
    void subtractInterfaceProduct(double* y, const double* x, const Coupling& coupling)
    {
        interfaceTerms(InterfaceTerms::product, y, x, coupling);
    }

    //- y += the coupled interfaces' terms as lduMatrix::residual and the Gauss-Seidel
    //  smoothers take them (OpenFOAM's add = false), x the field they read
    void addInterfaceResidual(double* y, const double* x, const Coupling& coupling)
    {
        interfaceTerms(InterfaceTerms::residual, y, x, coupling);
    }

    //- y += the magnitudes of the interface coefficients of each interface cell's faces
    void addInterfaceMagnitudes(double* y, const Coupling& coupling)
    {
        interfaceTerms(InterfaceTerms::magnitudes, y, nullptr, coupling);
    }

    //- Whether some device coupling terms read x across, in the halo (HaloExchange)
    bool hasHalo() const { return terms_.hasHalo(); }

    //- Whether a coupling puts terms on this system's rows
    bool hasInterfaces(const Coupling& coupling) const
    {
        return !terms_.empty() || hasHostInterfaces(coupling);
    }

    //- Whether this system's products, interface terms and sums under a coupling stay on the
    //  backend (no host phase of an interface, sums left on the backend): work that may be
    //  recorded and replayed (B::WorkGraph)
    bool staysOnBackend(const Coupling& coupling) const
    {
        return !hasHostInterfaces(coupling) && DeviceScalars<B>::stayOnBackend(coupling);
    }

    //- y = A^T x, coupled interfaces included: OpenFOAM's Tmul.
    void tmul(double* y, const double* x, const Coupling& coupling)
    {
        products_.tmul(y, x);
        interfaceTerms(InterfaceTerms::productT, y, x, coupling);
    }

    MatrixFormat setFormat(MatrixFormat format) override
    {
        return products_.setFormat(format);
    }

    RowLengthStats rowLengthStats() const override
    {
        return products_.rowLengthStats();
    }

    void multiply(const double* x, double* y) override
    {
        B::upload(work_(0), x, n());
        products_.amul(work_(1), work_(0));
        B::download(y, work_(1), n());
    }

    double timeMultiply(int repeats) override
    {
        double* x = work_(0);
        double* y = work_(1);
        thrust::fill_n(B::policy(), x, n(), 1.0);
        std::vector<double> ms;
        for (int r = 0; r <= std::max(repeats, 1); ++r)
        {
            const Stopwatch watch;
            products_.amul(y, x);
            // the first run warms up and is not counted
            if (r > 0)
            {
                ms.push_back(1e3*queueSeconds<B>(watch));
            }
            else
            {
                B::synchronize();
            }
        }
        std::sort(ms.begin(), ms.end());
        return ms[ms.size()/2];
    }

    //- The start every solve shares (OpenFOAM's Krylov solvers and GAMGSolver::solve):
    //  Apsi = A psi, r = source - Apsi, OpenFOAM's normFactor (1 where controls say not
    //  normalised; returned), the initial residual
    //  into result, and whether it is already converged or not finite
    double startSolve(double* Apsi, double* r, DeviceScalars<B>& sums, const SolverControls& controls,
                      const Coupling& coupling, SolveResult& result)
    {
        amul(Apsi, ptr(psi_), coupling);
        forEach<B>(0, n(), detail::Residual{ptr(source_), Apsi, r});
        const double normFactor = controls.normalised ? this->normFactor(Apsi, sums, coupling) : 1.0;
        result.initialResidual = sums.gSum(detail::SumMag{r})/normFactor;
        result.finalResidual = result.initialResidual;
        result.nonFinite = !std::isfinite(result.initialResidual);
        result.converged =
            !result.nonFinite && isConverged(result.finalResidual, result.initialResidual, controls);
        return normFactor;
    }

    //- Throws ValueError if a value of the matrix (diag, upper, lower), of source() or of
    //  psi() is not finite, naming the first in that order and how many there are: one
    //  reduction over them all, before any arithmetic with them (ValueCheck.hpp)
    void checkValues()
    {
        checkSystemValues<B>(ptr(ldu_), ptr(source_), ptr(psi_), n(), A_.nFaces, symmetric_,
                             [this](int f) { return A_.faceCells(f); });
    }

    //- psi and source of solve on the backend (solveResident works on them)
    double* psi()
    {
        return ptr(psi_);
    }

    double* source()
    {
        return ptr(source_);
    }

    //- The rows of each rank this system holds (setParts), their slots of how many
    //  (setPartSlots)
    const std::vector<int>& parts() const
    {
        return partStarts_;
    }

    const std::vector<int>& partSlots() const
    {
        return partSlots_;
    }

    int nPartSlots() const
    {
        return nPartSlots_;
    }

    //- A solve on the backend: psi() is the initial guess on entry and the solution on exit.
    //  The start (rA = source - A psi, normFactor, the initial residual), then the loop unless
    //  already converged.
    SolveResult solveResident(
        KrylovMethod method,
        const SolverControls& controls,
        Preconditioner preconditioner,
        const Coupling& coupling
    )
    {
        SolveResult result;

        // rA = source - A psi
        DeviceScalars<B> sums(ws_, coupling, partStarts_);
        const double normFactor = startSolve(ptr(wA_), ptr(rA_), sums, controls, coupling, result);

        if (!result.nonFinite && (controls.minIter > 0 || !result.converged))
        {
            const Stopwatch watch;
            precon_.setup(preconditioner);
            result.times.setup = queueSeconds<B>(watch);

            CoupledOperator A(*this, coupling);
            KrylovSolve<B> s{n(), A, precon_, sums, work_, ptr(psi_), ptr(source_), ptr(rA_), ptr(wA_), normFactor};
            KrylovMethodRegistry::visit(method.id(), [&](auto entry) { decltype(entry)::loop(s, controls, result); });
        }
        return result;
    }

    //- solveResident with psi and source from the host, psi back to it
    SolveResult solve(
        KrylovMethod method,
        double* psi,
        const double* source,
        const SolverControls& controls,
        Preconditioner preconditioner,
        const Coupling& coupling
    ) override
    {
        Stopwatch watch;
        uploadValues(psi, source);
        checkValues();
        // the matrix's upload counts once, in the solve after it (a solve of the matrix the
        // system holds has none)
        const double upload = setMatrixSeconds_ + queueLap<B>(watch);
        setMatrixSeconds_ = 0;

        SolveResult result = solveResident(method, controls, preconditioner, coupling);

        ws_.download(psi, ptr(psi_), n());
        result.times.upload = upload;
        result.times.iterate = queueSeconds<B>(watch) - result.times.setup;
        return result;
    }
};

} // namespace gpuLdu

#endif
