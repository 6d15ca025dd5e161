// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve's Krylov path: the matrix stored in the chosen format on the executor, -spmv's
// timing and check of A x, and one of OpenFOAM's Krylov loops (PCG, PBiCG, PBiCGStab) with its
// preconditioner from x = 0 on b = A 1; the true residual checked after it.

#include "solveRun.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

namespace gpuLduSolve
{

namespace
{

//- The largest difference between A x on the backend and on the host, relative to the largest
//  row sum of |A|, that the -spmv check accepts
const double spmvCheckLimit = 1e-12;

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


//- The Krylov method and preconditioner of the options for this matrix (defaults: PCG with DIC
//  for a symmetric one, else PBiCGStab with DILU), refused as OpenFOAM's run-time tables refuse
struct KrylovChoice
{
    KrylovMethod method;
    Preconditioner preconditioner;
    std::string solverName;
    std::string preconditionerName;
};

KrylovChoice chooseKrylov(const Options& o, const LduMatrixData& m)
{
    const bool symmetric = m.symmetric();
    const KrylovMethod method =
        o.solver.value_or(KrylovMethod::named(symmetric ? "PCG" : "PBiCGStab"));
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
    return {method, preconditioner, solverName, preconditionerName};
}

//- The matrix as stored, and where
void printMatrixFacts(const Options& o, const RowLengthStats& stats, bool symmetric, Executor executor,
                      const std::string& gpuReason)
{
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
}

//- The true residual ||b - A x||_2/||b||_2 and max |x - 1| after the solve, and the exit status
//  of the solve, thrown unless it converged
ExitStatus checkKrylovOutcome(const Options& o, LduSystem& sys, const LduMatrixData& m,
                              const std::vector<double>& b, const std::vector<double>& x, const SolveResult& r)
{
    std::vector<double> residual(m.nCells);
    sys.multiply(x.data(), residual.data());
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

ExitStatus runKrylov(const Options& o, const LduMatrixData& m)
{
    const KrylovChoice choice = chooseKrylov(o, m);
    const bool symmetric = m.symmetric();

    checkRows(o, m);

    const std::string gpuReason = o.executor ? "" : gpuUnavailableReason();
    const Executor executor = o.executor.value_or(gpuReason.empty() ? Executor::gpu : Executor::cpu);

    const std::unique_ptr<LduSystem> sys = makeLduSystem(executor, m.addressing());
    const RowLengthStats stats = sys->rowLengthStats();
    printMatrixFacts(o, stats, symmetric, executor, gpuReason);

    const gpuLdu::Stopwatch watch;
    sys->setMatrix(m.diag.data(), m.upperCoeffs.data(), symmetric ? nullptr : m.lowerCoeffs.data());
    const MatrixFormat inUse = sys->setFormat(o.format);
    const double convertSeconds = watch.seconds();
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
        return sys->solve(choice.method, x.data(), b.data(), o.controls, choice.preconditioner, Coupling());
    });
    std::printf("%s%s:  Solving for x, Initial residual = %g, Final residual = %g, No Iterations %d\n",
                choice.preconditionerName.c_str(), choice.solverName.c_str(), r.initialResidual, r.finalResidual,
                r.nIterations);
    if (r.nonFinite)
    {
        throw Failure(exitSingular, "the residual became " + text(r.finalResidual) + " at iteration "
                    + std::to_string(r.nIterations) + ": the solve broke down");
    }
    std::printf("%-16s %s%s\n", "converged", yesNo(r.converged), r.singular ? " (singular)" : "");
    std::printf("%-16s %.4g ms\n", "upload", 1e3*r.times.upload);
    std::printf("%-16s %.4g ms\n", "precond. set-up", 1e3*r.times.setup);
    std::printf("%-16s %.4g ms (%.4g ms per iteration)\n", "iterations", 1e3*r.times.iterate,
                1e3*r.times.iterate/std::max(1, r.nIterations));

    return checkKrylovOutcome(o, *sys, m, b, x, r);
}

} // namespace gpuLduSolve
