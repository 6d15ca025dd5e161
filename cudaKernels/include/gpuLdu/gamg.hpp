// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's GAMG on the core: the smoothers by keyword, GAMGSolver's controls, the coarsening
// steps of an agglomeration, and the hierarchy (GamgHierarchy). Part of the core's interface:
// gpuLdu.hpp includes every part.

#ifndef GPULDU_GAMG_HPP
#define GPULDU_GAMG_HPP

#include "gpuLdu/lduSystem.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuLdu
{

//- A GAMG smoother of the core's registry (cudaKernels/multigrid/SmootherList.hpp, one class per
//  file under multigrid/smoothers/): OpenFOAM's (src/OpenFOAM/matrices/lduMatrix/smoothers, the
//  same arithmetic in the same order: GaussSeidel (nonBlockingGaussSeidel is the same on one
//  rank), symGaussSeidel, DIC (FDIC: the same arithmetic), DILU, DICGaussSeidel,
//  DILUGaussSeidel), then the plugin's own, made for the GPU (no chain of dependent rows):
//  l1Jacobi and Chebyshev. Its place among the registered keywords; named by keyword
//  (GamgSmoother::named("GaussSeidel")); the default is the registry's first, GaussSeidel.
class GamgSmoother : public RegisteredChoice<GamgSmoother>
{
public:
    using RegisteredChoice::RegisteredChoice;

    //- The smoother of any registered keyword (whatever the matrix); throws Error naming the
    //  valid keywords
    static GamgSmoother named(const std::string& keyword);
};

//- Whether OpenFOAM's GAMG has this smoother (native GAMG can run the same solve)
bool isOpenFOAMs(GamgSmoother smoother);

//- The keyword of a smoother (its registered name: GaussSeidel for nonBlockingGaussSeidel)
std::string smootherName(GamgSmoother smoother);

//- The keywords a GAMG on a symmetric or asymmetric matrix accepts as smoother, as OpenFOAM's
//  run-time tables (symmetric: DIC, DICGaussSeidel, FDIC, GaussSeidel, nonBlockingGaussSeidel,
//  symGaussSeidel; asymmetric: DILU, DILUGaussSeidel, GaussSeidel, nonBlockingGaussSeidel,
//  symGaussSeidel), then the plugin's own (both: l1Jacobi, Chebyshev)
std::vector<std::string> smootherNames(bool symmetric);

//- The smoother of a keyword accepted on such a matrix; throws Error naming the valid keywords.
GamgSmoother smootherFromName(const std::string& name, bool symmetric);

//- The controls of OpenFOAM's GAMGSolver (GAMGSolver.C, readControls), its defaults
struct GamgControls
{
    //- GaussSeidel (the registry's first)
    GamgSmoother smoother;
    int nPreSweeps = 0;
    int preSweepsLevelMultiplier = 1;
    int maxPreSweeps = 4;
    int nPostSweeps = 2;
    int postSweepsLevelMultiplier = 1;
    int maxPostSweeps = 4;
    int nFinestSweeps = 2;
    bool interpolateCorrection = false;
    //- OpenFOAM's default: whether the matrix is symmetric
    bool scaleCorrection = true;
    //- The coarsest level solved by the sparse LDL^T on the executor (symmetric matrices; its
    //  factor redone where the coarsest values change), instead of the Krylov solve or a
    //  CoarsestSolver: a direct solve without a host round trip per V-cycle
    bool directCoarsest = false;
    //- The residual after pre-smoothing row by row as lduMatrix::residual forms it (b - diag x,
    //  then the faces, then the interfaces: ESI v2406+), or as b - A x (v1912, the Foundation)
    bool preSweepResidualByRows = false;
    //- The coarsest level solved as corr = source/diag (the Foundation's 14: its diagonalSolver,
    //  serially, where the coarsest level has no faces), unless directCoarsest or a
    //  CoarsestSolver solves it; otherwise (and by default) by PCG/PBiCGStab as GAMGSolver does
    bool coarsestByDiagonal = false;
    //- Where the hierarchy spans several systems (several GPUs or nodes): the levels from the
    //  first coarse one whose largest system has at most this many rows gathered on every
    //  system, which runs the V-cycle's part there whole without exchanges (GatheredLevels.hpp;
    //  symmetric matrices, the coarsest level solved by PCG; at most 250000). -1: the
    //  executor's choice (gpu: 250000 where there are several systems; cpu: none, as it gains
    //  nothing there); 0: none. Also with one system (the gathered levels are then its own)
    int gatheredLevelRows = -1;
};

//- One coarsening step of OpenFOAM's GAMGAgglomeration, from a level to the next coarser one
//  (borrowed from the agglomeration, which OpenFOAM keeps): the coarse level's addressing
//  (meshLevel(l + 1).lduAddr()), each fine cell's coarse cell (restrictAddressing(l)), each
//  fine face's coarse face or, inside a coarse cell c, -1 - c (faceRestrictAddressing(l)), and
//  whether a fine face's upper and lower swap on its coarse face (faceFlipMap(l)).
struct GamgLevelView
{
    LduAddressingView coarse;
    const int* restrictAddressing = nullptr;
    const int* faceRestrictAddressing = nullptr;
    const bool* faceFlipMap = nullptr;
};

//- A solver of GAMG's coarsest level outside the system, on the host (OpenFOAM's
//  directSolveCoarsest: the LU decomposition of the coarsest matrix, interfaces included): it gets
//  the coarsest level's values once per solve, then a source per V-cycle.
class CoarsestSolver
{
public:
    virtual ~CoarsestSolver() = default;

    //- The coarsest matrix (lower == nullptr: symmetric), in its LDU addressing
    virtual void setMatrix(const double* diag, const double* upper, const double* lower) = 0;

    //- psi = the coarsest level's correction for source (host arrays of its cells)
    virtual void solve(const double* source, double* psi) = 0;
};

//- OpenFOAM's GAMG (GAMGSolverSolve.C) on one executor: the fine system and the coarse levels
//  of an agglomeration, built once; each solve uploads the fine values, sums the coarse
//  matrices on the backend in OpenFOAM's order and runs OpenFOAM's V-cycles. Each level has
//  its own Coupling: global sums, and the coupled interfaces of that level (on the coarse
//  levels OpenFOAM's GAMG interfaces, with the agglomerated interface coefficients).
class GamgHierarchy
{
public:
    virtual ~GamgHierarchy() = default;

    virtual Executor executor() const = 0;

    //- Cells of each level, the finest first
    virtual std::vector<int> levelCells() const = 0;

    //- Upload the fine matrix values. lower == nullptr means symmetric (lower = upper).
    virtual void setMatrix(const double* diag, const double* upper, const double* lower) = 0;

    //- Part of the next solve's fine values ahead of it (LduSystem::uploadAhead)
    virtual void uploadAhead(const ValuesAhead& part) = 0;

    //- The interface cells of each level, finest first (the cells of that level's Coupling;
    //  LduSystem::setInterfaces); none until set.
    virtual void setInterfaces(const std::vector<std::vector<int>>& cellsOfLevels) = 0;

    //- For the ranks of a group as one hierarchy (each level their levels one after the other,
    //  block diagonal): each level's parts, finest first (LduSystem::setParts: the sums taken per
    //  rank, handed to the Coupling's sum), and the processor faces between them as terms the
    //  levels apply themselves (LduSystem::setDeviceCouplings).
    virtual void setParts(const std::vector<std::vector<int>>& startsOfLevels) = 0;
    //- The slots of the parts (the same ranks on every level; LduSystem::setPartSlots), after
    //  setParts
    virtual void setPartSlots(const std::vector<int>& slots, int nSlots) = 0;
    virtual void setDeviceCouplings(const std::vector<DeviceCouplings>& couplingsOfLevels) = 0;

    //- Every level's device coupling coefficients of A and of A^T (level k's interfaceBouCoeffs
    //  coeffs[k] and interfaceIntCoeffs intCoeffs[k]), finest first, for the next solve: one
    //  upload for the whole hierarchy
    virtual void setDeviceCouplingCoeffs(const std::vector<const double*>& coeffs,
                                         const std::vector<const double*>& intCoeffs) = 0;

    //- Solve A psi = source as OpenFOAM's GAMGSolver::solve: psi the initial guess on entry and
    //  the solution on exit; nIterations counts V-cycles. Throws ValueError (with the level)
    //  before iterating as LduSystem::solve does, and for a zero or non-finite diagonal of a
    //  level that the V-cycle divides by. couplings: one per level, finest
    //  first, or none (a serial matrix without interfaces).
    virtual SolveResult solve(
        double* psi,
        const double* source,
        const SolverControls& controls,
        const GamgControls& gamg,
        const std::vector<const Coupling*>& couplings
    ) = 0;

    //- Whether solve times the parts of its V-cycles (off by default: it synchronises the
    //  device between them, which costs time on small levels)
    virtual void setTimed(bool timed) = 0;

    //- The coarsest level solved by this solver from now on (directSolveCoarsest), or, with
    //  nullptr, as GAMG's default (PCG with DIC, PBiCGStab with DILU)
    virtual void setCoarsestSolver(CoarsestSolver* solver) = 0;
};

//- Build the GAMG hierarchy on an executor: the fine addressing and one GamgLevelView per
//  coarse level, finest first. Throws Error for inconsistent agglomeration data.
std::unique_ptr<GamgHierarchy> makeGamgHierarchy(
    Executor executor,
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
);

} // namespace gpuLdu

#endif
