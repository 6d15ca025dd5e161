// SPDX-License-Identifier: GPL-3.0-or-later
// A linear system on one LDU addressing: its controls and result, its coupling to the world
// outside its matrix (global sums, coupled interfaces), and the Krylov solves (LduSystem). Part of
// the core's interface: gpuLdu.hpp includes every part.

#ifndef GPULDU_LDUSYSTEM_HPP
#define GPULDU_LDUSYSTEM_HPP

#include "gpuLdu/choices.hpp"
#include "gpuLdu/errors.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuLdu
{

//- OpenFOAM's lduAddressing, borrowed: lower[f] < upper[f], faces sorted by lower (owner
//  order); a mesh's faces are also sorted by upper within a lower cell (upper-triangular
//  order), the coarse levels of a GAMG agglomeration need not be. Every product and sweep takes
//  a row's terms in OpenFOAM's face order (ILU0, not OpenFOAM's, needs upper-triangular order).
struct LduAddressingView
{
    int nCells = 0;
    int nFaces = 0;
    const int* lower = nullptr;
    const int* upper = nullptr;
};

//- The controls of lduMatrix::solver, with OpenFOAM's meaning.
struct SolverControls
{
    int maxIter = 1000;
    int minIter = 0;
    double tolerance = 1e-6;
    double relTol = 0;
    //- Residuals divided by OpenFOAM's normFactor (true), or by 1 (ESI's "norm none")
    bool normalised = true;
    //- PBiCGStab's convergence test at the half step counts the current iteration towards
    //  minIter (the Foundation's releases 12+), or only those before it (v1912, ESI)
    bool halfStepCountsItself = false;
};

//- What a solve's phases took: the one record of its timings, each filled where its work is
//  done (a Stopwatch, the backend's queue waited for at the phase's end), printed by the OpenFOAM
//  layer in one place (gpuLduSolver::logTimes: debug switch gpuLduSolver 1, and 2 for the parts
//  of GAMG's V-cycles). Seconds, but for GAMG's two counts.
struct SolveTimes
{
    //- Values to the device and into their format (the matrix, psi and source), the numeric
    //  preconditioner (GAMG: coarseMatrices + smootherSetup), the rest (residual, normFactor,
    //  iterations or V-cycles, psi back)
    double upload = 0;
    double setup = 0;
    double iterate = 0;
    //- Ranks consolidated into one system (the OpenFOAM layer): their values to the system's
    //  owner and psi back
    double handOver = 0;

    // GAMG (GamgHierarchy::solve)

        //- Coarse matrices from the fine values, and the smoothers' factors
        double coarseMatrices = 0;
        double smootherSetup = 0;
        //- Where the parts are timed (GamgHierarchy::setTimed): smoothing on the finest level
        //  and on the coarse ones, restriction and prolongation (with scaling and
        //  interpolation), the coarsest solve
        double finestSmoothing = 0;
        double smoothing = 0;
        double transfer = 0;
        double coarsest = 0;
        //- The iterations of the coarsest level's Krylov solves (OpenFOAM's PCG or PBiCGStab,
        //  one a V-cycle; 0 where the coarsest is solved directly or by its diagonal), counted
        //  whether or not the parts are timed
        long coarsestIterations = 0;
        //- Where the coarsest level spans several systems and every system's is gathered on
        //  each (GatheredCoarsest): the gathered level's rows; else 0
        int coarsestGatheredRows = 0;
        //- Where the levels below a size are gathered on every system (GatheredLevels): the
        //  first gathered level (1 the first coarse level) and its gathered rows; else -1, 0
        int gatheredFromLevel = -1;
        int gatheredLevelRows = 0;
        //- The levels of the level-scheduled sweeps (Gauss-Seidel, DIC/DILU smoothers), each a
        //  step that waits for the one before: the chain of dependent steps
        long sweepLevels = 0;

    // GAMGGPU's solve in the OpenFOAM layer

        //- OpenFOAM's agglomeration fetched (built on the first solve of a mesh), the level
        //  systems fetched or first built, the coarse levels' interfaces and their coefficients
        //  made on every rank (as GAMGSolver's constructor makes them), the whole solve
        double agglomeration = 0;
        double levelSystems = 0;
        double interfaces = 0;
        double whole = 0;
};

//- What a solve reports; mirrors OpenFOAM's SolverPerformance.
struct SolveResult
{
    double initialResidual = 0;
    double finalResidual = 0;
    int nIterations = 0;
    bool converged = false;
    //- True when the loop stopped on OpenFOAM's singularity test.
    bool singular = false;
    //- True when a residual became NaN or infinite (the solve stopped there).
    bool nonFinite = false;

    //- What its phases took
    SolveTimes times;
};

//- Where a host interface term falls in a row's sum. OpenFOAM subtracts the interface terms
//  patch after patch; the patches a system holds itself (LduSystem::setDeviceCouplings, the
//  processor patches between ranks consolidated into one system) take a contiguous stretch of
//  that order: the host's patches before it are early, those after it late.
enum class InterfacePhase
{
    early,
    late
};

//- What the solver needs from the world outside its matrix: global reductions and the coupled-
//  interface (cyclic, processor, ...) contributions to A*x that the system does not hold. The
//  default is a serial matrix without interfaces.
class Coupling
{
public:
    virtual ~Coupling() = default;

    //- Global sum over all ranks, given the partial sums of the system's parts (LduSystem::
    //  setParts, one part per rank whose matrix the system holds, in order): OpenFOAM's reduce.
    virtual double sum(const double* partials, int nParts) const
    {
        double s = 0;
        for (int p = 0; p < nParts; ++p)
        {
            s += partials[p];
        }
        return s;
    }

    //- Whether sum returns its one partial (one rank, one part): then a solver keeps its sums
    //  on the device between the steps that use them, and brings one value per iteration to
    //  the host
    virtual bool sumsAreLocal() const
    {
        return true;
    }

    //- Whether the host has interface terms in this phase
    virtual bool hasPhase(InterfacePhase phase) const
    {
        (void)phase;
        return false;
    }

    //- x at the interface cells (in the order of LduSystem::setInterfaces), and y, on entry
    //  (A x) at the same cells with the terms of the phases before: subtract this phase's
    //  interface terms from y one after another in the order of OpenFOAM's Amul (patch after
    //  patch, face after face), so that a cell on several patch faces gets them in native order
    //  and y is Amul's to the bit.
    virtual void interfaceProduct(InterfacePhase phase, const double* xAtCells, double* yAtCells) const
    {
        (void)phase;
        (void)xAtCells;
        (void)yAtCells;
    }

    //- The same for (A^T x): OpenFOAM's Tmul, with the interfaceIntCoeffs.
    virtual void interfaceProductT(InterfacePhase phase, const double* xAtCells, double* yAtCells) const
    {
        (void)phase;
        (void)xAtCells;
        (void)yAtCells;
    }

    //- sumA at the interface cells: subtract this phase's interface coefficients in the order
    //  of OpenFOAM's lduMatrix::sumA (normFactor's row sums).
    virtual void interfaceRowSums(InterfacePhase phase, double* sumAAtCells) const
    {
        (void)phase;
        (void)sumAAtCells;
    }

    //- The terms of interfaceProduct with the other sign, added to y: OpenFOAM's interface
    //  update with add = false, as lduMatrix::residual (y = b - A x) and the Gauss-Seidel
    //  smoothers' b' (y = b) take them.
    virtual void interfaceResidual(InterfacePhase phase, const double* xAtCells, double* yAtCells) const
    {
        (void)phase;
        (void)xAtCells;
        (void)yAtCells;
    }

    //- |interface coefficient| of this phase's faces added to y at their cells: the
    //  off-diagonal magnitudes that the interfaces add to a row (the plugin's l1-Jacobi norms
    //  and Chebyshev bounds).
    virtual void interfaceMagnitudes(InterfacePhase phase, double* yAtCells) const
    {
        (void)phase;
        (void)yAtCells;
    }

    //- The halo of the system's device couplings (DeviceCouplings::nHalo values, x across its
    //  faces to other systems) from x at its cells haloSend (send, in that order), exchanged
    //  with the other systems; only a coupling whose system has a halo is asked
    virtual void exchangeHalo(const double* send, double* halo) const
    {
        (void)send;
        (void)halo;
        throw Error("gpuLdu: a system with halo terms under a coupling that exchanges none");
    }

    //- Whether the halo and the sums of the system go between the systems on the backend of
    //  executor e, queued on its stream (exchangeHaloOnBackend, sumOnBackend: the owners' NCCL
    //  on the GPU), so that no term or sum of the system waits for the host; else the halo goes
    //  through the host (exchangeHalo) and the sums too (sum)
    virtual bool exchangesOnBackend(Executor e) const
    {
        (void)e;
        return false;
    }

    //- exchangeHalo with send and halo on the backend (exchangesOnBackend)
    virtual void exchangeHaloOnBackend(const double* send, double* halo) const
    {
        (void)send;
        (void)halo;
        throw Error("gpuLdu: a halo exchanged on the backend under a coupling that exchanges none there");
    }

    //- values[0, count) on the backend, each this system's sum over its rows, summed over all
    //  the systems in place (exchangesOnBackend)
    virtual void sumOnBackend(double* values, int count) const
    {
        (void)values;
        (void)count;
        throw Error("gpuLdu: a sum on the backend under a coupling that sums none there");
    }

    //- Global maximum over all ranks of a rank's value
    virtual double maximum(double local) const
    {
        return local;
    }

    //- The systems that solve together (a group's system with the other groups': several GPUs
    //  or nodes, their sums each system's own partial reduced over the systems) and this one's
    //  index among them; alone: 1 and 0
    virtual int nSystems() const
    {
        return 1;
    }

    virtual int systemIndex() const
    {
        return 0;
    }

    //- Every system's values (each its own count), in the systems' order, on every system: host
    //  arrays; every system calls it (GAMG's coarsest level gathered, GatheredCoarsest)
    virtual std::vector<std::vector<double>> gather(const std::vector<double>& mine) const
    {
        return {mine};
    }
};

//- Interface terms a system applies itself, between the early and the late host phase: for each
//  row rows[j], the terms k in [start[j], start[j+1]) in order, y[rows[j]] -= c[k]*x[cols[k]],
//  c the coefficients of A (A^T: the int coefficients) of the last setDeviceCouplingCoeffs. For
//  ranks consolidated into one system these are their processor patches to each other: row a
//  cell of one rank, column the cell across the patch face on the other.
struct DeviceCouplings
{
    std::vector<int> rows;
    std::vector<int> start{0};
    std::vector<int> cols;
    //- Columns >= the system's cells are halo values, x across faces to other systems (a
    //  group's processor faces to other groups): before terms that read x the system sends x at
    //  the cells haloSend and receives the nHalo values of the halo (Coupling::exchangeHalo)
    std::vector<int> haloSend;
    int nHalo = 0;

    int nTerms() const
    {
        return start.empty() ? 0 : start.back();
    }
};

//- Part of a solve's values given ahead of it (LduSystem::uploadAhead): the host arrays the next
//  setMatrix and solve take (all of their rows and faces), and the part: rows [cell, cell +
//  nCells) of psi and source, with the matrix's diag there and faces [face, face + nFaces) of
//  upper and lower (lower null: symmetric) uploaded (matrix upload), counted as on the device
//  already (held: the system holds them from its last setMatrix), or left (none)
struct ValuesAhead
{
    enum class Matrix
    {
        none,
        upload,
        held
    };
    const double* psi = nullptr;
    const double* source = nullptr;
    const double* diag = nullptr;
    const double* upper = nullptr;
    const double* lower = nullptr;
    int cell = 0;
    int nCells = 0;
    int face = 0;
    int nFaces = 0;
    Matrix matrix = Matrix::none;
};

//- A linear system on one LDU addressing, on one executor. Everything that depends only on the
//  addressing (CSR pattern, LDU->CSR permutation, level schedules, buffers) is built once by
//  makeLduSystem; each solve then uploads values only.
class LduSystem
{
public:
    virtual ~LduSystem() = default;

    virtual Executor executor() const = 0;
    virtual int nCells() const = 0;
    virtual int nFaces() const = 0;

    //- Upload the matrix values. lower == nullptr means symmetric (lower = upper).
    virtual void setMatrix(const double* diag, const double* upper, const double* lower) = 0;

    //- Part of the next solve's values to the device ahead of it, while the host waits for
    //  the rest (a group's owner: each rank's part as its message comes; page-locked host
    //  arrays, so that the copies run while the host goes on). The next setMatrix uploads no
    //  value of its own where every row and face of the matrix came ahead (uploaded or held)
    //  since the last solve, with lower as given there; the next solve no psi or source where
    //  every row did; else each uploads all of its own, as without. The arrays must be those
    //  that setMatrix and solve then take, unchanged since.
    virtual void uploadAhead(const ValuesAhead& part) = 0;

    //- The distinct cells whose (A x) and row sums get coupled-interface terms from the host
    //  (Coupling)
    virtual void setInterfaces(const std::vector<int>& cells) = 0;

    //- The rows of the ranks whose matrices this system holds: rank p's rows are
    //  [starts[p], starts[p+1]) (starts[0] = 0, the last nCells()); sums are taken per rank
    //  (Coupling::sum). Default: one part. Their slots: the parts' own order (setPartSlots).
    virtual void setParts(const std::vector<int>& starts) = 0;

    //- Where each part's sum goes among the parts of every system that sums with this one on
    //  the backend (several GPUs: OpenFOAM's ranks, each in one system), of nSlots: such sums
    //  are totalled in slot order, the same bits whichever system holds which parts
    //  (DeviceScalars). After setParts.
    virtual void setPartSlots(const std::vector<int>& slots, int nSlots) = 0;

    //- The interface terms the system applies itself (DeviceCouplings), their pattern
    virtual void setDeviceCouplings(const DeviceCouplings& couplings) = 0;

    //- Their coefficients for A and for A^T (nTerms() each)
    virtual void setDeviceCouplingCoeffs(const double* coeffs, const double* intCoeffs) = 0;

    //- Use this format for A x and A^T x from now on; automatic resolves through chooseFormat.
    //  A format is converted from CSR on first use (on the backend) and then kept; returns the
    //  format in use. The device has finished the conversion when it returns.
    virtual MatrixFormat setFormat(MatrixFormat format) = 0;

    //- The row lengths of the CSR pattern (diagonal included)
    virtual RowLengthStats rowLengthStats() const = 0;

    //- y = A x on host arrays of nCells() values, through the format in use, with the values
    //  of the last setMatrix; interfaces are not included.
    virtual void multiply(const double* x, double* y) = 0;

    //- Milliseconds per A x (no interfaces) with the format in use, on vectors already on the
    //  backend: the median of repeats runs, each timed with the device synchronised.
    virtual double timeMultiply(int repeats) = 0;

    //- Solve A psi = source with the exact loop of OpenFOAM's PCG, PBiCG or PBiCGStab: psi is
    //  the initial guess on entry and the solution on exit. Throws ValueError, before
    //  iterating, for a value of the matrix, source or psi that is not finite and for a zero
    //  or non-finite pivot of the preconditioner.
    virtual SolveResult solve(
        KrylovMethod method,
        double* psi,
        const double* source,
        const SolverControls& controls,
        Preconditioner preconditioner,
        const Coupling& coupling
    ) = 0;
};

//- Build the system for an addressing on an executor. Throws Error for invalid addressing, for
//  executor gpu in a build without CUDA, or when no CUDA device is usable.
std::unique_ptr<LduSystem> makeLduSystem(Executor executor, const LduAddressingView& addr);

} // namespace gpuLdu

#endif
