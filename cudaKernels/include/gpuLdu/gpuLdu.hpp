// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolvers core: the plain C++ interface between the OpenFOAM layer (src/) and the
// algorithms (cudaKernels/src). No Thrust, CUDA or OpenFOAM types cross this boundary.

#ifndef GPULDU_GPULDU_HPP
#define GPULDU_GPULDU_HPP

#include <complex>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpuLdu
{

//- Every failure of the core (bad input, CUDA error) is thrown as this; the OpenFOAM layer turns
//  it into a FatalError.
class Error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//- The values a solve checks before it iterates (ValueError): every one must be finite, and
//  every pivot a factorisation divides by must be finite and non-zero.
enum class ValueKind
{
    diagonal,       //!< diag[i] = A[i][i], as uploaded (boundary coefficients included)
    upper,          //!< upper[f] = A[l(f)][u(f)]
    lower,          //!< lower[f] = A[u(f)][l(f)] (asymmetric matrices)
    source,         //!< the right-hand side b
    initialGuess,   //!< psi on entry
    pivot           //!< a pivot of a factorisation or a diagonal divided by (BadValue::pivotOf)
};

//- The words of a kind in messages: diagonal, upper, lower, source, initial guess, pivot
std::string valueKindName(ValueKind kind);

//- What a check found: the first bad value (values: in the order diagonal, upper, lower,
//  source, initial guess, then by index; pivots: the lowest row, the first that a sequential
//  factorisation meets, the others follow from it) and where it is.
struct BadValue
{
    ValueKind kind = ValueKind::source;
    //- For a pivot, whose: DIC, DILU, ILU0, or diagonal (the diagonal preconditioner's, and the
    //  diagonal that GAMG's smoothers and interpolation divide by)
    std::string pivotOf;
    //- The GAMG level of the system (0: the finest, the matrix the solver was given)
    int level = 0;
    //- The face (upper, lower) or the cell (the other kinds), in the system's numbering
    int index = -1;
    //- The matrix entry's row and column: upper A[l(f)][u(f)], lower A[u(f)][l(f)], the
    //  others the cell twice
    int row = -1;
    int col = -1;
    double value = 0;
    //- Values of the checked kinds that are not finite (a pivot: 1)
    long count = 1;
};

//- A BadValue in words, in the system's numbering ("the source is nan at cell 17 (1 value not
//  finite)")
std::string describe(const BadValue& bad);

//- A solve refused before iterating: a value that is not finite, or a zero or non-finite pivot
//  (BadValue). Thrown instead of computing with it: with floating-point trapping on (OpenFOAM's
//  default) the computation would stop the process with SIGFPE, without it the solve would
//  iterate on NaNs.
class ValueError : public Error
{
    BadValue bad_;

public:
    explicit ValueError(const BadValue& bad)
    :
        Error("gpuLdu: " + describe(bad)),
        bad_(bad)
    {}

    const BadValue& bad() const
    {
        return bad_;
    }
};

//- The edit distance (Levenshtein: the fewest insertions, deletions and substitutions of one
//  letter) between two keywords, letters compared regardless of case
int editDistance(const std::string& a, const std::string& b);

//- The candidate closest to name by editDistance (the first of equals), where it is within
//  max(2, length/3) edits of it (a slip, not another word); else empty
std::string closestKeyword(const std::string& name, const std::vector<std::string>& candidates);

//- Where the algorithms run: the same source compiled for the host (Thrust CPP system) or for
//  an NVIDIA GPU (Thrust CUDA system plus hand-written kernels).
enum class Executor
{
    cpu,
    gpu
};

//- The keyword of an executor: cpu, gpu
std::string executorName(Executor executor);

//- The keywords of all executors
std::vector<std::string> executorNames();

//- The executor of a keyword; throws Error naming the valid keywords.
Executor executorFromName(const std::string& name);

//- A preconditioner of the core's registry (cudaKernels/precond/PreconditionerList.hpp, one
//  class per file: none, diagonal, DIC/FDIC and DILU (OpenFOAM's), ILU0 (the zero-fill
//  incomplete LU of the CSR matrix, the plugin's own)): its place among the registered
//  keywords. Named by keyword (Preconditioner::named("DIC")); the default is none.
class Preconditioner
{
    int id_ = 0;

public:
    constexpr Preconditioner() = default;

    explicit constexpr Preconditioner(int id)
    :
        id_(id)
    {}

    //- None: w = r
    static const Preconditioner none;

    //- The preconditioner of any registered keyword (whatever the matrix); throws Error
    //  naming the valid keywords
    static Preconditioner named(const std::string& keyword);

    constexpr int id() const
    {
        return id_;
    }

    friend constexpr bool operator==(Preconditioner a, Preconditioner b)
    {
        return a.id_ == b.id_;
    }

    friend constexpr bool operator!=(Preconditioner a, Preconditioner b)
    {
        return a.id_ != b.id_;
    }
};

//- The Krylov loops of OpenFOAM: PCG (symmetric), PBiCG (asymmetric), PBiCGStab (both).
enum class KrylovMethod
{
    PCG,
    PBiCG,
    PBiCGStab
};

//- The keyword of a method: OpenFOAM's solver name (PCG, PBiCG, PBiCGStab)
std::string methodName(KrylovMethod method);

//- The keywords of all methods
std::vector<std::string> methodNames();

//- The method of a keyword; throws Error naming the valid keywords.
KrylovMethod methodFromName(const std::string& name);

//- Whether OpenFOAM registers the method for a symmetric (PCG, PBiCGStab) or an asymmetric
//  (PBiCG, PBiCGStab) matrix
bool methodTakes(KrylovMethod method, bool symmetric);

//- The keyword of a preconditioner (its registered name: DIC for FDIC)
std::string preconditionerName(Preconditioner preconditioner);

//- The keywords of all preconditioners, aliases included (as preconditionerNames(method,
//  symmetric) lists them)
std::vector<std::string> preconditionerNames();

//- The keywords a method accepts on a symmetric or an asymmetric matrix, as OpenFOAM's run-time
//  tables do (DIC and FDIC for symmetric matrices, DILU for asymmetric ones, none and diagonal
//  for both), and the plugin's own (ILU0, both); empty where the method does not take such a
//  matrix. Listed as OpenFOAM lists a table (its own sorted), then the plugin's own.
std::vector<std::string> preconditionerNames(KrylovMethod method, bool symmetric);

//- Whether OpenFOAM has the preconditioner (native can run the same solve: checkNative)
bool isOpenFOAMs(Preconditioner preconditioner);

//- The preconditioner of a keyword that the method accepts on such a matrix (FDIC, OpenFOAM's
//  DIC with rD*upper cached, is the same arithmetic: DIC); throws Error naming the valid
//  keywords.
Preconditioner preconditionerFromName(const std::string& name, KrylovMethod method, bool symmetric);

//- How A is stored for the products A x and A^T x (the preconditioners always work on CSR).
//  The format changes speed, never results: every format sums a row's terms in OpenFOAM's
//  order (diagonal, then the off-diagonals by ascending column).
//    csr         one thread per row over the row's entries
//    ell         ELLPACK: every row padded to the longest, stored column-major
//    blockedEll  ELLPACK per group of 32 rows (one warp), padded to the group's longest row
//    hyb         ELLPACK of width K (Bell and Garland's choice) + the rest as row-sorted COO
//    hec         ELLPACK of width K (the largest K whose ELLPACK part is more than half
//                non-zero) + the rest as CSR
//    automatic   chosen from the row-length statistics by chooseFormat ("auto")
enum class MatrixFormat
{
    csr,
    ell,
    blockedEll,
    hyb,
    hec,
    automatic
};

//- The keyword of a format: csr, ell, blockedEll, hyb, hec, auto
std::string formatName(MatrixFormat format);

//- The keywords of all formats, in the order above
std::vector<std::string> formatNames();

//- The format of a keyword; throws Error naming the valid keywords.
MatrixFormat formatFromName(const std::string& name);

//- Row-length statistics of a pattern: what the automatic choice looks at.
struct RowLengthStats
{
    int nRows = 0;
    long nnz = 0;
    int minLength = 0;
    int maxLength = 0;
    //- Rows longer than the mean by more than half of it
    int nLongRows = 0;

    double meanLength() const
    {
        return nRows > 0 ? double(nnz)/nRows : 0.0;
    }
};

//- The rule behind matrixFormat auto (derived from the measurements in docs/performance.md).
MatrixFormat chooseFormat(const RowLengthStats& stats);

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

    //- Wall-clock seconds of the phases, the device synchronised at their ends:
    //  values to the device and into CSR (setMatrix and the psi/source upload), the numeric
    //  preconditioner, and the rest (residual, normFactor, iterations, psi download).
    double uploadSeconds = 0;
    double setupSeconds = 0;
    double iterateSeconds = 0;
    //- Ranks consolidated into one system (the OpenFOAM layer): their values to the system's
    //  owner and psi back
    double handOverSeconds = 0;
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

    //- Global maximum over all ranks of a rank's value
    virtual double maximum(double local) const
    {
        return local;
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

    int nTerms() const
    {
        return start.empty() ? 0 : start.back();
    }
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

    //- The distinct cells whose (A x) and row sums get coupled-interface terms from the host
    //  (Coupling)
    virtual void setInterfaces(const std::vector<int>& cells) = 0;

    //- The rows of the ranks whose matrices this system holds: rank p's rows are
    //  [starts[p], starts[p+1]) (starts[0] = 0, the last nCells()); sums are taken per rank
    //  (Coupling::sum). Default: one part.
    virtual void setParts(const std::vector<int>& starts) = 0;

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

//- A GAMG smoother of the core's registry (cudaKernels/multigrid/SmootherList.hpp, one class per
//  file under multigrid/smoothers/): OpenFOAM's (src/OpenFOAM/matrices/lduMatrix/smoothers, the
//  same arithmetic in the same order: GaussSeidel (nonBlockingGaussSeidel is the same on one
//  rank), symGaussSeidel, DIC (FDIC: the same arithmetic), DILU, DICGaussSeidel,
//  DILUGaussSeidel), then the plugin's own, made for the GPU (no chain of dependent rows):
//  l1Jacobi and Chebyshev. Its place among the registered keywords; named by keyword
//  (GamgSmoother::named("GaussSeidel")); the default is the registry's first, GaussSeidel.
class GamgSmoother
{
    int id_ = 0;

public:
    constexpr GamgSmoother() = default;

    explicit constexpr GamgSmoother(int id)
    :
        id_(id)
    {}

    //- The smoother of any registered keyword (whatever the matrix); throws Error naming the
    //  valid keywords
    static GamgSmoother named(const std::string& keyword);

    constexpr int id() const
    {
        return id_;
    }

    friend constexpr bool operator==(GamgSmoother a, GamgSmoother b)
    {
        return a.id_ == b.id_;
    }

    friend constexpr bool operator!=(GamgSmoother a, GamgSmoother b)
    {
        return a.id_ != b.id_;
    }
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

//- What a GAMG solve reports beyond SolveResult: the seconds of its parts (device synchronised)
struct GamgTimes
{
    //- Coarse matrices from the fine values, and the smoothers' factors
    double coarseMatrices = 0;
    double smootherSetup = 0;
    //- Per whole solve: smoothing on the finest level and on the coarse ones, restriction and
    //  prolongation (with scaling and interpolation), the coarsest solve
    double finestSmoothing = 0;
    double smoothing = 0;
    double transfer = 0;
    double coarsest = 0;
    //- Per whole solve: the levels of the level-scheduled sweeps (Gauss-Seidel, DIC/DILU
    //  smoothers), each a step that waits for the one before: the chain of dependent steps
    long sweepLevels = 0;
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
class GamgSystem
{
public:
    virtual ~GamgSystem() = default;

    virtual Executor executor() const = 0;

    //- Cells of each level, the finest first
    virtual std::vector<int> levelCells() const = 0;

    //- Upload the fine matrix values. lower == nullptr means symmetric (lower = upper).
    virtual void setMatrix(const double* diag, const double* upper, const double* lower) = 0;

    //- The interface cells of each level, finest first (the cells of that level's Coupling;
    //  LduSystem::setInterfaces); none until set.
    virtual void setInterfaces(const std::vector<std::vector<int>>& cellsOfLevels) = 0;

    //- For the ranks of a group as one hierarchy (each level their levels one after the other,
    //  block diagonal): each level's parts, finest first (LduSystem::setParts: the sums taken per
    //  rank, handed to the Coupling's sum), and the processor faces between them as terms the
    //  levels apply themselves (LduSystem::setDeviceCouplings).
    virtual void setParts(const std::vector<std::vector<int>>& startsOfLevels) = 0;
    virtual void setDeviceCouplings(const std::vector<DeviceCouplings>& couplingsOfLevels) = 0;

    //- Level k's device coupling coefficients of A and of A^T (its interfaceBouCoeffs and
    //  interfaceIntCoeffs), for the next solve
    virtual void setDeviceCouplingCoeffs(int level, const double* coeffs, const double* intCoeffs) = 0;

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

    //- The seconds of the last solve's parts (the V-cycles' parts only where timed)
    virtual GamgTimes times() const = 0;
};

//- Build the GAMG hierarchy on an executor: the fine addressing and one GamgLevelView per
//  coarse level, finest first. Throws Error for inconsistent agglomeration data.
std::unique_ptr<GamgSystem> makeGamgSystem(
    Executor executor,
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
);

//- The fill-reducing orderings of the sparse LDL^T factorisation
enum class LdltOrdering
{
    natural,    //!< none (P = I): for tests and for matrices already ordered
    amd,        //!< approximate minimum degree (SuiteSparse AMD)
    metis       //!< nested dissection (METIS_NodeND)
};

std::string orderingName(LdltOrdering ordering);

//- The orderings' names (orderingName of each), and the ordering of a name; throws Error
//  listing the valid names for another
std::vector<std::string> orderingNames();
LdltOrdering orderingFromName(const std::string& name);

//- The ordering "auto" picks for n rows: AMD below 5000 rows (cheap, and as good on small
//  matrices), METIS nested dissection from there on (less fill, wider levels on meshes)
LdltOrdering autoOrdering(int n);

//- The structure of a symmetric matrix: n columns in compressed columns (colStart of size n + 1,
//  the rows of each column). For the symbolic analysis either triangle or both, the diagonal
//  optional; for a solver's values (makeLdltSolver) the lower triangle, rows >= the column,
//  duplicates summed.
struct SymmetricPattern
{
    int n = 0;
    const int* colStart = nullptr;
    const int* rows = nullptr;
};

//- The lower triangle of an LDU matrix's pattern in compressed columns, as makeLdltSolver takes
//  it: column j holds its diagonal (row j) first, then one entry per face f with lower[f] == j
//  (row upper[f]), in face order. valueOf[p]: where entry p's value lies in the LDU values taken
//  as one array, the diagonal (nCells) then one triangle's face coefficients (nFaces): j for
//  column j's diagonal, nCells + f for face f (a symmetric matrix: upper and lower are equal).
struct LduLowerColumns
{
    std::vector<int> colStart;
    std::vector<int> rows;
    std::vector<int> valueOf;

    //- The pattern (pointing into this object)
    SymmetricPattern pattern() const
    {
        SymmetricPattern p;
        p.n = int(colStart.size()) - 1;
        p.colStart = colStart.data();
        p.rows = rows.data();
        return p;
    }
};

//- The lower triangle of addr's pattern (LduLowerColumns)
LduLowerColumns lduLowerColumns(const LduAddressingView& addr);

//- What the symbolic analysis found (LdltSolver::analysis)
struct LdltAnalysis
{
    int n = 0;
    LdltOrdering ordering = LdltOrdering::natural;
    //- nnz of A's lower triangle (diagonal included), of L (unit diagonal included), the flops
    //  of the numeric factorisation, the supernodes and the levels of their tree
    long nnzALower = 0;
    long nnzL = 0;
    double flops = 0;
    int nSupernodes = 0;
    int nLevels = 0;
    //- The values stored for L (the supernodes' dense blocks: nnzL plus the relaxation's zeros
    //  and the blocks' upper triangles), the entries of the update matrices' arena (those alive
    //  at once share nothing, the others share their place), and the memory the
    //  factorisation takes on its executor (checked against the free memory before allocating)
    long storedL = 0;
    long updateEntries = 0;
    double deviceBytes = 0;
    double seconds = 0;
};

//- What a numeric factorisation did
struct LdltFactorStats
{
    //- Pivots below the floor replaced by +-floor (static pivoting; complex: the floor in the
    //  pivot's direction); the floor, 1e-10 x the largest |a_ij| of the scaled matrix
    int nStaticPivots = 0;
    double pivotFloor = 0;
    double seconds = 0;
};

//- A x = b for a symmetric A (A = A^T) by the sparse factorisation A = P^T L D L^T P: the
//  symbolic analysis once (makeLdltSolver), the numeric factorisation per set of values, then
//  solves with iterative refinement on the executor. Scalar: double, or std::complex<double> for
//  a complex symmetric A (transposes, never conjugates: not for a Hermitian A).
template<class Scalar>
class BasicLdltSolver
{
public:
    virtual ~BasicLdltSolver() = default;

    virtual Executor executor() const = 0;

    virtual const LdltAnalysis& analysis() const = 0;

    //- Factor the values of the pattern's entries (in its order). Throws Error naming the
    //  column (of A) of a pivot that is not finite, or an entry that is not.
    virtual LdltFactorStats factor(const Scalar* values) = 0;

    //- x = A^-1 b (host arrays of n), then refined (x += A^-1 (b - A x)) until ||b - A x||_2 /
    //  ||b||_2 <= tolerance or after maxRefinement steps. initialResidual: after the plain
    //  solve; finalResidual: at the end; nIterations: the refinement steps; converged: the
    //  tolerance reached; seconds: uploadSeconds b to the executor, setupSeconds the plain solve
    //  (with its residual), iterateSeconds the refinement. Before a factor: throws Error.
    virtual SolveResult solve(const Scalar* b, Scalar* x, double tolerance, int maxRefinement) = 0;

    //- A solver for another matrix of the same pattern (another field of a mesh) on the same
    //  executor in the same ordering: this one's symbolic analysis and set-up copied, not redone
    //  (analysis().seconds: the copy's), no factor yet. Throws Error where its factor would not
    //  fit the executor's memory.
    virtual std::unique_ptr<BasicLdltSolver> withSameAnalysis() const = 0;
};

using LdltSolver = BasicLdltSolver<double>;
using ComplexLdltSolver = BasicLdltSolver<std::complex<double>>;

//- The symbolic analysis of the lower triangle's pattern in an ordering, on an executor, for real
//  or complex values. Throws Error for a malformed pattern (sizes, rows out of range or above the
//  diagonal).
std::unique_ptr<LdltSolver> makeLdltSolver(Executor executor, const SymmetricPattern& lower, LdltOrdering ordering);
std::unique_ptr<ComplexLdltSolver> makeComplexLdltSolver(
    Executor executor,
    const SymmetricPattern& lower,
    LdltOrdering ordering
);

//- Host memory for values on their way to a system or back: page-locked for the GPU executor,
//  so that setMatrix and solve copy straight between it and the device (no staging copy through
//  the system's own page-locked buffer); ordinary memory for the CPU executor.
class HostBuffer
{
    double* data_ = nullptr;
    std::size_t size_ = 0;
    bool pinned_ = false;

public:
    HostBuffer() = default;
    HostBuffer(Executor executor, std::size_t n);
    ~HostBuffer();
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;
    HostBuffer(HostBuffer&& other) noexcept;
    HostBuffer& operator=(HostBuffer&& other) noexcept;

    double* data() { return data_; }
    const double* data() const { return data_; }
    std::size_t size() const { return size_; }
    double* begin() { return data_; }
    double* end() { return data_ + size_; }
};

//- Whether this build contains the GPU backend.
bool builtWithCuda();

//- The CUDA devices this process sees (CUDA_VISIBLE_DEVICES respected); 0 where none is usable.
int visibleDevices();

//- Device `device` (of visibleDevices()) for this process's GPU systems from now on: call it
//  before the first makeLduSystem with executor gpu. Returns the device's name and PCI bus id
//  (what tells two devices apart in a log); throws Error if it is out of range.
std::string useDevice(int device);

//- The device of each node-local rank when nLocal ranks of one node share nDevices devices:
//  the ranks split into min(nDevices, nLocal) groups of neighbouring ranks, as even as possible
//  (the first nLocal % nGroups groups one rank larger), group g on device g. A rank's device
//  follows from its rank among the ranks of its own node, never from its global rank.
std::vector<int> deviceOfLocalRanks(int nLocal, int nDevices);

//- An empty string if a CUDA device is usable, else the reason it is not.
std::string gpuUnavailableReason();

} // namespace gpuLdu

#endif
