// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest level solved (GAMGSolver::solveCoarsestLevel), the ways the controls choose:
// OpenFOAM's PCG with DIC (symmetric) or PBiCGStab with DILU from a zero correction, on this
// backend or, where the backend is the GPU and the level is small, by one block of threads in one
// launch (CoarsestPcg: PCG where the level's terms and sums are its own) or on the host; the sparse LDL^T
// on this backend (GamgControls::directCoarsest); a CoarsestSolver on the host
// (directSolveCoarsest by OpenFOAM's LU); source/diag (GamgControls::coarsestByDiagonal). Where
// the level spans several systems (Coupling::nSystems: a group's with the other groups'), every
// system's level gathered on each and solved there whole by the team (GatheredCoarsest).

#ifndef GPULDU_GAMGCOARSEST_HPP
#define GPULDU_GAMGCOARSEST_HPP

#include "direct/LdltImpl.hpp"
#include "krylov/LduSystemImpl.hpp"
#include "multigrid/GatheredCoarsest.hpp"
#include "multigrid/SmootherRows.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace gpuLdu
{

template<class B>
class GamgCoarsest
{
    using Level = LduSystemImpl<B>;

    //- Where the backend is the GPU and the coarsest level is small: that level's solve on the
    //  host (the CPU executor's system), its matrix, source and correction carried over. A
    //  Krylov loop on a few cells waits for the host at every iteration on the device; on the
    //  host it takes microseconds, and the arithmetic is OpenFOAM's own order.
    static constexpr int hostMaxCells = 4096;
    std::unique_ptr<LduSystem> host_;
    //- Where the backend is the GPU, the level small and CoarsestPcg usable for this solve: the
    //  PCG by one block, queued with the V-cycle's other work (recorded with it)
    std::unique_ptr<CoarsestPcg<B>> team_;
    bool byTeam_ = false;
    //- The team's parts of the level (CoarsestPcg::teamParts)
    std::vector<int> teamParts_;
    //- Where the level spans several systems and every system can: the systems' levels
    //  gathered on each, solved by the team there (made on the first such solve, by every
    //  system together; gatherTried_ once asked), its source summed on the backend
    //  (gatherOnBackend_) or gathered through the host
    std::unique_ptr<GatheredCoarsest<B>> gathered_;
    bool gatherTried_ = false;
    bool byGathered_ = false;
    bool gatherOnBackend_ = false;
    //- The level's device couplings and their coefficients of A (host copies, for gathered_)
    DeviceCouplings couplings_;
    std::vector<double> couplingCoeffs_;
    //- Where set, the coarsest level's solver on the host (directSolveCoarsest)
    CoarsestSolver* solver_ = nullptr;
    //- GamgControls::directCoarsest: the coarsest level by the sparse LDL^T on this backend (made
    //  on the first such solve): the coarsest addressing (kept from the constructor), the lower
    //  triangle's pattern and where each entry's value is among the level's LDU values
    //  (LduLowerColumns), the values last factored
    bool direct_ = false;
    std::vector<int> lower_;
    std::vector<int> upper_;
    std::unique_ptr<LdltSolverImpl<B>> ldlt_;
    LduLowerColumns columns_;
    std::vector<double> ldltValues_;
    //- The coarsest level's values, source and correction on the host (host_, solver_)
    std::vector<double> hostLdu_;
    std::vector<double> hostPsi_;
    std::vector<double> hostSource_;

    //- directCoarsest: the coarsest matrix factored by LDL^T where its values changed since the
    //  last factor (the symbolic analysis on the first call); a pivot that static pivoting had
    //  to replace makes the direct solve inexact: an error, never a silently slower GAMG
    void factor(Level& coarsest)
    {
        const int n = coarsest.n();
        const int nF = coarsest.nFaces();
        if (!ldlt_)
        {
            columns_ = lduLowerColumns({n, nF, lower_.data(), upper_.data()});
            ldlt_ = std::make_unique<LdltSolverImpl<B>>(columns_.pattern(), autoOrdering(n));
        }
        hostLdu_.resize(n + nF);
        B::download(hostLdu_.data(), coarsest.lduValues(), n + nF);
        std::vector<double> values(columns_.valueOf.size());
        for (std::size_t p = 0; p < values.size(); ++p)
        {
            values[p] = hostLdu_[columns_.valueOf[p]];
        }
        if (values != ldltValues_)
        {
            ldltValues_.clear();
            const LdltFactorStats stats = ldlt_->factor(values.data());
            if (stats.nStaticPivots > 0)
            {
                throw Error("gpuLdu: GAMG's coarsest level (" + std::to_string(n) + " cells) is singular to working"
                            " precision: its LDL^T replaced " + std::to_string(stats.nStaticPivots)
                            + " pivots; solve it iteratively (directSolveCoarsest no)");
            }
            ldltValues_ = std::move(values);
        }
    }

    //- The coarsest matrix to the host's solver or system, where it solves there
    void setHostMatrix(Level& coarsest, bool symmetric)
    {
        if (!host_ && !solver_)
        {
            return;
        }
        const int n = coarsest.n();
        const int nF = coarsest.nFaces();
        hostLdu_.resize(n + 2*nF);
        hostPsi_.resize(n);
        hostSource_.resize(n);
        B::download(hostLdu_.data(), coarsest.lduValues(), symmetric ? n + nF : n + 2*nF);
        const double* lower = symmetric ? nullptr : hostLdu_.data() + n + nF;
        if (solver_)
        {
            solver_->setMatrix(hostLdu_.data(), hostLdu_.data() + n, lower);
        }
        else
        {
            host_->setMatrix(hostLdu_.data(), hostLdu_.data() + n, lower);
        }
    }

    //- The level gathered from every system (GatheredCoarsest), made by all of them together:
    //  where every system can (no interface of its level evaluated on the host) and the team
    //  can solve the gathered level on every one; else nullptr on every system
    std::unique_ptr<GatheredCoarsest<B>> gather(Level& coarsest, const Coupling& coupling)
    {
        const bool mine = !coarsest.hostEvaluatesInterfaces(coupling);
        if (coupling.maximum(mine ? 0.0 : 1.0) > 0)
        {
            return nullptr;
        }
        const std::vector<std::vector<double>> sizes = coupling.gather({double(coarsest.n())});
        int first = 0;
        for (int s = 0; s < coupling.systemIndex(); ++s)
        {
            first += int(sizes.at(s).at(0));
        }
        const LduAddressingView addressing{coarsest.n(), int(lower_.size()), lower_.data(), upper_.data()};
        const std::vector<double> piece = GatheredCoarsest<B>::structurePiece(
            addressing, couplings_, first, GatheredCoarsest<B>::haloRows(couplings_, first, coupling));
        auto gathered = std::make_unique<GatheredCoarsest<B>>(coupling.gather(piece), coupling.systemIndex());
        if (coupling.maximum(gathered->usable() ? 0.0 : 1.0) > 0)
        {
            return nullptr;
        }
        return gathered;
    }

    //- The gathered level's matrix: every system's coarsest values and coefficients
    void setGatheredMatrix(Level& coarsest, const Coupling& coupling)
    {
        const int n = coarsest.n();
        std::vector<double> ldu(std::size_t(n) + lower_.size());
        B::download(ldu.data(), coarsest.lduValues(), ldu.size());
        gathered_->setMatrix(coupling.gather(GatheredCoarsest<B>::valuePiece(ldu, couplingCoeffs_)));
        gatherOnBackend_ = coupling.exchangesOnBackend(B::executor);
    }

    //- corr = this system's rows of the gathered level's correction for src: the systems'
    //  sources summed on the backend (each its own rows, zeros elsewhere) or gathered on the host
    void solveGathered(const double* src, double* corr, const SolverControls& controls, const Coupling& coupling)
    {
        if (gatherOnBackend_)
        {
            coupling.sumOnBackend(gathered_->placeSource(src), gathered_->nGathered());
        }
        else
        {
            std::vector<double> mine(std::size_t(gathered_->nCells()));
            B::download(mine.data(), src, mine.size());
            gathered_->uploadSource(coupling.gather(mine));
        }
        gathered_->solve(corr, controls);
    }

public:
    //- For the coarsest level's addressing (its faces kept for the LDL^T's pattern)
    explicit GamgCoarsest(const LduAddressingView& coarsest)
    :
        lower_(coarsest.lower, coarsest.lower + coarsest.nFaces),
        upper_(coarsest.upper, coarsest.upper + coarsest.nFaces)
    {
        if (B::executor == Executor::gpu && coarsest.nCells <= hostMaxCells)
        {
            host_ = makeLduSystem(Executor::cpu, coarsest);
            teamParts_ = CoarsestPcg<B>::teamParts(coarsest.nCells, lower_, upper_);
        }
    }

    //- The host's system of the coarsest level, where it solves there (else nullptr): its
    //  parts and device couplings are set with the level's
    LduSystem* hostSystem()
    {
        return host_.get();
    }

    //- The level's device couplings (LduSystem::setDeviceCouplings) and, per solve, their
    //  coefficients of A (host arrays): kept for a level gathered from several systems
    void setCouplings(const DeviceCouplings& c)
    {
        couplings_ = c;
    }

    void setCouplingCoeffs(const double* coeffs)
    {
        couplingCoeffs_.assign(coeffs, coeffs + couplings_.nTerms());
    }

    //- Whether a CoarsestSolver solves the level
    bool hasSolver() const
    {
        return solver_ != nullptr;
    }

    //- The coarsest level solved by this solver from now on (nullptr: as the controls say)
    void setSolver(CoarsestSolver* solver)
    {
        solver_ = solver;
    }

    //- Per solve, once the coarsest matrix is summed: factored (direct, symmetric matrices
    //  only), gathered from every system where it spans several (each system calls it), set up
    //  for the team's PCG where it solves it (the level's coupling in this solve: coupling), or
    //  handed to the host's solver or system where it solves there
    void setMatrix(Level& coarsest, bool direct, bool symmetric, const GamgControls& c, const Coupling& coupling)
    {
        direct_ = direct;
        if (direct_ && !symmetric)
        {
            throw Error("gpuLdu: GAMG's direct coarsest solve (LDL^T) is for symmetric matrices");
        }
        byGathered_ = false;
        if (!solver_ && !direct_ && !c.coarsestByDiagonal && symmetric && coupling.nSystems() > 1)
        {
            if (!gatherTried_)
            {
                gatherTried_ = true;
                gathered_ = gather(coarsest, coupling);
            }
            byGathered_ = gathered_ != nullptr;
        }
        if (byGathered_)
        {
            byTeam_ = false;
            setGatheredMatrix(coarsest, coupling);
            return;
        }
        byTeam_ = host_ && !solver_ && !direct_ && !c.coarsestByDiagonal
               && CoarsestPcg<B>::usable(coarsest, coupling, symmetric, teamParts_);
        if (direct_)
        {
            factor(coarsest);
        }
        else if (byTeam_)
        {
            if (!team_)
            {
                team_ = std::make_unique<CoarsestPcg<B>>();
            }
            team_->setMatrix(coarsest, teamParts_);
        }
        else
        {
            setHostMatrix(coarsest, symmetric);
        }
    }

    //- The rows of the level gathered from every system, where this solve gathers it (else 0)
    int gatheredRows() const
    {
        return byGathered_ ? gathered_->nGathered() : 0;
    }

    //- Whether solve only queues work on the backend (no transfer, no wait): it may be recorded
    //  with the V-cycle's other work
    bool onBackend() const
    {
        return byTeam_ || (byGathered_ && gatherOnBackend_);
    }

    //- The Krylov iterations of the solve's coarsest solves that solve could not count as it
    //  returned (the team's, counted on the backend: one transfer)
    long backendIterations()
    {
        return byTeam_ ? team_->iterations() : byGathered_ ? gathered_->iterations() : 0;
    }

    //- corr = the coarsest level's correction for src (arrays of the backend): from a zero
    //  correction, OpenFOAM's PCG with DIC (symmetric) or PBiCGStab with DILU to the GAMG's
    //  tolerance and relTol (the level's system solves its own psi from its own source: the
    //  fields are copied in and out); or, as set and controlled, by LDL^T, the CoarsestSolver,
    //  source/diag (coarsestByDiagonal), or the host's system. Returns the Krylov loop's
    //  iterations (0 where there is none)
    int solve(
        Level& coarsest,
        const double* src,
        double* corr,
        const SolverControls& gamgControls,
        const GamgControls& c,
        const Coupling& coupling,
        bool symmetric
    )
    {
        const int n = coarsest.n();
        SolverControls controls;
        controls.tolerance = gamgControls.tolerance;
        controls.relTol = gamgControls.relTol;
        const KrylovMethod method = KrylovMethod::named(symmetric ? "PCG" : "PBiCGStab");
        const Preconditioner preconditioner(PreconditionerRegistry::idFor<preconditioners::DicDilu>(symmetric));
        if (direct_)
        {
            ldlt_->applyInverse(src, corr);
            return 0;
        }
        if (solver_)
        {
            B::download(hostSource_.data(), src, n);
            solver_->solve(hostSource_.data(), hostPsi_.data());
            B::upload(corr, hostPsi_.data(), n);
            return 0;
        }
        if (byTeam_)
        {
            team_->solve(coarsest, src, corr, controls);
            return 0;
        }
        if (byGathered_)
        {
            solveGathered(src, corr, controls, coupling);
            return 0;
        }
        if (c.coarsestByDiagonal)
        {
            // corr = src/diag (diagonalSolver: no interface terms, no iteration)
            const CsrMatrix<B>& A = coarsest.matrix();
            forEach<B>(0, n, detail::DiagonalSolveRow{ptr(A.diagPos), ptr(A.val), src, corr});
            return 0;
        }
        if (host_)
        {
            B::download(hostSource_.data(), src, n);
            std::fill(hostPsi_.begin(), hostPsi_.end(), 0.0);
            const SolveResult r =
                host_->solve(method, hostPsi_.data(), hostSource_.data(), controls, preconditioner, coupling);
            B::upload(corr, hostPsi_.data(), n);
            return r.nIterations;
        }
        thrust::copy_n(B::policy(), src, n, coarsest.source());
        thrust::fill_n(B::policy(), coarsest.psi(), n, 0.0);
        const SolveResult r = coarsest.solveResident(method, controls, preconditioner, coupling);
        thrust::copy_n(B::policy(), coarsest.psi(), n, corr);
        return r.nIterations;
    }
};

} // namespace gpuLdu

#endif
