// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve: one Matrix Market matrix through the core, outside OpenFOAM. Reads the matrix,
// stores it in the chosen format on the chosen executor, optionally times A x and checks it
// against the host product, then solves A x = b for b = A*1 (so the exact x is 1) from x = 0 with
// one of OpenFOAM's Krylov loops or the sparse LDL^T direct solver, and prints one fact per line.
// The exit status says how it ended (ExitStatus, in -help and the README), so that a script can
// tell a solution from a solve that stopped short or broke down, and both from bad input.

#include "gpuLdu/gpuLdu.hpp"
#include "gpuLdu/matrixMarket.hpp"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <complex>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

using namespace gpuLdu;

namespace
{

const char* const usage =
R"(Usage: gpuLduSolve <matrix.mtx[.gz]> [options]
  -executor cpu|gpu        where to run (default gpu if a GPU is usable, else cpu)
  -format csr|ell|blockedEll|hyb|hec|auto
                           storage of A for A x (default auto)
  -spmv                    also time A x (median of -repeat runs) and check it on the host
  -repeat N                runs of the A x timing (default 20)
  -solver PCG|PBiCG|PBiCGStab|LDLT
                           default PCG for a symmetric matrix, else PBiCGStab; LDLT: the
                           sparse direct solver (symmetric matrices), refined to -tolerance
                           (default 1e-12, on ||b - A x||_2/||b||_2) in at most -maxIter steps
                           (default 10)
  -ordering auto|AMD|METIS|natural
                           LDLT's fill-reducing ordering (default auto: AMD below 5000 rows,
                           else METIS)
  -preconditioner none|diagonal|DIC|FDIC|DILU|ILU0
                           default DIC for a symmetric matrix, else DILU
  -tolerance T             absolute tolerance (default 1e-8)
  -relTol R                relative tolerance (default 0)
  -maxIter N               default 1000; 0: no solve (as OpenFOAM's fvMatrix::solve),
                           the matrix only read, stored and (-spmv) multiplied
  -minIter N               default 0
  -help                    this text
Solves A x = A*1 from x = 0; the exact solution is 1.

The file: Matrix Market coordinate, real, integer or complex, general or symmetric, plain or
gzip. Entries given twice (the same row and column) are summed, with a warning that counts
them. Refused with "<file>:<line>: <what>": a banner, size or entry line over 1024 bytes
(comments may be longer), a control byte (tab is a space; CR may end a line), a value out of
the range of double (overflow or underflow), declared sizes that need more memory than there
is. A matrix with a row of no non-zero entry is singular: refused before the solve.

Exit status:
  0  solved: converged to the tolerance (or -maxIter 0: no solve asked)
  1  error: bad input file, bad options, out of memory, any other failure
  2  not converged: the tolerance not reached in -maxIter iterations (LDLT: refinement steps)
  3  singular or broken down: a row of no non-zero entry, a zero or non-finite pivot,
     OpenFOAM's singularity test, a residual that became NaN or infinite
)";

//- How a run ended: the exit status
enum ExitStatus
{
    exitSolved = 0,
    exitError = 1,
    exitNotConverged = 2,
    exitSingular = 3
};

//- An error that ends the run with its own exit status
class Failure : public Error
{
public:
    const ExitStatus status;

    Failure(ExitStatus status, const std::string& what)
    :
        Error(what),
        status(status)
    {}
};

//- A number as a message shows it: %g ("1e-08", "nan"; std::to_string would write 0.000000)
std::string text(double value)
{
    char s[32];
    std::snprintf(s, sizeof s, "%g", value);
    return s;
}

//- A word of the command line or the file as it appears in a message: at most 40 characters
std::string shown(const std::string& word)
{
    return word.size() > 40 ? word.substr(0, 40) + "..." : word;
}

//- The largest difference between A x on the backend and on the host, relative to the largest
//  row sum of |A|, that the -spmv check accepts
const double spmvCheckLimit = 1e-12;

//- Words space-separated
std::string joined(const std::vector<std::string>& words)
{
    std::string list;
    for (const std::string& w : words)
    {
        list += (list.empty() ? "" : " ") + w;
    }
    return list;
}

//- The command line
struct Options
{
    std::string file;
    bool help = false;
    std::optional<Executor> executor;
    MatrixFormat format = MatrixFormat::automatic;
    bool spmv = false;
    int repeat = 20;
    std::optional<KrylovMethod> solver;
    //- -solver LDLT, its ordering (none: auto), and whether -tolerance and -maxIter were given
    bool ldlt = false;
    std::optional<LdltOrdering> ordering;
    bool toleranceGiven = false;
    bool maxIterGiven = false;
    //- Checked against the matrix once it is read (the valid words depend on its symmetry)
    std::optional<std::string> preconditioner;
    SolverControls controls;
};

int toInt(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || value < INT_MIN || value > INT_MAX)
    {
        throw Error("bad number '" + shown(text) + "' for " + option + ": expected an integer");
    }
    return int(value);
}

double toDouble(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value))
    {
        throw Error("bad number '" + shown(text) + "' for " + option);
    }
    return value;
}

Options parseOptions(int argc, char* argv[])
{
    Options o;
    o.controls.tolerance = 1e-8;
    o.controls.relTol = 0;
    o.controls.maxIter = 1000;
    o.controls.minIter = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const auto value = [&]()
        {
            if (i + 1 == argc)
            {
                throw Error("missing value for " + arg);
            }
            return std::string(argv[++i]);
        };
        if (arg == "-help" || arg == "--help")
        {
            o.help = true;
        }
        else if (arg == "-executor")
        {
            o.executor = executorFromName(value());
        }
        else if (arg == "-format")
        {
            o.format = formatFromName(value());
        }
        else if (arg == "-spmv")
        {
            o.spmv = true;
        }
        else if (arg == "-repeat")
        {
            o.repeat = toInt(arg, value());
        }
        else if (arg == "-solver")
        {
            const std::string name = value();
            o.ldlt = name == "LDLT";
            if (!o.ldlt)
            {
                o.solver = methodFromName(name);
            }
        }
        else if (arg == "-ordering")
        {
            const std::string name = value();
            if (name != "auto")
            {
                // the core's names, and here also their lower-case spellings amd and metis
                const std::string core = name == "amd" ? "AMD" : name == "metis" ? "METIS" : name;
                std::vector<std::string> valid = orderingNames();
                if (std::find(valid.begin(), valid.end(), core) == valid.end())
                {
                    valid.insert(valid.begin(), "auto");
                    throw Error("Unknown ordering " + name + "; valid orderings are : " + joined(valid));
                }
                o.ordering = orderingFromName(core);
            }
        }
        else if (arg == "-preconditioner")
        {
            o.preconditioner = value();
            const std::vector<std::string> known = preconditionerNames();
            if (std::find(known.begin(), known.end(), *o.preconditioner) == known.end())
            {
                throw Error("Unknown preconditioner " + *o.preconditioner + "; valid preconditioners are : "
                          + joined(known));
            }
        }
        else if (arg == "-tolerance")
        {
            o.controls.tolerance = toDouble(arg, value());
            o.toleranceGiven = true;
        }
        else if (arg == "-relTol")
        {
            o.controls.relTol = toDouble(arg, value());
        }
        else if (arg == "-maxIter")
        {
            o.controls.maxIter = toInt(arg, value());
            o.maxIterGiven = true;
        }
        else if (arg == "-minIter")
        {
            o.controls.minIter = toInt(arg, value());
        }
        else if (arg.size() > 1 && arg[0] == '-')
        {
            throw Error("unknown option " + shown(arg));
        }
        else if (o.file.empty())
        {
            o.file = arg;
        }
        else
        {
            throw Error("more than one matrix file: " + o.file + " and " + arg);
        }
    }
    if (o.help)
    {
        return o;
    }
    if (o.file.empty())
    {
        throw Error("no matrix file given");
    }
    if (o.repeat < 1)
    {
        throw Error("-repeat must be at least 1, not " + std::to_string(o.repeat));
    }
    if (o.controls.maxIter < 0 || o.controls.minIter < 0)
    {
        throw Error("-maxIter and -minIter must not be negative");
    }
    if (o.controls.tolerance < 0 || o.controls.relTol < 0)
    {
        throw Error("-tolerance and -relTol must not be negative");
    }
    return o;
}

//- y = op(A) x from the LDU arrays, in OpenFOAM's Amul order (diagonal, then the faces);
//  op is applied to each coefficient.
template<class Op>
std::vector<double> hostProduct(const LduMatrixData& m, const std::vector<double>& x, Op op)
{
    std::vector<double> y(m.nCells);
    for (int c = 0; c < m.nCells; ++c)
    {
        y[c] = op(m.diag[c])*x[c];
    }
    for (std::size_t f = 0; f < m.lower.size(); ++f)
    {
        y[m.upper[f]] += op(m.lowerCoeffs[f])*x[m.lower[f]];
        y[m.lower[f]] += op(m.upperCoeffs[f])*x[m.upper[f]];
    }
    return y;
}

//- ||v||_2, scaled by the largest magnitude, so that values near 1e300 do not overflow the sum of
//  squares (which made a true residual of NaN beside "converged yes"); NaN or infinity if v has one
double norm2(const std::vector<double>& v)
{
    double scale = 0;
    for (double a : v)
    {
        if (!std::isfinite(a))
        {
            return std::abs(a);
        }
        scale = std::max(scale, std::abs(a));
    }
    if (scale == 0)
    {
        return 0;
    }
    double s = 0;
    for (double a : v)
    {
        s += (a/scale)*(a/scale);
    }
    return scale*std::sqrt(s);
}

bool isFinite(double a)
{
    return std::isfinite(a);
}

bool isFinite(const std::complex<double>& a)
{
    return std::isfinite(a.real()) && std::isfinite(a.imag());
}

//- The first row (1-based) of a value that is not finite, 0 if none
template<class Scalar>
long firstNonFinite(const std::vector<Scalar>& v)
{
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        if (!isFinite(v[i]))
        {
            return long(i) + 1;
        }
    }
    return 0;
}

//- b = A 1 must be finite: values that overflow it cannot be solved in double
template<class Scalar>
void checkSource(const Options& o, const std::vector<Scalar>& b)
{
    if (const long row = firstNonFinite(b))
    {
        throw Error(o.file + ": b = A 1 is not finite in row " + std::to_string(row)
                  + ": the values are too large for double precision");
    }
}

//- A row of no non-zero value makes A singular: found before the solve, for every solver, as
//  the exit status for singular matrices (dwg961a's 256 empty rows, or a file whose entries
//  leave rows out)
void checkRows(const Options& o, const LduMatrixData& m)
{
    const std::vector<int> rows = m.zeroRows();
    if (!rows.empty())
    {
        throw Failure(exitSingular, o.file + ": row " + std::to_string(rows[0] + 1) + " has no non-zero entry"
                    + (rows.size() > 1 ? " (nor have " + std::to_string(rows.size() - 1) + " other rows)" : "")
                    + ": the matrix is singular");
    }
}

//- A numerical phase of the core (a factorisation, a solve): an Error it throws for a singular
//  matrix, a zero or a non-finite pivot (the core names the row or column; ValueError from the
//  iterative solvers' checks) becomes the exit status for singular matrices; any other (a CUDA
//  error, memory) stays an error
template<class Phase>
auto numerical(Phase phase)
{
    try
    {
        return phase();
    }
    catch (const Failure&)
    {
        throw;
    }
    catch (const ValueError& e)
    {
        // a value or pivot that is zero or not finite, found before iterating
        throw Failure(exitSingular, e.what());
    }
    catch (const Error& e)
    {
        // the direct solver's errors (no typed error there): by their words
        const std::string what = e.what();
        for (const char* word : {"singular", "pivot", "not finite"})
        {
            if (what.find(word) != std::string::npos)
            {
                throw Failure(exitSingular, what);
            }
        }
        throw;
    }
}

double secondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

const char* yesNo(bool b)
{
    return b ? "yes" : "no";
}

//- -spmv: the time of A x, and A 1 on the backend checked against b = A 1 on the host
void timeAndCheckMultiply(
    LduSystem& sys,
    const LduMatrixData& m,
    const std::vector<double>& b,
    const RowLengthStats& stats,
    MatrixFormat inUse,
    int repeat
)
{
    const double ms = sys.timeMultiply(repeat);
    // bytes moved at least once: values and column indices, x and y
    const double bytes = stats.nnz*(8.0 + 4) + stats.nRows*(8.0 + 8);
    std::printf("%-16s %.4g ms (median of %d), %.3g GB/s counting %.0f bytes\n",
                "A x", ms, repeat, bytes/(ms*1e-3)/1e9, bytes);

    const std::vector<double> ones(m.nCells, 1.0);
    const std::vector<double> rowSums = hostProduct(m, ones, [](double a) { return std::abs(a); });
    std::vector<double> y(m.nCells);
    sys.multiply(ones.data(), y.data());
    double difference = 0;
    for (int i = 0; i < m.nCells; ++i)
    {
        difference = std::max(difference, std::abs(y[i] - b[i]));
    }
    const double scale = *std::max_element(rowSums.begin(), rowSums.end());
    const double relative = scale > 0 ? difference/scale : difference;
    const bool ok = relative <= spmvCheckLimit;
    std::printf("%-16s max |A 1 - host A 1| / max row sum of |A| = %.3g (limit %g): %s\n",
                "A x check", relative, spmvCheckLimit, ok ? "ok" : "FAILED");
    if (!ok)
    {
        throw Error("A x in format " + formatName(inUse) + " differs from the host product");
    }
}

//- -solver LDLT: the symbolic analysis, the numeric factorisation and the refined solve of
//  A x = A 1, their figures; Scalar: double, or std::complex<double> for a complex symmetric file
template<class Scalar>
ExitStatus runLdltOf(const Options& o, const LduMatrixData& m, Executor executor, const std::string& gpuReason)
{
    // entry (re, im) of the file as a Scalar
    const auto value = [](double re, double im)
    {
        if constexpr (std::is_same_v<Scalar, double>)
        {
            (void)im;
            return re;
        }
        else
        {
            return Scalar(re, im);
        }
    };
    const auto imag = [&m](const std::vector<double>& parts, std::size_t i)
    {
        return m.complexValues ? parts[i] : 0.0;
    };
    // the lower triangle by columns (LduLowerColumns); b = A 1 (the exact solution is 1),
    // summed as hostProduct does
    const int n = m.nCells;
    const int nFaces = int(m.lower.size());
    const LduLowerColumns lower = lduLowerColumns({n, nFaces, m.lower.data(), m.upper.data()});
    std::vector<Scalar> values(lower.rows.size()), b(n);
    for (std::size_t p = 0; p < values.size(); ++p)
    {
        const int v = lower.valueOf[p];
        values[p] = v < n ? value(m.diag[v], imag(m.diagImag, v))
                          : value(m.lowerCoeffs[v - n], imag(m.lowerImag, v - n));
    }
    for (int j = 0; j < n; ++j)
    {
        b[j] = value(m.diag[j], imag(m.diagImag, j));
    }
    for (int f = 0; f < nFaces; ++f)
    {
        const Scalar a = value(m.lowerCoeffs[f], imag(m.lowerImag, f));
        b[m.upper[f]] += a;
        b[m.lower[f]] += a;
    }
    checkSource(o, b);
    const LdltOrdering ordering = o.ordering.value_or(autoOrdering(n));
    const double tolerance = o.toleranceGiven ? o.controls.tolerance : 1e-12;
    const int maxRefinement = o.maxIterGiven ? o.controls.maxIter : 10;

    std::printf("%-16s %s\n", "matrix", o.file.c_str());
    std::printf("%-16s %d%s\n", "rows", n, m.complexValues ? " (complex symmetric)" : "");
    std::printf("%-16s %s%s%s\n", "executor", executorName(executor).c_str(),
                o.executor ? "" : " (default", o.executor ? "" : (gpuReason.empty() ? ")" : ("; no usable GPU: " + gpuReason + ")").c_str()));
    std::unique_ptr<BasicLdltSolver<Scalar>> solver;
    if constexpr (std::is_same_v<Scalar, double>)
    {
        solver = makeLdltSolver(executor, lower.pattern(), ordering);
    }
    else
    {
        solver = makeComplexLdltSolver(executor, lower.pattern(), ordering);
    }
    const LdltAnalysis& a = solver->analysis();
    std::printf("%-16s %s\n", "ordering", orderingName(a.ordering).c_str());
    std::printf("%-16s %ld (lower triangle)\n", "nnz(A)", a.nnzALower);
    std::printf("%-16s %ld\n", "nnz(L)", a.nnzL);
    std::printf("%-16s %.3g (nnz(L)/nnz(A))\n", "fill", double(a.nnzL)/double(std::max(1L, a.nnzALower)));
    std::printf("%-16s %.4g%s\n", "flops", a.flops, m.complexValues ? " (complex operations)" : "");
    std::printf("%-16s %d (%d levels of their tree)\n", "supernodes", a.nSupernodes, a.nLevels);
    std::printf("%-16s %ld L values (%.3g x nnz(L)), %ld update entries, %.4g MiB on the executor\n", "storage",
                a.storedL, double(a.storedL)/double(std::max(1L, a.nnzL)), a.updateEntries, a.deviceBytes/1048576);
    std::printf("%-16s %.4g ms\n", "symbolic", 1e3*a.seconds);
    const LdltFactorStats f = numerical([&]() { return solver->factor(values.data()); });
    std::printf("%-16s %.4g ms (%.3g GFLOP/s)\n", "numeric", 1e3*f.seconds, a.flops/std::max(f.seconds, 1e-12)/1e9);
    std::printf("%-16s %d (floor %.3g on the scaled matrix)\n", "static pivots", f.nStaticPivots, f.pivotFloor);

    std::vector<Scalar> x(n, Scalar(0));
    const SolveResult r = numerical([&]() { return solver->solve(b.data(), x.data(), tolerance, maxRefinement); });
    std::printf("%-16s %.4g ms\n", "solve", 1e3*r.setupSeconds);
    std::printf("%-16s %.4g ms (%d steps)\n", "refinement", 1e3*r.iterateSeconds, r.nIterations);
    std::printf("LDLT:  Solving for x, Initial residual = %g, Final residual = %g, No Iterations %d\n",
                r.initialResidual, r.finalResidual, r.nIterations);
    std::printf("%-16s %s (tolerance %g on ||b - A x||_2/||b||_2)\n", "converged", yesNo(r.converged), tolerance);
    double error = 0;
    for (int i = 0; i < n; ++i)
    {
        error = std::max(error, double(std::abs(x[i] - Scalar(1))));
    }
    std::printf("%-16s %.3g\n", "max |x - 1|", error);
    if (!std::isfinite(r.finalResidual) || firstNonFinite(x) != 0)
    {
        throw Failure(exitSingular, "LDLT: the residual of " + o.file + " became " + text(r.finalResidual)
                    + ": the factorisation broke down");
    }
    if (!r.converged && f.nStaticPivots > 0)
    {
        throw Failure(exitSingular, "LDLT: " + o.file + " is singular to working precision: "
                    + std::to_string(f.nStaticPivots) + " pivots replaced (static pivoting), and the refinement"
                    " stopped at a relative residual of " + text(r.finalResidual)
                    + ", above the tolerance " + text(tolerance));
    }
    if (!r.converged)
    {
        throw Failure(exitNotConverged, "LDLT: not converged: the relative residual of " + o.file + " is "
                    + text(r.finalResidual) + " after " + std::to_string(r.nIterations)
                    + " refinement steps (-maxIter " + std::to_string(maxRefinement) + "), above the tolerance "
                    + text(tolerance));
    }
    return exitSolved;
}

ExitStatus runLdlt(const Options& o, const LduMatrixData& m, Executor executor, const std::string& gpuReason)
{
    if (m.hermitian())
    {
        throw Error("solver LDLT is for symmetric matrices (A = A^T); " + o.file + " is Hermitian (A = A^H, not"
                    " A^T), which L D L^T without conjugation does not factor");
    }
    if (!m.symmetric())
    {
        throw Error("solver LDLT is for symmetric matrices; " + o.file + " is not symmetric"
                    + (m.complexValues ? "" : " (use PBiCGStab)"));
    }
    checkRows(o, m);
    if (m.complexValues)
    {
        return runLdltOf<std::complex<double>>(o, m, executor, gpuReason);
    }
    return runLdltOf<double>(o, m, executor, gpuReason);
}

ExitStatus run(const Options& o)
{
    const LduMatrixData m = readMatrixMarket(o.file);
    if (m.nDuplicates > 0)
    {
        std::fprintf(stderr, "gpuLduSolve: warning: %s:%ld: %ld entr%s a row and column of an earlier entry,"
                     " summed into it (the first here)\n", o.file.c_str(), m.firstDuplicateLine, m.nDuplicates,
                     m.nDuplicates == 1 ? "y repeats" : "ies repeat");
    }
    if (o.ldlt)
    {
        // CUDA is asked only when the executor is not given: -executor cpu never starts it
        const std::string reason = o.executor ? "" : gpuUnavailableReason();
        return runLdlt(o, m, o.executor.value_or(reason.empty() ? Executor::gpu : Executor::cpu), reason);
    }
    if (m.complexValues)
    {
        throw Error(o.file + " is complex: only -solver LDLT takes complex (symmetric) matrices");
    }
    const bool symmetric = m.symmetric();
    const KrylovMethod method =
        o.solver.value_or(symmetric ? KrylovMethod::PCG : KrylovMethod::PBiCGStab);
    const std::string solverName = methodName(method);
    const std::string preconditionerName = o.preconditioner.value_or(symmetric ? "DIC" : "DILU");
    const std::string matrixKind = symmetric ? "symmetric" : "asymmetric";

    // OpenFOAM's run-time tables: which solver and preconditioner take this matrix
    const std::vector<std::string> valid = preconditionerNames(method, symmetric);
    if (valid.empty())
    {
        throw Error("solver " + solverName + " is not available for the " + matrixKind + " matrix "
                  + o.file + " (as in OpenFOAM); use "
                  + (symmetric ? "PCG or PBiCGStab" : "PBiCGStab or PBiCG"));
    }
    Preconditioner preconditioner;
    try
    {
        preconditioner = preconditionerFromName(preconditionerName, method, symmetric);
    }
    catch (const Error&)
    {
        throw Error("preconditioner " + preconditionerName + " is not available for the " + matrixKind
                  + " matrix " + o.file + " (as in OpenFOAM); valid preconditioners of "
                  + solverName + " for it are : " + joined(valid));
    }

    checkRows(o, m);

    const std::string gpuReason = o.executor ? "" : gpuUnavailableReason();
    const Executor executor = o.executor.value_or(gpuReason.empty() ? Executor::gpu : Executor::cpu);

    const std::unique_ptr<LduSystem> sys = makeLduSystem(executor, m.addressing());
    const RowLengthStats stats = sys->rowLengthStats();
    std::printf("%-16s %s\n", "matrix", o.file.c_str());
    std::printf("%-16s %d\n", "rows", stats.nRows);
    std::printf("%-16s %ld (stored, the pattern made symmetric)\n", "non-zeros", stats.nnz);
    std::printf("%-16s %s\n", "symmetric", yesNo(symmetric));
    std::printf("%-16s min %d, mean %.3g, max %d\n", "row lengths", stats.minLength,
                stats.meanLength(), stats.maxLength);
    if (o.executor)
    {
        std::printf("%-16s %s\n", "executor", executorName(executor).c_str());
    }
    else
    {
        std::printf("%-16s %s (default%s%s)\n", "executor", executorName(executor).c_str(),
                    gpuReason.empty() ? "" : "; no usable GPU: ", gpuReason.c_str());
    }

    const auto start = std::chrono::steady_clock::now();
    sys->setMatrix(m.diag.data(), m.upperCoeffs.data(), symmetric ? nullptr : m.lowerCoeffs.data());
    const MatrixFormat inUse = sys->setFormat(o.format);
    const double convertSeconds = secondsSince(start);
    std::printf("%-16s %s\n", "format asked", formatName(o.format).c_str());
    std::printf("%-16s %s\n", "format in use", formatName(inUse).c_str());
    std::printf("%-16s %.4g ms (setMatrix + setFormat)\n", "conversion", 1e3*convertSeconds);

    // the source: b = A 1, so that the exact solution is 1
    const std::vector<double> ones(m.nCells, 1.0);
    const std::vector<double> b = hostProduct(m, ones, [](double a) { return a; });
    checkSource(o, b);
    if (o.spmv)
    {
        timeAndCheckMultiply(*sys, m, b, stats, inUse, o.repeat);
    }

    // OpenFOAM's fvMatrix::solve returns before the solver with maxIter 0 (its PCG loop itself,
    // a do-while, would take one iteration, as the core's does)
    if (o.controls.maxIter == 0)
    {
        std::printf("%-16s none (-maxIter 0)\n", "solve");
        return exitSolved;
    }
    std::vector<double> x(m.nCells, 0.0);
    const SolveResult r = numerical([&]()
    {
        return sys->solve(method, x.data(), b.data(), o.controls, preconditioner, Coupling());
    });
    std::printf("%s%s:  Solving for x, Initial residual = %g, Final residual = %g, No Iterations %d\n",
                preconditionerName.c_str(), solverName.c_str(), r.initialResidual, r.finalResidual,
                r.nIterations);
    if (r.nonFinite)
    {
        throw Failure(exitSingular, "the residual became " + text(r.finalResidual) + " at iteration "
                    + std::to_string(r.nIterations) + ": the solve broke down");
    }
    std::printf("%-16s %s%s\n", "converged", yesNo(r.converged), r.singular ? " (singular)" : "");
    std::printf("%-16s %.4g ms\n", "upload", 1e3*r.uploadSeconds);
    std::printf("%-16s %.4g ms\n", "precond. set-up", 1e3*r.setupSeconds);
    std::printf("%-16s %.4g ms (%.4g ms per iteration)\n", "iterations", 1e3*r.iterateSeconds,
                1e3*r.iterateSeconds/std::max(1, r.nIterations));

    std::vector<double> residual(m.nCells);
    sys->multiply(x.data(), residual.data());
    double error = 0;
    for (int i = 0; i < m.nCells; ++i)
    {
        residual[i] = b[i] - residual[i];
        error = std::max(error, std::abs(x[i] - 1));
    }
    const double bNorm = norm2(b);
    const double trueResidual = bNorm > 0 ? norm2(residual)/bNorm : norm2(residual);
    std::printf("%-16s %.3g (%s)\n", "true residual", trueResidual,
                bNorm > 0 ? "||b - A x||_2/||b||_2" : "||b - A x||_2; b = 0");
    std::printf("%-16s %.3g\n", "max |x - 1|", error);
    if (!std::isfinite(trueResidual) || firstNonFinite(x) != 0)
    {
        throw Failure(exitSingular, "the true residual is " + text(trueResidual)
                    + " after the solve: it broke down");
    }
    if (r.converged)
    {
        return exitSolved;
    }
    if (r.singular)
    {
        throw Failure(exitSingular, "the solve stopped on OpenFOAM's singularity test at iteration "
                    + std::to_string(r.nIterations) + ", residual " + text(r.finalResidual)
                    + ": the matrix is singular or the solve broke down");
    }
    throw Failure(exitNotConverged, "not converged: residual " + text(r.finalResidual) + " after "
                + std::to_string(r.nIterations) + " iterations (-maxIter " + std::to_string(o.controls.maxIter)
                + "), above the tolerance " + text(o.controls.tolerance)
                + (o.controls.relTol > 0 ? " and the relative tolerance " + text(o.controls.relTol) : ""));
}

} // namespace


int main(int argc, char* argv[])
{
    Options options;
    try
    {
        options = parseOptions(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "gpuLduSolve: %s\n\n%s", e.what(), usage);
        return exitError;
    }
    if (options.help)
    {
        std::printf("%s", usage);
        return 0;
    }
    try
    {
        return run(options);
    }
    catch (const Failure& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return e.status;
    }
    catch (const SingularMatrixError& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return exitSingular;
    }
    catch (const Error& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return exitError;
    }
    catch (const std::bad_alloc& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: out of memory (%s): %s is too large for the memory of this machine\n",
                     e.what(), options.file.c_str());
        return exitError;
    }
    catch (const std::exception& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: unexpected error: %s\n", e.what());
        return exitError;
    }
}
