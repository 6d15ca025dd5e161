// SPDX-License-Identifier: GPL-3.0-or-later
// The CPU baselines of the sparse direct solver (tests/benchmark/ldlt.sh): one symmetric Matrix
// Market system A x = A 1 through SuiteSparse's CHOLMOD (supernodal LL^T, the BLAS's threads:
// the strongest CPU baseline here) or UMFPACK (the reference paper's baseline, LU), in AMD or
// METIS order. Prints the symbolic, numeric and solve times, nnz(L), the flops, the numeric
// phase's GFLOP/s and ||b - A x||_2/||b||_2 in gpuLduSolve's key layout.
// Usage: gpuLduDirectBaseline -solver CHOLMOD|UMFPACK [-ordering AMD|METIS] matrix.mtx[.gz]

#include "gpuLdu/matrixMarket.hpp"

#include <cholmod.h>
#include <umfpack.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t)
{
    return 1e3*std::chrono::duration<double>(Clock::now() - t).count();
}

//- A in compressed columns: lowerOnly the lower triangle (CHOLMOD, stype -1), else both
struct Csc
{
    int n = 0;
    std::vector<int> start, rows;
    std::vector<double> values;
};

Csc toCsc(const gpuLdu::LduMatrixData& m, bool lowerOnly)
{
    Csc a;
    a.n = m.nCells;
    std::vector<std::vector<std::pair<int, double>>> cols(a.n);
    for (int j = 0; j < a.n; ++j)
    {
        cols[j].push_back({j, m.diag[j]});
    }
    for (std::size_t f = 0; f < m.lower.size(); ++f)
    {
        cols[m.lower[f]].push_back({m.upper[f], m.lowerCoeffs[f]});
        if (!lowerOnly)
        {
            cols[m.upper[f]].push_back({m.lower[f], m.upperCoeffs[f]});
        }
    }
    a.start.push_back(0);
    for (auto& c : cols)
    {
        std::sort(c.begin(), c.end());
        for (auto [i, v] : c)
        {
            a.rows.push_back(i);
            a.values.push_back(v);
        }
        a.start.push_back(int(a.rows.size()));
    }
    return a;
}

//- ||b - A x||_2 / ||b||_2, A in both triangles
double relativeResidual(const Csc& a, const std::vector<double>& x, const std::vector<double>& b)
{
    std::vector<double> r = b;
    for (int j = 0; j < a.n; ++j)
    {
        for (int p = a.start[j]; p < a.start[j + 1]; ++p)
        {
            r[a.rows[p]] -= a.values[p]*x[j];
        }
    }
    double rr = 0, bb = 0;
    for (int i = 0; i < a.n; ++i)
    {
        rr += r[i]*r[i];
        bb += b[i]*b[i];
    }
    return std::sqrt(rr/std::max(bb, 1e-300));
}

void report(double symbolic, double numeric, double solve, double nnzL, double flops, double residual)
{
    std::printf("%-16s %.0f\n", "nnz(L)", nnzL);
    std::printf("%-16s %.4g\n", "flops", flops);
    std::printf("%-16s %.4g ms\n", "symbolic", symbolic);
    std::printf("%-16s %.4g ms (%.3g GFLOP/s)\n", "numeric", numeric, flops/std::max(numeric, 1e-9)/1e6);
    std::printf("%-16s %.4g ms\n", "solve", solve);
    std::printf("%-16s %.3g\n", "residual", residual);
}

int cholmodRun(const Csc& lower, const Csc& full, bool metis, const std::vector<double>& b)
{
    cholmod_common c;
    cholmod_start(&c);
    c.supernodal = CHOLMOD_SUPERNODAL;
    c.nmethods = 1;
    c.method[0].ordering = metis ? CHOLMOD_METIS : CHOLMOD_AMD;
    c.postorder = 1;
    cholmod_sparse A{};
    A.nrow = A.ncol = std::size_t(lower.n);
    A.nzmax = lower.rows.size();
    A.p = const_cast<int*>(lower.start.data());
    A.i = const_cast<int*>(lower.rows.data());
    A.x = const_cast<double*>(lower.values.data());
    A.stype = -1;
    A.itype = CHOLMOD_INT;
    A.xtype = CHOLMOD_REAL;
    A.dtype = CHOLMOD_DOUBLE;
    A.sorted = 1;
    A.packed = 1;
    auto t = Clock::now();
    cholmod_factor* L = cholmod_analyze(&A, &c);
    const double symbolic = msSince(t);
    if (!L)
    {
        std::printf("failed           CHOLMOD analysis (status %d)\n", c.status);
        return 1;
    }
    t = Clock::now();
    cholmod_factorize(&A, L, &c);
    const double numeric = msSince(t);
    if (c.status == CHOLMOD_NOT_POSDEF)
    {
        std::printf("failed           CHOLMOD: not positive definite (column %d)\n", int(L->minor));
        return 1;
    }
    cholmod_dense B{};
    B.nrow = std::size_t(lower.n);
    B.ncol = 1;
    B.nzmax = B.d = std::size_t(lower.n);
    B.x = const_cast<double*>(b.data());
    B.xtype = CHOLMOD_REAL;
    B.dtype = CHOLMOD_DOUBLE;
    t = Clock::now();
    cholmod_dense* X = cholmod_solve(CHOLMOD_A, L, &B, &c);
    const double solve = msSince(t);
    const std::vector<double> x(static_cast<double*>(X->x), static_cast<double*>(X->x) + lower.n);
    report(symbolic, numeric, solve, c.lnz, c.fl, relativeResidual(full, x, b));
    cholmod_free_dense(&X, &c);
    cholmod_free_factor(&L, &c);
    cholmod_finish(&c);
    return 0;
}

int umfpackRun(const Csc& full, bool metis, const std::vector<double>& b)
{
    // the long-index interface: the LU of a 3-D mesh outgrows int indices from about 80^3 rows
    const std::vector<SuiteSparse_long> start(full.start.begin(), full.start.end());
    const std::vector<SuiteSparse_long> rows(full.rows.begin(), full.rows.end());
    double control[UMFPACK_CONTROL], info[UMFPACK_INFO];
    umfpack_dl_defaults(control);
    control[UMFPACK_ORDERING] = metis ? UMFPACK_ORDERING_METIS : UMFPACK_ORDERING_AMD;
    void* symbolicObj = nullptr;
    void* numericObj = nullptr;
    auto t = Clock::now();
    SuiteSparse_long status = umfpack_dl_symbolic(full.n, full.n, start.data(), rows.data(), full.values.data(),
                                                  &symbolicObj, control, info);
    const double symbolic = msSince(t);
    if (status != UMFPACK_OK)
    {
        std::printf("failed           UMFPACK symbolic (status %ld)\n", long(status));
        return 1;
    }
    t = Clock::now();
    status = umfpack_dl_numeric(start.data(), rows.data(), full.values.data(), symbolicObj, &numericObj, control, info);
    const double numeric = msSince(t);
    if (status != UMFPACK_OK)
    {
        std::printf("failed           UMFPACK numeric (status %ld)\n", long(status));
        return 1;
    }
    std::vector<double> x(full.n);
    t = Clock::now();
    umfpack_dl_solve(UMFPACK_A, start.data(), rows.data(), full.values.data(), x.data(), b.data(), numericObj,
                     control, info);
    const double solve = msSince(t);
    report(symbolic, numeric, solve, info[UMFPACK_LNZ] + full.n, info[UMFPACK_FLOPS],
           relativeResidual(full, x, b));
    umfpack_dl_free_symbolic(&symbolicObj);
    umfpack_dl_free_numeric(&numericObj);
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    std::string solver, ordering = "METIS", file;
    for (int i = 1; i < argc; ++i)
    {
        const std::string a = argv[i];
        if (a == "-solver" && i + 1 < argc)
        {
            solver = argv[++i];
        }
        else if (a == "-ordering" && i + 1 < argc)
        {
            ordering = argv[++i];
        }
        else if (a[0] != '-' && file.empty())
        {
            file = a;
        }
        else
        {
            std::fprintf(stderr, "usage: %s -solver CHOLMOD|UMFPACK [-ordering AMD|METIS] matrix.mtx[.gz]\n", argv[0]);
            return 2;
        }
    }
    if ((solver != "CHOLMOD" && solver != "UMFPACK") || (ordering != "AMD" && ordering != "METIS") || file.empty())
    {
        std::fprintf(stderr, "usage: %s -solver CHOLMOD|UMFPACK [-ordering AMD|METIS] matrix.mtx[.gz]\n", argv[0]);
        return 2;
    }
    try
    {
        const gpuLdu::LduMatrixData m = gpuLdu::readMatrixMarket(file);
        if (!m.symmetric() || m.complexValues)
        {
            std::fprintf(stderr, "%s is not real symmetric (the baselines here take real matrices)\n", file.c_str());
            return 1;
        }
        const Csc full = toCsc(m, false);
        std::vector<double> b(m.nCells, 0.0);
        const std::vector<double> ones(m.nCells, 1.0);
        for (int j = 0; j < full.n; ++j)
        {
            for (int p = full.start[j]; p < full.start[j + 1]; ++p)
            {
                b[full.rows[p]] += full.values[p];
            }
        }
        std::printf("%-16s %s\n%-16s %d\n%-16s %s\n%-16s %s\n", "matrix", file.c_str(), "rows", m.nCells, "solver",
                    solver.c_str(), "ordering", ordering.c_str());
        return solver == "CHOLMOD" ? cholmodRun(toCsc(m, true), full, ordering == "METIS", b)
                                   : umfpackRun(full, ordering == "METIS", b);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
}
