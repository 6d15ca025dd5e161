// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's GAMG on a backend B (src/OpenFOAM/matrices/lduMatrix/solvers/GAMG/): a system per
// level (the finest from the host's values, the coarse ones summed on the backend:
// Agglomeration.hpp), a smoother on each (Smoothers.hpp: the classes of SmootherList.hpp), and
// the V-cycle of GAMGSolverSolve.C with the correction scaling of GAMGSolverScale.C and the
// interpolation of GAMGSolverInterpolate.C, step for step. Where the hierarchy spans several
// systems (several GPUs or nodes), its levels below a size run gathered on every system
// (GatheredLevels.hpp): the V-cycle reads each level through system(), corr(), src(). Once per
// backend (instantiate/).

#ifndef GPULDU_GAMGHIERARCHYIMPL_HPP
#define GPULDU_GAMGHIERARCHYIMPL_HPP

#include "multigrid/Agglomeration.hpp"
#include "multigrid/GamgCoarsest.hpp"
#include "multigrid/GatheredLevels.hpp"
#include "multigrid/SmootherRows.hpp"
#include "multigrid/Smoothers.hpp"
#include "multigrid/VCycleRuns.hpp"
#include "krylov/LduSystemImpl.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace gpuLdu
{

template<class B>
class GamgHierarchyImpl : public GamgHierarchy
{
    template<class T>
    using Vector = typename B::template Vector<T>;
    using Level = LduSystemImpl<B>;

    //- systems_[0] the finest; systems_[k + 1] the coarse level k, made from systems_[k] by
    //  steps_[k]. OpenFOAM's coarseCorrFields[k] and coarseSources[k] live on systems_[k + 1]
    std::vector<std::unique_ptr<Level>> systems_;
    std::vector<Agglomeration<B>> steps_;
    //- Per level: its smoothers (each built on first use)
    std::vector<Smoothers<B>> smoothers_;
    //- Per level, during a solve: its coupling (sums, interfaces); none_ where solve got none
    std::vector<const Coupling*> couplings_;
    const Coupling none_;
    std::vector<Vector<double>> corr_;
    std::vector<Vector<double>> src_;
    bool symmetric_ = true;
    bool hasMatrix_ = false;
    //- smoothFinest's: the finest level smoothed as a coarse level is (tests)
    bool finestAsCorrection_ = false;

    //- The finest level's Apsi, correction and residual (GAMGSolver::solve's), and scratch of
    //  the finest size: ACf (scratch1), the pre-smoothed correction (scratch2), the smoothers'
    //  two work vectors, the source with the interfaces' terms (b')
    Vector<double> Apsi_;
    Vector<double> finestCorrection_;
    Vector<double> finestResidual_;
    Vector<double> scratch1_;
    Vector<double> scratch2_;
    Vector<double> smootherWork_[3];
    Vector<double> interfaceSource_;
    //- Every level's device coupling coefficients on the backend, on their way to the levels
    //  (setDeviceCouplingCoeffs)
    Vector<double> couplingCoeffs_;

    //- The coarsest level's solve (GamgCoarsest.hpp): on this backend, on the host, by LDL^T or
    //  by a CoarsestSolver
    std::unique_ptr<GamgCoarsest<B>> coarsest_;

    //- Where the hierarchy spans several systems: its levels below a size gathered on every
    //  system (GatheredLevels.hpp; made at the first solve that may, by every system together;
    //  gatherTried_ once asked), and whether this solve runs on them. What they are made of:
    //  the coarse levels of at most maxGatheredRows rows (kept_), where each level's coupling
    //  coefficients start in couplingCoeffs_. The size: on two H200 at 8M cells 250000 was the
    //  fastest of 60000-1000000 (docs/performance.md)
    static constexpr int defaultGatheredRows = 250000;
    static constexpr int maxGatheredRows = defaultGatheredRows;
    std::unique_ptr<GatheredLevels<B>> gathered_;
    bool gatherTried_ = false;
    bool byGathered_ = false;
    KeptLevels kept_;
    std::vector<std::size_t> couplingAt_;

    //- The record of the solve under way (its smoothers count their sweep levels into it),
    //  handed out with its result
    SolveTimes times_;
    //- The V-cycles' parts timed, or their legs recorded and replayed (VCycleRuns.hpp)
    VCycleRuns<B> runs_;

    int nCoarse() const
    {
        return int(steps_.size());
    }

    //- f(), its seconds added to `into` when the solve is timed (the device synchronised)
    template<class F>
    void timed(double& into, const F& f)
    {
        runs_.timed(into, f);
    }

    static const double* diag(Level& level)
    {
        return level.lduValues();
    }

    //- The coupling of level k (0 the finest) as the solve gave it
    const Coupling& levelCoupling(int k) const
    {
        return couplings_.empty() ? none_ : *couplings_[k];
    }

    //- Whether coarse level k runs gathered in this solve
    bool gathered(int k) const
    {
        return byGathered_ && k >= gathered_->from();
    }

    //- The coupling of level k (0 the finest) in the V-cycle: a gathered level's own
    const Coupling& coupling(int k) const
    {
        return k > 0 && gathered(k - 1) ? gathered_->coupling(k - 1) : levelCoupling(k);
    }

    //- The system of level k (0 the finest) in the V-cycle, its smoothers, and coarse level k's
    //  correction and source
    Level& system(int k)
    {
        return k > 0 && gathered(k - 1) ? gathered_->level(k - 1) : *systems_[k];
    }

    Smoothers<B>& smoothersOf(int k)
    {
        return k > 0 && gathered(k - 1) ? gathered_->smoothers(k - 1) : smoothers_[k];
    }

    double* corr(int k)
    {
        return gathered(k) ? gathered_->corr(k) : ptr(corr_[k]);
    }

    double* src(int k)
    {
        return gathered(k) ? gathered_->src(k) : ptr(src_[k]);
    }

    //- The agglomeration that made coarse level k, and level k's correction as it prolongs it:
    //  at the first gathered level this system's own rows
    const Agglomeration<B>& stepTo(int k) const
    {
        return gathered(k) && k > gathered_->from() ? gathered_->step(k) : steps_[k];
    }

    const double* prolongedFrom(int k)
    {
        return gathered(k) && k == gathered_->from() ? gathered_->ownCorrection() : corr(k);
    }

    //- src(k) = the restriction of fine (level k - 1's, or the finest's, field): at the first
    //  gathered level this system's rows, then summed with the other systems'
    void restrictTo(int k, const double* fine)
    {
        if (gathered(k) && k > gathered_->from())
        {
            gathered_->step(k).restrictField(fine, gathered_->src(k));
            return;
        }
        steps_[k].restrictField(fine, ptr(src_[k]));
        if (gathered(k))
        {
            gathered_->gatherSource(ptr(src_[k]), levelCoupling(k + 1));
        }
    }

    GamgCoarsest<B>& coarsest()
    {
        return byGathered_ ? gathered_->coarsest() : *coarsest_;
    }

    //- The most rows a system may have on the first gathered level: GamgControls::
    //  gatheredLevelRows (at most maxGatheredRows), by default defaultGatheredRows with executor gpu
    //  where the hierarchy spans several systems; 0 where this solve gathers no level (the
    //  matrix asymmetric, the coarsest solved otherwise than by PCG, two levels or fewer)
    int gatherRows(const GamgControls& c) const
    {
        const int rows = c.gatheredLevelRows >= 0 ? std::min(c.gatheredLevelRows, maxGatheredRows)
                       : B::executor == Executor::gpu && levelCoupling(0).nSystems() > 1 ? defaultGatheredRows : 0;
        const bool may = symmetric_ && !c.directCoarsest && !c.coarsestByDiagonal && !coarsest_->hasSolver()
                      && nCoarse() >= 2;
        return may ? rows : 0;
    }

    //- Whether the levels are gathered (made at the first solve that asks, by every system
    //  together): from the first coarse level above the coarsest whose largest system has at
    //  most `rows` rows, where no system evaluates an interface of those levels on the host
    bool gatherLevels(int rows)
    {
        if (gatherTried_)
        {
            return gathered_ != nullptr;
        }
        gatherTried_ = true;
        const Coupling& top = levelCoupling(0);
        int from = -1;
        for (int k = 0; k + 1 < nCoarse() && from < 0; ++k)
        {
            from = top.maximum(double(systems_[k + 1]->n())) <= rows ? k : -1;
        }
        const int coarsest = nCoarse() - 1;
        bool cannot = from < 0 || !kept_.kept(from, coarsest, [&](int k) { return systems_[k + 1]->n(); });
        for (int k = std::max(from, 0); k <= coarsest && !cannot; ++k)
        {
            // (a halo with the systems not gathering together: nothing to gather its rows from)
            cannot = systems_[k + 1]->hostEvaluatesInterfaces(levelCoupling(k + 1))
                  || (top.nSystems() == 1 && systems_[k + 1]->hasHalo());
        }
        if (top.maximum(cannot ? 1.0 : 0.0) > 0)
        {
            return false;
        }
        gathered_ = GatheredLevels<B>::gather(
            kept_.own(from, coarsest, [&](int k) {
                const Level& level = *systems_[k + 1];
                return OwnParts{&level.parts(), &level.partSlots(), level.nPartSlots()};
            }),
            from, top, [&](int k) -> const Coupling& { return levelCoupling(k + 1); });
        // the V-cycle's scratch holds a level's rows
        for (Vector<double>* v : {&scratch1_, &scratch2_, &smootherWork_[0], &smootherWork_[1], &smootherWork_[2],
                                  &interfaceSource_})
        {
            v->resize(std::max(v->size(), std::size_t(gathered_->largest())));
        }
        return true;
    }

    //- Per solve the gathered levels' matrices: every system's coarse matrices (summed by its
    //  own levels) and device coupling coefficients
    void setGatheredMatrices()
    {
        std::vector<const double*> ldu, coeffs;
        std::vector<const Coupling*> systems;
        for (int k = gathered_->from(); k < nCoarse(); ++k)
        {
            systems.push_back(&levelCoupling(k + 1));
            ldu.push_back(systems_[k + 1]->lduValues());
            coeffs.push_back(couplingAt_.empty() ? nullptr : ptr(couplingCoeffs_) + couplingAt_[k + 1]);
        }
        gathered_->setSystemCouplings(systems);
        gathered_->setMatrices(ldu, coeffs, levelCoupling(0));
    }

    //- What a smoother of level k works with
    SmootherLevel<B> smootherLevel(int k)
    {
        return SmootherLevel<B>{system(k), coupling(k), {ptr(smootherWork_[0]), ptr(smootherWork_[1]), ptr(smootherWork_[2])},
                                ptr(interfaceSource_), symmetric_, &times_.sweepLevels, k > 0 || finestAsCorrection_};
    }

    //- The smoother on level k (0 the finest): nSweeps sweeps of psi towards A psi = b
    void smooth(int k, GamgSmoother smoother, double* psi, const double* b, int nSweeps)
    {
        smoothersOf(k).smooth(smoother, smootherLevel(k), psi, b, nSweeps);
    }

    //- GAMGSolver::scale: field = sf*field + (source - sf*A field)/D, sf the ratio of
    //  source.field to (A field).field (reduced over the ranks), Acf the scratch of A field
    void scale(int k, double* field, double* Acf, const double* source)
    {
        Level& level = system(k);
        const Coupling& coupling = this->coupling(k);
        level.amul(Acf, field, coupling);
        DeviceScalars<B> sums(level.workspace(), coupling, level.parts());
        sums.sumInto(detail::Dot{source, field}, detail::Dot{Acf, field}, 0);
        forEach<B>(0, level.n(),
                   detail::ScaleCorrection{detail::scalarsFor<B, 2>(sums.values()), source, Acf, diag(level), field});
    }

    //- GAMGSolver::interpolate on level k: psi = -(off-diagonal part of A psi, interfaces
    //  included)/D, then (with a coarser level) corrected by the coarse field: step, psiC
    void interpolate(int k, double* psi, double* Apsi, const Agglomeration<B>* step, const double* psiC, double* corrC)
    {
        Level& level = system(k);
        const CsrMatrix<B>& A = level.matrix();
        forEach<B>(0, level.n(), detail::OffDiagonalSumRow{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val), psi, Apsi});
        level.subtractInterfaceProduct(Apsi, psi, coupling(k));
        forEach<B>(0, level.n(), detail::NegativeQuotient{Apsi, diag(level), psi});
        if (step)
        {
            step->interpolationCorrection(diag(level), psi, psiC, corrC);
        }
    }

    //- f(), a ValueError from it (of level k's system) naming the level
    template<class F>
    static void atLevel(int k, const F& f)
    {
        try
        {
            f();
        }
        catch (const ValueError& e)
        {
            BadValue bad = e.bad();
            bad.level = k;
            throw ValueError(bad);
        }
    }

    //- Whether the V-cycle divides by level k's diagonal: the levels it smooths (all but the
    //  coarsest, which is solved) with a smoother that dividesByDiagonal (all but DIC and DILU,
    //  whose pivots their factorisation checks), or where the correction is scaled or
    //  interpolated
    bool dividesByDiagonal(int k, const GamgControls& c) const
    {
        return k < nCoarse()
            && (Smoothers<B>::dividesByDiagonal(c.smoother) || c.scaleCorrection || c.interpolateCorrection);
    }

    //- A smoother's numeric set-up on level k (Smoothers::setup). First, where the V-cycle
    //  divides by it (checkDiagonal), the level's diagonal is checked: zero or not finite is a
    //  ValueError naming the level, as a zero or non-finite pivot of the smoother is.
    void setupSmoother(int k, GamgSmoother smoother, bool checkDiagonal)
    {
        atLevel(k, [&]
        {
            Level& level = system(k);
            if (checkDiagonal)
            {
                checkPivots<B>("diagonal", diag(level), nullptr, level.n());
            }
            smoothersOf(k).setup(smoother, smootherLevel(k));
        });
    }

    //- GAMGSolver::Vcycle: down to the coarsest level, its solve, back up. Where the solve's
    //  V-cycles are recorded (cyclesRecordable, untimed), each leg is recorded at the solve's
    //  first V-cycle (record) and replayed at the others: the same kernels on the same arrays,
    //  the coarsest solve (host transfers) between them.
    void vCycle(const double* source, const SolverControls& controls, const GamgControls& c, bool record)
    {
        // a coarsest solve that only queues work is recorded with the way down
        const bool inLeg = coarsest().onBackend();
        const auto coarsest = [&] { timed(times_.coarsest, [&] { solveCoarsest(controls, c); }); };
        runs_.leg(0, record, [&] { restrictionLeg(c); if (inLeg) { coarsest(); } });
        if (!inLeg)
        {
            coarsest();
        }
        runs_.leg(1, record, [&] { prolongationLeg(source, c); });
    }

    //- Whether the V-cycle's legs may be recorded: a smoother whose sweeps are recordable,
    //  every level's work on the backend (and the solve untimed: VCycleRuns)
    bool cyclesRecordable(const GamgControls& c)
    {
        if (!Smoothers<B>::recordable(c.smoother) || (byGathered_ && !gathered_->onBackend()))
        {
            return false;
        }
        for (int k = 0; k <= nCoarse(); ++k)
        {
            if (!system(k).staysOnBackend(coupling(k)))
            {
                return false;
            }
        }
        return true;
    }

    //- The V-cycle's way down: the finest residual restricted, then on each coarse level above
    //  the coarsest the pre-sweeps (where asked) and the restriction of the source
    void restrictionLeg(const GamgControls& c)
    {
        const int coarsest = nCoarse() - 1;
        double* ACf = ptr(scratch1_);

        timed(times_.transfer, [&] { restrictTo(0, ptr(finestResidual_)); });

        for (int k = 0; k < coarsest; ++k)
        {
            Level& level = system(k + 1);
            double* corrK = corr(k);
            double* srcK = src(k);
            if (c.nPreSweeps)
            {
                thrust::fill_n(B::policy(), corrK, level.n(), 0.0);
                timed(times_.smoothing, [&]
                {
                    smooth(k + 1, c.smoother, corrK, srcK,
                           std::min(c.nPreSweeps + c.preSweepsLevelMultiplier*k, c.maxPreSweeps));
                });
                timed(times_.transfer, [&]
                {
                    if (c.scaleCorrection && k < coarsest - 1)
                    {
                        scale(k + 1, corrK, ACf, srcK);
                    }
                    // src = src - A corr, in the release's order of the terms
                    if (c.preSweepResidualByRows)
                    {
                        const CsrMatrix<B>& A = level.matrix();
                        forEach<B>(0, level.n(), detail::ResidualRow{ptr(A.rowStart), ptr(A.col),
                            ptr(A.diagPos), ptr(A.val), srcK, corrK, srcK});
                        level.addInterfaceResidual(srcK, corrK, coupling(k + 1));
                    }
                    else
                    {
                        level.amul(ACf, corrK, coupling(k + 1));
                        forEach<B>(0, level.n(), detail::Residual{srcK, ACf, srcK});
                    }
                });
            }
            timed(times_.transfer, [&] { restrictTo(k + 1, srcK); });
        }
    }

    //- The V-cycle's way up: on each level above the coarsest the coarse correction prolonged
    //  (interpolated, scaled where asked), added to the pre-smoothed one, post-smoothed; on the
    //  finest level added to psi, which the finest sweeps smooth towards source
    void prolongationLeg(const double* source, const GamgControls& c)
    {
        const int coarsest = nCoarse() - 1;
        Level& finest = *systems_[0];
        double* psi = finest.psi();
        double* Apsi = ptr(Apsi_);
        double* ACf = ptr(scratch1_);
        double* preSmoothed = ptr(scratch2_);

        for (int k = coarsest - 1; k >= 0; --k)
        {
            Level& level = system(k + 1);
            double* corrK = corr(k);
            timed(times_.transfer, [&]
            {
                if (c.nPreSweeps)
                {
                    thrust::copy_n(B::policy(), corrK, level.n(), preSmoothed);
                }
                stepTo(k + 1).prolong(prolongedFrom(k + 1), corrK);
                if (c.interpolateCorrection)
                {
                    interpolate(k + 1, corrK, ACf, &stepTo(k + 1), prolongedFrom(k + 1), ptr(smootherWork_[0]));
                }
                if (c.scaleCorrection && (c.interpolateCorrection || k < coarsest - 1))
                {
                    scale(k + 1, corrK, ACf, src(k));
                }
                if (c.nPreSweeps)
                {
                    forEach<B>(0, level.n(), detail::AddTo{preSmoothed, corrK});
                }
            });
            timed(times_.smoothing, [&]
            {
                smooth(k + 1, c.smoother, corrK, src(k),
                       std::min(c.nPostSweeps + c.postSweepsLevelMultiplier*k, c.maxPostSweeps));
            });
        }

        timed(times_.transfer, [&]
        {
            steps_[0].prolong(prolongedFrom(0), ptr(finestCorrection_));
            if (c.interpolateCorrection)
            {
                interpolate(0, ptr(finestCorrection_), Apsi, &steps_[0], prolongedFrom(0), ptr(smootherWork_[0]));
            }
            if (c.scaleCorrection)
            {
                scale(0, ptr(finestCorrection_), Apsi, ptr(finestResidual_));
            }
            forEach<B>(0, finest.n(), detail::AddTo{ptr(finestCorrection_), psi});
        });
        timed(times_.finestSmoothing, [&] { smooth(0, c.smoother, psi, source, c.nFinestSweeps); });
    }

    //- GAMGSolver::solveCoarsestLevel: from a zero correction, OpenFOAM's PCG with DIC
    //  (symmetric) or PBiCGStab with DILU, to the GAMG's tolerance and relTol (the coarsest
    //  system solves its own psi from its own source: the level's fields are copied in and out);
    //  a bad pivot of its DIC/DILU is a ValueError naming the coarsest level. Or, as the
    //  controls say: directSolveCoarsest (LDL^T or a CoarsestSolver), source/diag
    //  (coarsestByDiagonal)
    void solveCoarsest(const SolverControls& gamgControls, const GamgControls& c)
    {
        atLevel(nCoarse(), [&]
        {
            const int k = nCoarse() - 1;
            times_.coarsestIterations += coarsest().solve(system(nCoarse()), src(k), corr(k),
                                                          gamgControls, c, coupling(nCoarse()), symmetric_);
        });
    }

    //- GAMGSolver's constructor: the coarse matrices, the gathered levels' or the coarsest's,
    //  and the smoothers' factors, each phase timed from watch. A bad pivot stops the solve only
    //  where it iterates (OpenFOAM builds its smoothers, and divides by their pivots, only
    //  then): the first one's error returned
    std::unique_ptr<ValueError> setUpLevels(const GamgControls& gamg, Stopwatch& watch)
    {
        for (int k = 0; k < nCoarse(); ++k)
        {
            Level& fine = *systems_[k];
            const double* ldu = fine.lduValues();
            steps_[k].coarseMatrix(ldu, ldu + fine.n(), ldu + fine.n() + fine.nFaces(), symmetric_,
                                   systems_[k + 1]->lduValues());
            systems_[k + 1]->setMatrixFromLdu(symmetric_);
        }
        const int gatheredRows = gatherRows(gamg);
        byGathered_ = gatheredRows > 0 && gatherLevels(gatheredRows);
        if (byGathered_)
        {
            setGatheredMatrices();
            gathered_->coarsest().setMatrix(gathered_->level(gathered_->to()), false, true, gamg,
                                            gathered_->coupling(gathered_->to()));
            times_.gatheredFromLevel = gathered_->from() + 1;
            times_.gatheredLevelRows = gathered_->nRows(gathered_->from());
        }
        else
        {
            coarsest_->setMatrix(*systems_.back(), gamg.directCoarsest, symmetric_, gamg, this->coupling(nCoarse()));
            times_.coarsestGatheredRows = coarsest_->gatheredRows();
        }
        times_.coarseMatrices = queueLap<B>(watch);
        std::unique_ptr<ValueError> badPivot;
        for (int k = 0; k <= nCoarse(); ++k)
        {
            try
            {
                setupSmoother(k, gamg.smoother, dividesByDiagonal(k, gamg));
            }
            catch (const ValueError& e)
            {
                if (!badPivot)
                {
                    badPivot = std::make_unique<ValueError>(e);
                }
            }
        }
        times_.smootherSetup = queueLap<B>(watch);
        times_.setup = times_.coarseMatrices + times_.smootherSetup;
        return badPivot;
    }

public:
    GamgHierarchyImpl(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels)
    :
        kept_(fine, levels, maxGatheredRows)
    {
        if (levels.empty())
        {
            throw Error("gpuLdu: GAMG needs at least one coarse level (OpenFOAM: \"No coarse levels "
                        "created, either matrix too small for GAMG or nCellsInCoarsestLevel too large\")");
        }
        // each level's faces uploaded once, for its CSR pattern and the steps on either side
        FacesOnBackend<B> finerFaces(fine);
        systems_.push_back(std::make_unique<Level>(fine, finerFaces));
        for (std::size_t k = 0; k < levels.size(); ++k)
        {
            FacesOnBackend<B> coarseFaces(levels[k].coarse);
            steps_.emplace_back(k == 0 ? fine : levels[k - 1].coarse, levels[k], finerFaces, coarseFaces);
            systems_.push_back(std::make_unique<Level>(levels[k].coarse, coarseFaces));
            finerFaces = std::move(coarseFaces);
        }
        smoothers_.resize(systems_.size());
        for (int k = 0; k < nCoarse(); ++k)
        {
            corr_.emplace_back(systems_[k + 1]->n());
            src_.emplace_back(systems_[k + 1]->n());
        }
        coarsest_ = std::make_unique<GamgCoarsest<B>>(levels.back().coarse);
        for (Vector<double>* v : {&Apsi_, &finestCorrection_, &finestResidual_, &scratch1_, &scratch2_, &smootherWork_[0],
                                  &smootherWork_[1], &smootherWork_[2], &interfaceSource_})
        {
            v->resize(fine.nCells);
        }
    }

    Executor executor() const override { return B::executor; }

    std::vector<int> levelCells() const override
    {
        std::vector<int> n;
        for (const auto& level : systems_)
        {
            n.push_back(level->n());
        }
        return n;
    }

    void setMatrix(const double* diag, const double* upper, const double* lower) override
    {
        systems_[0]->setMatrix(diag, upper, lower);
        symmetric_ = (lower == nullptr);
        hasMatrix_ = true;
    }

    void uploadAhead(const ValuesAhead& part) override
    {
        systems_[0]->uploadAhead(part);
    }


    //- psi after nSweeps of a smoother on the finest level towards A psi = b (host arrays;
    //  after setMatrix, and setInterfaces where the finest level's coupling has interfaces):
    //  what the V-cycle's smoothing does, for the tests; asCorrection: as a coarse level's
    //  smoothing does (SmootherLevel::correction)
    void smoothFinest(GamgSmoother smoother, double* psi, const double* b, int nSweeps,
                      const Coupling& finestCoupling = Coupling(), bool asCorrection = false)
    {
        Level& finest = *systems_[0];
        const std::size_t n = finest.n();
        couplings_.assign(systems_.size(), &none_);
        couplings_[0] = &finestCoupling;
        finestAsCorrection_ = asCorrection;
        setupSmoother(0, smoother, Smoothers<B>::dividesByDiagonal(smoother));
        finest.workspace().upload(finest.psi(), {{psi, n}});
        finest.workspace().upload(finest.source(), {{b, n}});
        smooth(0, smoother, finest.psi(), finest.source(), nSweeps);
        finest.workspace().download(psi, finest.psi(), n);
        couplings_.clear();
        finestAsCorrection_ = false;
    }

    void setInterfaces(const std::vector<std::vector<int>>& cellsOfLevels) override
    {
        setPerLevel(cellsOfLevels, "interface cells", [](LduSystem& s, const std::vector<int>& c) { s.setInterfaces(c); });
    }

    //- Each level's sizes checked against the hierarchy's, then set on its system (and on the
    //  coarsest's host system, where it solves there)
    template<class T, class Set>
    void setPerLevel(const std::vector<T>& ofLevels, const char* what, const Set& set)
    {
        if (ofLevels.size() != systems_.size())
        {
            throw Error(std::string("gpuLdu: GAMG ") + what + " for " + std::to_string(ofLevels.size())
                        + " levels, the hierarchy has " + std::to_string(systems_.size()));
        }
        for (std::size_t k = 0; k < systems_.size(); ++k)
        {
            set(*systems_[k], ofLevels[k]);
        }
        if (LduSystem* host = coarsest_->hostSystem())
        {
            set(*host, ofLevels.back());
        }
    }

    void setParts(const std::vector<std::vector<int>>& startsOfLevels) override
    {
        setPerLevel(startsOfLevels, "parts", [](LduSystem& s, const std::vector<int>& p) { s.setParts(p); });
    }

    void setPartSlots(const std::vector<int>& slots, int nSlots) override
    {
        const std::vector<std::vector<int>> ofLevels(systems_.size(), slots);
        setPerLevel(ofLevels, "part slots", [nSlots](LduSystem& s, const std::vector<int>& q) { s.setPartSlots(q, nSlots); });
    }

    void setDeviceCouplings(const std::vector<DeviceCouplings>& couplingsOfLevels) override
    {
        setPerLevel(couplingsOfLevels, "device couplings",
                    [](LduSystem& s, const DeviceCouplings& c) { s.setDeviceCouplings(c); });
        kept_.setCouplings(couplingsOfLevels);
        coarsest_->setCouplings(couplingsOfLevels.back());
    }

    //- The levels' coefficients one after the other (level k's of A, then of A^T) in one
    //  transfer, then each level's share copied on the backend: a transfer per level waited
    //  for was 1.3 ms of a 1M solve
    void setDeviceCouplingCoeffs(const std::vector<const double*>& coeffs,
                                 const std::vector<const double*>& intCoeffs) override
    {
        if (coeffs.size() != systems_.size() || intCoeffs.size() != systems_.size())
        {
            throw Error("gpuLdu: GAMG device coupling coefficients for " + std::to_string(coeffs.size())
                        + " levels, the hierarchy has " + std::to_string(systems_.size()));
        }
        std::vector<typename B::Workspace::Part> parts;
        std::size_t total = 0;
        for (std::size_t k = 0; k < systems_.size(); ++k)
        {
            const std::size_t m = systems_[k]->nDeviceCouplingTerms();
            parts.push_back({coeffs[k], m});
            parts.push_back({intCoeffs[k], m});
            total += 2*m;
        }
        if (couplingCoeffs_.size() < total)
        {
            couplingCoeffs_.resize(total);
        }
        systems_[0]->workspace().upload(ptr(couplingCoeffs_), parts);
        std::size_t offset = 0;
        couplingAt_.clear();
        for (const auto& level : systems_)
        {
            couplingAt_.push_back(offset);
            level->setDeviceCouplingCoeffsOnBackend(ptr(couplingCoeffs_) + offset);
            offset += 2*std::size_t(level->nDeviceCouplingTerms());
        }
        if (LduSystem* host = coarsest_->hostSystem())
        {
            host->setDeviceCouplingCoeffs(coeffs.back(), intCoeffs.back());
        }
        coarsest_->setCouplingCoeffs(coeffs.back());
    }

    void setTimed(bool timed) override { runs_.setTimed(timed); }

    void setCoarsestSolver(CoarsestSolver* solver) override
    {
        coarsest_->setSolver(solver);
    }

    //- GAMGSolver::solve
    SolveResult solve(
        double* psi,
        const double* source,
        const SolverControls& controls,
        const GamgControls& gamg,
        const std::vector<const Coupling*>& couplings
    ) override
    {
        if (!hasMatrix_)
        {
            throw Error("gpuLdu: GAMG solve before setMatrix");
        }
        if (!couplings.empty() && couplings.size() != systems_.size())
        {
            throw Error("gpuLdu: GAMG couplings for " + std::to_string(couplings.size())
                        + " levels, the hierarchy has " + std::to_string(systems_.size()));
        }
        couplings_ = couplings;
        byGathered_ = false;
        const Coupling& coupling = this->coupling(0);
        SolveResult result;
        times_ = SolveTimes();
        Level& finest = *systems_[0];
        const int n = finest.n();
        Stopwatch watch;
        finest.uploadValues(psi, source);
        // before the coarse matrices sum them (an inf + -inf there would raise FE_INVALID)
        finest.checkValues();
        times_.upload = queueLap<B>(watch);

        std::unique_ptr<ValueError> badPivot = setUpLevels(gamg, watch);

        DeviceScalars<B> sums(finest.workspace(), coupling, finest.parts());
        double* Apsi = ptr(Apsi_);
        double* residual = ptr(finestResidual_);
        const double normFactor = finest.startSolve(Apsi, residual, sums, controls, coupling, result);

        if (!result.nonFinite && (controls.minIter > 0 || !result.converged))
        {
            if (badPivot)
            {
                throw *badPivot;
            }
            // the legs exchange halos where some level's terms read x across
            runs_.startSolve(cyclesRecordable(gamg),
                             std::any_of(systems_.begin(), systems_.end(), [](const auto& s) { return s->hasHalo(); }));
            bool firstCycle = true;
            do
            {
                vCycle(finest.source(), controls, gamg, firstCycle);
                firstCycle = false;
                finest.amul(Apsi, finest.psi(), coupling);
                forEach<B>(0, n, detail::Residual{finest.source(), Apsi, residual});
                if (residualStops(result, sums.gSum(detail::SumMag{residual}), normFactor))
                {
                    break;
                }
            } while (continueIterating(result, controls));
        }

        finest.workspace().download(psi, finest.psi(), n);
        times_.coarsestIterations += coarsest().backendIterations();
        times_.iterate = queueLap<B>(watch);
        result.times = times_;
        couplings_.clear();
        return result;
    }
};

} // namespace gpuLdu

#endif
