// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve -solver LDLT: the sparse LDL^T direct solver of the core on a symmetric (real or
// complex) matrix, refined to -tolerance, with the figures of each phase.

#include "solveRun.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <type_traits>

namespace gpuLduSolve
{

namespace
{

//- The symbolic analysis's figures: ordering, nnz of A and L, fill, flops, supernodes, storage
void printAnalysis(const LdltAnalysis& a, const LduMatrixData& m)
{
    std::printf("%-16s %s\n", "ordering", orderingName(a.ordering).c_str());
    std::printf("%-16s %ld (lower triangle)\n", "nnz(A)", a.nnzALower);
    std::printf("%-16s %ld\n", "nnz(L)", a.nnzL);
    std::printf("%-16s %.3g (nnz(L)/nnz(A))\n", "fill", double(a.nnzL)/double(std::max(1L, a.nnzALower)));
    std::printf("%-16s %.4g%s\n", "flops", a.flops, m.complexValues ? " (complex operations)" : "");
    std::printf("%-16s %d (%d levels of their tree)\n", "supernodes", a.nSupernodes, a.nLevels);
    std::printf("%-16s %ld L values (%.3g x nnz(L)), %ld update entries, %.4g MiB on the executor\n", "storage",
                a.storedL, double(a.storedL)/double(std::max(1L, a.nnzL)), a.updateEntries, a.deviceBytes/1048576);
    std::printf("%-16s %.4g ms\n", "symbolic", 1e3*a.seconds);
}

//- The exit status of a refined solve, thrown unless it converged: singular (a non-finite
//  residual or x, or no convergence with pivots replaced), else not converged
void checkLdltOutcome(
    const Options& o,
    const SolveResult& r,
    const LdltFactorStats& f,
    bool xNonFinite,
    double tolerance,
    int maxRefinement
)
{
    if (!std::isfinite(r.finalResidual) || xNonFinite)
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
    printAnalysis(a, m);
    const LdltFactorStats f = numerical([&]() { return solver->factor(values.data()); });
    std::printf("%-16s %.4g ms (%.3g GFLOP/s)\n", "numeric", 1e3*f.seconds, a.flops/std::max(f.seconds, 1e-12)/1e9);
    std::printf("%-16s %d (floor %.3g on the scaled matrix)\n", "static pivots", f.nStaticPivots, f.pivotFloor);

    std::vector<Scalar> x(n, Scalar(0));
    const SolveResult r = numerical([&]() { return solver->solve(b.data(), x.data(), tolerance, maxRefinement); });
    std::printf("%-16s %.4g ms\n", "solve", 1e3*r.times.setup);
    std::printf("%-16s %.4g ms (%d steps)\n", "refinement", 1e3*r.times.iterate, r.nIterations);
    std::printf("LDLT:  Solving for x, Initial residual = %g, Final residual = %g, No Iterations %d\n",
                r.initialResidual, r.finalResidual, r.nIterations);
    std::printf("%-16s %s (tolerance %g on ||b - A x||_2/||b||_2)\n", "converged", yesNo(r.converged), tolerance);
    double error = 0;
    for (int i = 0; i < n; ++i)
    {
        error = std::max(error, double(std::abs(x[i] - Scalar(1))));
    }
    std::printf("%-16s %.3g\n", "max |x - 1|", error);
    checkLdltOutcome(o, r, f, firstNonFinite(x) != 0, tolerance, maxRefinement);
    return exitSolved;
}

} // namespace

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

} // namespace gpuLduSolve
