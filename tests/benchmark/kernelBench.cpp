// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduBench: kernel and solver timings of the core on one backend (the CUDA build: GPU; the
// host build: CPU), printed as tables. Medians of repeated runs, the device synchronised
// around each. Usage: gpuLduBench [n] [dataDir] [coarsest]   (n^3 Laplacian, default 100;
// tests/data; coarsest: section 4 alone)
//  1. device copy bandwidth (the floor's denominator)
//  2. n^3 pressure-like Laplacian: SpMV, A^T x, DIC factor and apply (one launch, and one launch
//     per level), the vector steps of a PCG iteration, PCG+DIC solves
//  3. PBiCGStab with DILU vs ILU0 on generated and Matrix Market matrices
//  4. GAMG's coarsest PCG+DIC by one team (CoarsestPcg) against the host's loop, us an iteration,
//     on coarsest levels shaped like OpenFOAM's

#include "benchSupport.hpp"
#include "multigrid/CoarsestPcg.hpp"
#include "testSupport.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace gpuLdu;
using namespace gpuLdu::test;

#ifdef __CUDACC__
using Bench = GpuBackend;
#else
using Bench = CpuBackend;
#endif

template<class F>
double medianMs(int reps, const F& f)
{
    return bench::medianMs<Bench>(reps, f);
}

using Vec = Bench::Vector<double>;

//- The n^3 pressure-like Laplacian's timings, one table, step by step: the one-off set-up, the
//  products, DIC's factor and apply, the vector steps of a PCG iteration, whole PCG+DIC solves
class LaplacianBench
{
    const int n_;
    const double bandwidth_;
    const LduProblem p_;
    LduSystemImpl<Bench> sys_;
    const int rows_;
    const double nnz_;
    Vec x_, y_;
    // bytes each must move at least once (fp64 values, int32 indices)
    const double spmvBytes_;
    // per sweep: the packed terms' coefficients and columns (half the off-diagonals); per row rD,
    // in, out, out's notReady fill, the row and its count
    const double sweepBytes_;

public:
    LaplacianBench(int n, double bandwidth)
    :
        n_(n),
        bandwidth_(bandwidth),
        p_(poisson3D(n, n, n, 1, -1)),
        sys_(p_.addressing()),
        rows_(p_.nCells),
        nnz_(rows_ + 2.0*p_.nFaces()),
        spmvBytes_(nnz_*(8 + 4) + rows_*(8.0 + 8 + 4 + 4)),
        sweepBytes_(0.5*(nnz_ - rows_)*(8 + 4) + rows_*(8.0*4 + 4*2))
    {
        sys_.setMatrix(p_.diag.data(), p_.upperCoeffs.data(), nullptr);
        const std::vector<double> xh = randomVector(rows_, 2);
        x_ = Vec(xh.begin(), xh.end());
        y_ = Vec(rows_);
    }

    void run()
    {
        std::printf("\n%d^3 Laplacian: %d rows, %.0f non-zeros, %d lower levels\n",
                    n_, rows_, nnz_, sys_.schedules().lower().nLevels());
        setUp();
        products();
        dic();
        pcgVectorSteps();
        pcgSolves();
    }

private:
    //- A row of the table: ms, the bandwidth of its bytes and its share of the copy's
    void row(const char* what, double ms, double bytes) const
    {
        std::printf("%-44s %10.4f ms %8.2f GB/s %6.1f%% of copy\n", what, ms, bytes/(ms*1e-3)/1e9,
                    100*bytes/(ms*1e-3)/1e12/bandwidth_);
    }

    //- The one-off set-up of a system (once per mesh), piece by piece
    void setUp()
    {
        const LduAddressingView a = p_.addressing();
        const auto setUp = [&](const char* what, double ms)
        {
            std::printf("%-44s %10.4f ms\n", what, ms);
        };
        setUp("set-up: whole system (LduSystemImpl)", medianMs(3, [&]() { LduSystemImpl<Bench> s(a); }));
        setUp("set-up: CSR pattern (CsrMatrix)", medianMs(3, [&]() { CsrMatrix<Bench> A(a); }));
        setUp("set-up: level schedules on the host", medianMs(3, [&]() {
            lowerLevelSchedule(a); upperLevelSchedule(a); }));
        const HostLevelSchedule lowerHost = lowerLevelSchedule(a);
        setUp("set-up: one level schedule to the backend", medianMs(3, [&]() { LevelSchedule<Bench> s(lowerHost); }));
        setUp("set-up: preconditioners (schedules included)", medianMs(3, [&]() {
            TriangleSchedules<Bench> schedules(sys_.matrix());
            Preconditioners<Bench> s(sys_.matrix(), schedules); s.template instance<preconditioners::DicDilu>(); }));
    }

    //- A x, A^T x (and the gather of A^T's values it needs), the upload, the value check
    void products()
    {
        row("SpMV (A x)", medianMs(20, [&]() { sys_.amul(ptr(y_), ptr(x_), Coupling()); }), spmvBytes_);
        row("A^T x from gathered values (per product)", medianMs(20, [&]() { sys_.tmul(ptr(y_), ptr(x_), Coupling()); }),
            spmvBytes_);
        {
            const auto& A = sys_.matrix();
            Vec valT(A.nnz());
            row("gather of A^T's values (once per solve)", medianMs(20, [&]() {
                forEach<Bench>(0, A.nnz(), detail::Gather<double>{ptr(A.transpose), ptr(A.val), ptr(valT)}); }),
                nnz_*(8 + 8 + 4));
        }
        row("setMatrix (upload + permute to CSR)", medianMs(10, [&]() {
            sys_.setMatrix(p_.diag.data(), p_.upperCoeffs.data(), nullptr); }), nnz_*(8 + 8 + 4));
        // once per solve, before iterating: every value of diag, upper, source and psi finite
        row("value check (diag, upper, source, psi)", medianMs(20, [&]() { sys_.checkValues(); }),
            8.0*(3*rows_ + p_.nFaces()));
    }

    //- DIC's factor and apply: one launch per level, one launch (waits on values) with several
    //  block counts, the pivots' check, the row functors' widths, terms from the CSR matrix
    void dic()
    {
        auto& M = sys_.preconditioners();
        const double factorBytes = nnz_*(8 + 8 + 4) + rows_*8.0;
        sys_.schedules().setOneLaunchBlocks(0);
        row("DIC factor (one launch per level)", medianMs(10, [&]() { M.setup(Preconditioner::named("DIC")); }), factorBytes);
        row("DIC apply (two sweeps, one launch per level)", medianMs(20, [&]() { M.apply(ptr(y_), ptr(x_)); }), 2*sweepBytes_);
        sys_.schedules().setOneLaunchBlocks(-1);
        row("DIC factor (one launch)", medianMs(10, [&]() { M.setup(Preconditioner::named("DIC")); }), factorBytes);
        // part of the factor above: the pivots' check, one reduction (the factor's quotients
        // test their pivot too, quotientOrNaN)
        // (its result kept: a volatile store, so that the host compiler cannot drop the reduction)
        volatile int firstBad = 0;
        row("pivot check (one reduction over the pivots)", medianMs(20, [&]() {
            firstBad = firstBadPivot<Bench>(ptr(M.template instance<preconditioners::DicDilu>().rD()), nullptr, rows_); }), rows_*8.0);
        row("DIC apply, waits on values, default blocks", medianMs(20, [&]() { M.apply(ptr(y_), ptr(x_)); }), 2*sweepBytes_);
        for (int blocks : {66, 100, 132, 264, 528})
        {
            sys_.schedules().setOneLaunchBlocks(blocks);
            const std::string what = "DIC apply, waits on values, <= " + std::to_string(blocks) + " blocks";
            row(what.c_str(), medianMs(20, [&]() { M.apply(ptr(y_), ptr(x_)); }), 2*sweepBytes_);
        }
        sys_.schedules().setOneLaunchBlocks(-1);
        row("DIC set-up and the first apply (packs)", medianMs(10, [&]() {
            M.setup(Preconditioner::named("DIC")); M.apply(ptr(y_), ptr(x_)); }), factorBytes + 2*sweepBytes_);
        {
            // the default picks the narrow row functors here (3 terms); the same sweeps by the wide
            Vec mid(rows_);
            const auto& dic = M.template instance<preconditioners::DicDilu>();
            row("DIC apply by 8-term row functors", medianMs(20, [&]() {
                thrust::fill_n(Bench::policy(), ptr(mid), rows_, notReady());
                sys_.schedules().lower().sweep(dic.template forwardSweep<false, 8>(ptr(x_), ptr(mid)));
                thrust::fill_n(Bench::policy(), ptr(y_), rows_, notReady());
                sys_.schedules().upper().sweep(dic.template backwardSweep<false, 8>(ptr(mid), ptr(y_))); }), 2*sweepBytes_);
        }
        M.template instance<preconditioners::DicDilu>().setPackedWidth(0);
        row("DIC apply, terms read from the CSR matrix", medianMs(20, [&]() { M.apply(ptr(y_), ptr(x_)); }), 2*sweepBytes_);
        M.template instance<preconditioners::DicDilu>().setPackedWidth(detail::SweepRowTerms::maxTerms);
    }

    //- The vector steps of one PCG iteration (Pcg.hpp), each with its reduction's transfer
    void pcgVectorSteps()
    {
        Vec w(x_);
        Vec q(x_);
        Vec z(rows_, 0.0);
        using S = detail::CgScalars;
        auto& ws = sys_.workspace();
        ws.store(S::wArAEven, 1.0);
        ws.store(S::wArAOdd, 2.0);
        ws.store(S::wApA, 1e3);
        const Coupling serial;
        const std::vector<int> onePart{0, rows_};
        DeviceScalars<Bench> sums(ws, serial, onePart);
        const S sc = S::at<Bench>(sums.values(), S::wArA(0), 1.0);
        row("PCG: w.r (sum, result to the host)", medianMs(20, [&]() {
            sums.gSum(detail::Dot{ptr(w), ptr(x_)}); }), rows_*16.0);
        row("PCG: w.r (sum kept on the device)", medianMs(20, [&]() {
            sums.sumInto(detail::Dot{ptr(w), ptr(x_)}, S::residualSum); }), rows_*16.0);
        row("PCG: p = w + beta p", medianMs(20, [&]() {
            forEach<Bench>(0, rows_, detail::UpdateSearchDirection{ptr(w), ptr(q), sc, false}); }), rows_*24.0);
        row("PCG: psi += a p, r -= a w, sum |r|", medianMs(20, [&]() {
            sums.gSum(detail::UpdateSolutionAndResidual{ptr(q), ptr(w), ptr(z), ptr(y_), sc}); }), rows_*48.0);
    }

    //- A PCG+DIC solve to 1e-6, and the steady cost of an iteration
    void pcgSolves()
    {
        std::vector<double> psi(rows_, 0.0);
        const std::vector<double> b = referenceSource(p_);
        SolverControls c;
        c.tolerance = 1e-6;
        c.maxIter = 2000;
        const SolveResult r = sys_.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), Coupling());
        std::printf("%-44s %10.4f ms per iteration (%d iterations, %.1f ms solve)\n", "PCG+DIC solve to 1e-6",
                    1e3*r.times.iterate/std::max(1, r.nIterations), r.nIterations,
                    1e3*(r.times.upload + r.times.setup + r.times.iterate));
        // the solve's own time per iteration holds its one-off work (initial residual, the first
        // apply's packing, psi back to the host) too; a solve of 2N iterations less one of N does not
        c.tolerance = 0;
        const auto iterateMs = [&](int iterations)
        {
            c.maxIter = iterations;
            return medianMs(5, [&]() {
                std::fill(psi.begin(), psi.end(), 0.0);
                sys_.solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c, Preconditioner::named("DIC"), Coupling()); });
        };
        const int steady = 100;
        std::printf("%-44s %10.4f ms per iteration (solves of %d and %d iterations)\n", "PCG+DIC iteration, steady",
                    (iterateMs(2*steady) - iterateMs(steady))/steady, 2*steady, steady);
    }
};

void diluVersusIlu0(const std::string& dataDir)
{
    std::printf("\nPBiCGStab, tolerance 1e-8: DILU vs ILU0 (iterations, ms per solve incl. set-up)\n");
    std::printf("%-34s %8s %10s %10s %10s %10s\n", "matrix", "rows", "DILU its", "DILU ms", "ILU0 its", "ILU0 ms");
    std::vector<std::pair<std::string, LduProblem>> cases = {
        {"convection-diffusion 60^3 (hex)", asymmetric(60, 60, 60, 3)},
        {"triangles 400x400", withTriangles(400, 400, 4)},
    };
    for (const char* name : {"sherman5", "orsirr_1", "openfoam_elbow_Ux0"})
    {
        cases.push_back({name, test::readMatrixMarket(dataDir + "/" + name + ".mtx.gz")});
    }
    for (const auto& item : cases)
    {
        const std::string& name = item.first;
        const LduProblem& p = item.second;
        LduSystemImpl<Bench> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> b = referenceSource(p);
        SolverControls c;
        c.tolerance = 1e-8;
        c.maxIter = 5000;
        int its[2];
        double ms[2];
        int k = 0;
        for (Preconditioner type : {Preconditioner::named("DILU"), Preconditioner::named("ILU0")})
        {
            SolveResult r;
            ms[k] = medianMs(3, [&]() {
                std::vector<double> psi(p.nCells, 0.0);
                r = sys.solve(KrylovMethod::named("PBiCGStab"), psi.data(), b.data(), c, type, Coupling()); });
            its[k++] = r.nIterations;
        }
        std::printf("%-34s %8d %10d %10.3f %10d %10.3f\n", name.c_str(), p.nCells, its[0], ms[0], its[1], ms[1]);
    }
}

//- A coarsest level shaped like OpenFOAM's agglomerated one of a group of ranks: a lattice of
//  (rx bx) x (ry by) x (rz bz) cells, rank by rank a block of bx x by x bz (its rows together, in
//  rank order); each cell joined to its neighbours across faces and, with edges, across edges too
//  (18 neighbours: agglomerated cells touch more cells than a hexahedron's six). Joins within a
//  block are faces; between blocks, interface terms (the processor faces of a group's ranks, which
//  the level holds as device couplings). Off-diagonals -1 to -2, the diagonal their magnitudes'
//  sum and 1%.
LduProblem coarsestLike(int rx, int ry, int rz, int bx, int by, int bz, bool edges)
{
    const int nx = rx*bx;
    const int ny = ry*by;
    const int nz = rz*bz;
    const int perRank = bx*by*bz;
    // row of lattice cell (x, y, z): its rank's block, then lexicographic within the block
    const auto rankOf = [&](int x, int y, int z) { return (z/bz*ry + y/by)*rx + x/bx; };
    const auto rowOf = [&](int x, int y, int z)
    {
        return rankOf(x, y, z)*perRank + ((z % bz)*by + y % by)*bx + x % bx;
    };
    LduProblem p;
    p.nCells = nx*ny*nz;
    p.diag.assign(p.nCells, 0.0);
    std::vector<std::pair<int, int>> joins;
    for (int z = 0; z < nz; ++z)
    for (int y = 0; y < ny; ++y)
    for (int x = 0; x < nx; ++x)
    for (int dz = -1; dz <= 1; ++dz)
    for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx)
    {
        const int offsets = std::abs(dx) + std::abs(dy) + std::abs(dz);
        const int X = x + dx, Y = y + dy, Z = z + dz;
        if (offsets == 0 || offsets > (edges ? 2 : 1) || X < 0 || Y < 0 || Z < 0 || X >= nx || Y >= ny || Z >= nz)
        {
            continue;
        }
        const int a = rowOf(x, y, z);
        const int b = rowOf(X, Y, Z);
        if (a < b)
        {
            joins.push_back({a, b});
        }
    }
    std::sort(joins.begin(), joins.end());
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> coeff(1, 2);
    for (const auto& [a, b] : joins)
    {
        const double c = coeff(rng);
        p.diag[a] += c;
        p.diag[b] += c;
        if (a/perRank == b/perRank)
        {
            p.lower.push_back(a);
            p.upper.push_back(b);
            p.upperCoeffs.push_back(-c);
        }
        else
        {
            p.ifCell.insert(p.ifCell.end(), {a, b});
            p.ifNbr.insert(p.ifNbr.end(), {b, a});
            p.ifCoeff.insert(p.ifCoeff.end(), {c, c});
        }
    }
    for (double& d : p.diag)
    {
        d *= 1.01;
    }
    return p;
}

//- The coarsest PCG+DIC by one team (CoarsestPcg) and by the host's loop (LduSystem on the CPU
//  executor with the team's parts), us an iteration: solves of 1 and of up to 41 iterations (no
//  tolerance; the difference over the iterations' difference), each the median of 20
void coarsestTeam()
{
    std::printf("\nGAMG's coarsest PCG+DIC by one team against the host's loop (us an iteration)\n");
    std::printf("%-34s %6s %6s %8s %9s %7s %7s %9s %9s\n", "level", "rows", "parts", "largest",
                "lower p0", "nnz", "terms", "team us", "host us");
    struct Shape
    {
        const char* name;
        int rx, ry, rz, bx, by, bz;
        bool edges;
    };
    for (const Shape& s : {Shape{"64 ranks of 2x3x2, 18 neighbours", 4, 4, 4, 2, 3, 2, true},
                           Shape{"64 ranks of 2x3x2, 6 neighbours", 4, 4, 4, 2, 3, 2, false},
                           Shape{"32 ranks of 2x3x2, 18 neighbours", 4, 4, 2, 2, 3, 2, true},
                           Shape{"16 ranks of 3x3x3, 18 neighbours", 4, 2, 2, 3, 3, 3, true},
                           Shape{"27 ranks of 3x3x3, 18 neighbours", 3, 3, 3, 3, 3, 3, true},
                           Shape{"64 ranks of 2x2x2, 18 neighbours", 4, 4, 4, 2, 2, 2, true},
                           Shape{"8 ranks of 2x3x2, 18 neighbours", 2, 2, 2, 2, 3, 2, true}})
    {
        const LduProblem p = coarsestLike(s.rx, s.ry, s.rz, s.bx, s.by, s.bz, s.edges);
        const std::vector<int> parts = CoarsestPcg<Bench>::teamParts(p.nCells, p.lower, p.upper);
        LduSystemImpl<Bench> level(p.addressing());
        auto host = makeLduSystem(Executor::cpu, p.addressing());
        host->setParts(parts);
        setCoupledProblem(level, p);
        setCoupledProblem(*host, p);
        const Coupling none;
        if (!CoarsestPcg<Bench>::usable(level, none, true, parts))
        {
            std::printf("%-34s not the team's\n", s.name);
            continue;
        }
        int largest = 0;
        long largestLower = 0;
        for (std::size_t q = 0; q + 1 < parts.size(); ++q)
        {
            largest = std::max(largest, parts[q + 1] - parts[q]);
        }
        for (int f = 0; f < p.nFaces(); ++f)
        {
            // the lower entries of the first part's rows: its DIC chain's length each way
            largestLower += p.upper[f] < parts[1];
        }
        CoarsestPcg<Bench> team;
        team.setMatrix(level, parts);
        const std::vector<double> b = referenceSource(p);
        Vec src(b.begin(), b.end());
        Vec corr(p.nCells);
        SolverControls c;
        c.tolerance = 0;
        // us an iteration: (t(many) - t(1))/(its(many) - its(1)), the iterations as counted
        const auto perIteration = [&](const auto& run, const auto& count)
        {
            double ms[2];
            long its[2];
            int k = 0;
            for (int maxIter : {1, 41})
            {
                c.maxIter = maxIter;
                const long before = count();
                ms[k] = medianMs(20, run);
                its[k] = (count() - before)/21;
                ++k;
            }
            return 1e3*(ms[1] - ms[0])/std::max(1L, its[1] - its[0]);
        };
        long hostIts = 0;
        std::vector<double> psi(p.nCells);
        const double teamUs = perIteration([&]() { team.solve(level, ptr(src), ptr(corr), c); },
                                           [&]() { return team.iterations(); });
        const double hostUs = perIteration(
            [&]() {
                std::fill(psi.begin(), psi.end(), 0.0);
                hostIts += host->solve(KrylovMethod::named("PCG"), psi.data(), b.data(), c,
                                       Preconditioner::named("DIC"), none).nIterations; },
            [&]() { return hostIts; });
        std::printf("%-34s %6d %6d %8d %9ld %7d %7zu %9.2f %9.2f\n", s.name, p.nCells, int(parts.size()) - 1,
                    largest, largestLower, level.matrix().nnz(), p.ifCell.size(), teamUs, hostUs);
    }
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 100;
    const std::string dataDir = argc > 2 ? argv[2] : GPULDU_TEST_DATA_DIR;
    const bool coarsestOnly = argc > 3 && std::string(argv[3]) == "coarsest";
    try
    {
        const double bandwidth = bench::copyBandwidth<Bench>();
        std::printf("gpuLduBench, %s backend: device copy bandwidth %.2f TB/s (read + write)\n",
                    Bench::executor == Executor::gpu ? "gpu" : "cpu", bandwidth);
        if (!coarsestOnly)
        {
            LaplacianBench(n, bandwidth).run();
            diluVersusIlu0(dataDir);
        }
        coarsestTeam();
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "gpuLduBench: %s\n", e.what());
        return 1;
    }
    return 0;
}
