// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest solve (OpenFOAM's PCG with DIC from a zero correction, to GAMG's tolerance and
// relTol) as one team of threads: on the GPU one block runs every iteration in one launch, so
// the coarsest solve stays inside the V-cycle's recording (no wait for the host, no host round
// trip per V-cycle); on the host the team is one thread (the portable twin, bit for bit). The
// arithmetic is the host LduSystem's (LduSystemImpl::solveResident with PCG, DIC and the team's
// parts as the system's parts) but for the preconditioner's rounding:
//   start      psi = 0, r = source; normFactor = sum|source| + 1e-20 (OpenFOAM's normFactor at
//              psi = 0: A psi = 0 and xRef = 0), initial residual sum|r|/normFactor
//   iteration  w = M^-1 r, M^-1 = blockdiag(Z_q): part q's DIC inverse as a dense matrix, its
//                column k the DIC sweeps of the unit vector e_k (DicDilu's arithmetic, made
//                once a solve: PartInverseColumn); w[i] = sum_k Z_q[i][k] r[k], k ascending
//              wArA = w.r;  p = w (first) or w + (wArA/wArA_old) p
//              w = A p (SpmvRow's order: diagonal, lower, upper; then the device couplings' terms)
//              wApA = w.p: stop where |wApA|/normFactor is singular
//              psi += alpha p, r -= alpha w (alpha = wArA/wApA); residual sum|r|/normFactor
//   stop       OpenFOAM's: maxIter, minIter, tolerance, relTol; a non-finite residual
// Each sum is taken per part (rows that no face joins, CoarsestPcg::teamParts: its own DIC block
// and its own partial sum, in row order), then over the parts in order (Coupling::sum).
// Why Z: a part's DIC sweeps are chains of dependent rows (a rank's block of a coarsest level:
// 8-30 rows, each joined to most others), one thread's work, about 500 cycles a row in the
// team however its loads were ordered (half of each iteration: What was tried in
// docs/performance.md); Z_q r is a row's independent products, a thread a row. Z applies the
// same preconditioner, its rounding another: the team's iterations are the host loop's but
// where rounding decides (on the executor gpu only; the CPU executor never solves by the team).
// Per iteration the team meets seven times (barriers). Everything the loop reads but Z lives
// in the team's scratch (the block's shared memory), the matrix and its terms copied there once
// a launch; Z (sum of the parts' rows squared) is read from global memory. A row's columns may
// come in any order (OpenFOAM's agglomerated levels sort faces by owner only): the product and
// the sweeps read them in the host's order.

#ifndef GPULDU_COARSESTPCG_HPP
#define GPULDU_COARSESTPCG_HPP

#include "krylov/LduSystemImpl.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- The PCG+DIC solve of a level by one team (see the file's head): its vectors and the parts'
//  partial sums in the team's scratch (the GPU block's shared memory: scratchDoubles), the
//  correction written to corr at the end; iterations: the solve's iterations added there (by the
//  team's first thread)
struct CoarsestPcgTeam
{
    //- The level's arrays the loop reads (in the team's scratch once staged)
    struct Arrays
    {
        const int* partStart;
        const int* rowStart;
        const int* col;
        const int* diagPos;
        const double* val;
        //- The device couplings' terms by row (InterfaceRowTerms without a halo; none: nTerms 0)
        const int* termStart;
        const int* termCols;
        const double* termC;
        //- The parts' inverses (global memory, not staged): row i's part, the start of each
        //  part's Z (column-major, sum of the parts' rows squared in all)
        const int* partOf;
        const int* zStart;
        const double* z;
    };

    int n;
    int nParts;
    int nnz;
    int nTerms;
    Arrays global;
    const double* source;
    double* corr;
    long* iterations;
    SolverControls controls;

    //- psi, r, w, p (n each), 3 x nParts partial sums, the values and the terms' coefficients;
    //  then the ints (two to a double): the row starts, columns, diagonal positions, part
    //  starts, the terms' row starts and columns
    static int scratchDoubles(int n, int nParts, int nnz, int nTerms)
    {
        const long doubles = 4L*n + 3L*nParts + nnz + nTerms;
        const long ints = 3L*n + 2 + nnz + nParts + 1 + 1 + nTerms;
        const long total = doubles + (ints + 1)/2;
        return total > (1L << 30) ? (1 << 30) : int(total);
    }

    //- count values from src to dst by the team's lanes
    template<class T, class Team>
    GPULDU_HD static void copy(const Team& t, const T* src, T* dst, int count)
    {
        for (int i = t.lane(); i < count; i += t.size())
        {
            dst[i] = src[i];
        }
    }

    //- The arrays copied into the scratch past the vectors and partials (every lane; a barrier
    //  after)
    template<class Team>
    GPULDU_HD Arrays stage(const Team& t, double* at) const
    {
        double* val = at;
        double* termC = val + nnz;
        int* rowStart = reinterpret_cast<int*>(termC + nTerms);
        int* col = rowStart + n + 1;
        int* diagPos = col + nnz;
        int* partStart = diagPos + n;
        int* termStart = partStart + nParts + 1;
        int* termCols = termStart + n + 1;
        copy(t, global.val, val, nnz);
        copy(t, global.rowStart, rowStart, n + 1);
        copy(t, global.col, col, nnz);
        copy(t, global.diagPos, diagPos, n);
        copy(t, global.partStart, partStart, nParts + 1);
        if (nTerms > 0)
        {
            copy(t, global.termC, termC, nTerms);
            copy(t, global.termStart, termStart, n + 1);
            copy(t, global.termCols, termCols, nTerms);
        }
        t.sync();
        return {partStart, rowStart, col, diagPos, val, termStart, termCols, termC,
                global.partOf, global.zStart, global.z};
    }

    //- (M^-1 r)[i] = sum_k Z_q[i][k] r[first_q + k], k ascending (q: row i's part)
    GPULDU_HD static double precondition(const Arrays& a, int i, const double* r)
    {
        const int q = a.partOf[i];
        const int first = a.partStart[q];
        const int m = a.partStart[q + 1] - first;
        const double* zi = a.z + a.zStart[q] + (i - first);
        double s = 0;
        for (int k = 0; k < m; ++k)
        {
            s = s + zi[k*m]*r[first + k];
        }
        return s;
    }

    //- The part's partial sum of x.y, in row order
    GPULDU_HD static double partDot(const Arrays& a, int q, const double* x, const double* y)
    {
        double s = 0;
        for (int i = a.partStart[q]; i < a.partStart[q + 1]; ++i)
        {
            s = s + x[i]*y[i];
        }
        return s;
    }

    //- (A p)[i]: SpmvRow's sum, then the device couplings' terms subtracted in
    //  ApplyCouplings' order (here found by row, as InterfaceRowTerms finds them)
    GPULDU_HD double product(const Arrays& a, int i, const double* p) const
    {
        double yi = detail::SpmvRow::row(a.rowStart, a.col, a.diagPos, a.val, p, i);
        if (nTerms > 0)
        {
            for (int k = a.termStart[i]; k < a.termStart[i + 1]; ++k)
            {
                yi -= a.termC[k]*p[a.termCols[k]];
            }
        }
        return yi;
    }

    //- The parts' partials summed in part order (every thread)
    GPULDU_HD double total(const double* partials) const
    {
        double s = 0;
        for (int q = 0; q < nParts; ++q)
        {
            s += partials[q];
        }
        return s;
    }

    //- The loop's vectors and the parts' partial sums in the team's scratch
    struct Vectors
    {
        double* psi;
        double* r;
        double* w;
        double* p;
        double* wArA;
        double* wApA;
        double* residual;
    };

    //- psi = 0, r = source, each part's sum of |source| into residual (a barrier after)
    template<class Team>
    GPULDU_HD void start(const Team& t, const Arrays& a, const Vectors& v) const
    {
        for (int q = t.lane(); q < nParts; q += t.size())
        {
            double s = 0;
            for (int i = a.partStart[q]; i < a.partStart[q + 1]; ++i)
            {
                v.psi[i] = 0;
                v.r[i] = source[i];
                s = s + (0.0 + magnitude(source[i]));
            }
            v.residual[q] = s;
        }
        t.sync();
    }

    //- Each part's partial of x.y into partials, then their total (every thread)
    template<class Team>
    GPULDU_HD double dot(const Team& t, const Arrays& a, double* partials, const double* x, const double* y) const
    {
        for (int q = t.lane(); q < nParts; q += t.size())
        {
            partials[q] = partDot(a, q, x, y);
        }
        t.sync();
        return total(partials);
    }

    //- PCG iteration nIter (the file's head): false where wApA is singular (psi and r
    //  untouched); else res the new residual and wArAOld this iteration's w.r
    template<class Team>
    GPULDU_HD bool iteration(const Team& t, const Arrays& a, const Vectors& v, int nIter, double normFactor,
                             double& wArAOld, double& res) const
    {
        const int lane = t.lane();
        const int size = t.size();
        for (int i = lane; i < n; i += size)
        {
            v.w[i] = precondition(a, i, v.r);
        }
        t.sync();
        const double wArANow = dot(t, a, v.wArA, v.w, v.r);
        const double beta = nIter == 0 ? 0 : wArANow/wArAOld;
        for (int i = lane; i < n; i += size)
        {
            v.p[i] = nIter == 0 ? v.w[i] : v.w[i] + beta*v.p[i];
        }
        t.sync();
        for (int i = lane; i < n; i += size)
        {
            v.w[i] = product(a, i, v.p);
        }
        t.sync();
        const double wApANow = dot(t, a, v.wApA, v.w, v.p);
        if (isSingular(magnitude(wApANow)/normFactor))
        {
            return false;
        }
        // psi and r row by row over the team, then each part's sum of |r| (in a part's
        // thread, a row's update waited on the row before: 4.1k cycles an iteration
        // against 2.5k on 64 parts of 12 rows, H200, clock64 probes)
        const double alpha = wArANow/wApANow;
        for (int i = lane; i < n; i += size)
        {
            v.psi[i] += alpha*v.p[i];
            v.r[i] -= alpha*v.w[i];
        }
        t.sync();
        for (int q = lane; q < nParts; q += size)
        {
            double s = 0;
            for (int i = a.partStart[q]; i < a.partStart[q + 1]; ++i)
            {
                s = s + magnitude(v.r[i]);
            }
            v.residual[q] = s;
        }
        t.sync();
        res = total(v.residual)/normFactor;
        wArAOld = wArANow;
        return true;
    }

    template<class Team>
    GPULDU_HD void operator()(int, const Team& t) const
    {
        double* psi = t.scratch();
        double* r = psi + n;
        double* w = r + n;
        double* p = w + n;
        double* wArA = p + n;
        double* wApA = wArA + nParts;
        double* residual = wApA + nParts;
        const Vectors v{psi, r, w, p, wArA, wApA, residual};
        const Arrays a = stage(t, residual + nParts);

        // normFactor and the initial residual from sum|source|
        start(t, a, v);
        const double normFactor = total(residual) + 1e-20;
        const double initial = total(residual)/normFactor;
        double res = initial;
        const auto converged = [&](double x) { return isConverged(x, initial, controls); };
        int nIter = 0;
        if (isFiniteValue(initial) && (controls.minIter > 0 || !converged(initial)))
        {
            double wArAOld = 0;
            do
            {
                if (!iteration(t, a, v, nIter, normFactor, wArAOld, res))
                {
                    break;
                }
                if (!isFiniteValue(res))
                {
                    ++nIter;
                    break;
                }
            } while ((++nIter < controls.maxIter && !converged(res)) || nIter < controls.minIter);
        }
        t.sync();
        for (int i = t.lane(); i < n; i += t.size())
        {
            corr[i] = psi[i];
        }
        if (t.lane() == 0)
        {
            *iterations += nIter;
        }
    }
};

//- Column k of part q's DIC inverse Z_q = M_q^-1 by the thread of the part's row first + k: the
//  unit vector e_k swept in place by DicDilu's sweeps over the part's rows (rowOrderSweeps),
//  stored at z + zStart[q] + k m (Z_q column-major; zStart[q] >= first as m^2 >= m, so the
//  column's view by global row, column - first, stays inside z)
struct PartInverseColumn
{
    const int* partOf;
    const int* partStart;
    const int* zStart;
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* rD;
    double* z;

    GPULDU_HD void operator()(int row) const
    {
        const int q = partOf[row];
        const int first = partStart[q];
        const int end = partStart[q + 1];
        const int m = end - first;
        double* column = z + zStart[q] + (row - first)*m;
        for (int l = 0; l < m; ++l)
        {
            column[l] = l == row - first ? 1.0 : 0.0;
        }
        double* x = column - first;
        rowOrderSweeps<false>(first, end, rowStart, col, diagPos, nullptr, val, rD, x, x, x);
    }
};

} // namespace detail

//- GAMG's coarsest level solved by CoarsestPcgTeam on the level's backend: usable where the
//  level is symmetric, its interface terms are all its own (device couplings: no host
//  interfaces, no halo), its sums are local (one GPU's group: the team chooses their order), it
//  splits into parts of at most maxPartRows consecutive rows that no face joins (a group's
//  ranks' blocks are such parts: their processor faces are device terms) and its vectors and
//  matrix fit the team's scratch (227 KiB on Hopper: about 4000 rows of a hexahedral mesh's
//  coarsest level). The team's parts are its DIC blocks and its sums' order:
//  each part's partial sum in row order, then the partials in part order (the host's PCG with
//  the same parts, but for the rounding of the DIC applied as each part's inverse)
template<class B>
class CoarsestPcg
{
    using Level = LduSystemImpl<B>;
    template<class T>
    using Vector = typename B::template Vector<T>;

    Vector<int> partStart_;
    std::vector<int> parts_;
    //- The parts' DIC inverses (PartInverseColumn): each row's part, each part's start in z_
    Vector<int> partOf_;
    Vector<int> zStart_;
    Vector<double> z_;
    Vector<long> iterations_;
    //- A bad pivot of the DIC factor: thrown by the next solve (where GAMG iterates)
    std::unique_ptr<ValueError> badPivot_;

public:
    //- A part of m rows: m^2 values of its inverse, m products a row an iteration, m sweeps a
    //  solve to make its inverse (one thread each): a rank's coarsest level holds about
    //  nCellsInCoarsestLevel rows (10 by default)
    static constexpr int maxPartRows = 128;
    //- The team: one block of this many threads on the GPU
    static constexpr int teamSize = 256;

    //- The starts of the team's parts of a level of n rows with faces (lower, upper): its
    //  finest split into consecutive rows that no face joins, neighbouring pieces merged until
    //  a part has partRows rows (8, or more where the rows outnumber the team's threads 8 to
    //  one): each part one DIC block and one partial sum of the team's
    static std::vector<int> teamParts(int n, const std::vector<int>& lower, const std::vector<int>& upper)
    {
        // reach[i]: the highest row a face of row i reaches (i itself where none)
        std::vector<int> reach(n);
        for (int i = 0; i < n; ++i)
        {
            reach[i] = i;
        }
        for (std::size_t f = 0; f < lower.size(); ++f)
        {
            const int l = std::min(lower[f], upper[f]);
            reach[l] = std::max(reach[l], std::max(lower[f], upper[f]));
        }
        const int partRows = std::max(8, (n + teamSize - 1)/teamSize);
        std::vector<int> parts{0};
        int furthest = -1;
        for (int i = 0; i < n; ++i)
        {
            furthest = std::max(furthest, reach[i]);
            // rows [parts.back(), i] end a piece where no face reaches past i
            const bool pieceEnds = furthest == i;
            const bool full = i + 1 - parts.back() >= partRows;
            if (pieceEnds && (full || i + 1 == n))
            {
                parts.push_back(i + 1);
            }
        }
        if (n == 0)
        {
            parts.push_back(0);
        }
        return parts;
    }

    //- Whether it solves the level in the parts (teamParts)
    static bool usable(const Level& level, const Coupling& coupling, bool symmetric, const std::vector<int>& parts)
    {
        int largest = 0;
        for (std::size_t q = 0; q + 1 < parts.size(); ++q)
        {
            largest = std::max(largest, parts[q + 1] - parts[q]);
        }
        const int nParts = int(parts.size()) - 1;
        return symmetric && !level.hasHalo() && !level.hasHostInterfaces(coupling) && coupling.sumsAreLocal()
            && largest <= maxPartRows
            && scratchDoubles(level, nParts) <= B::teamScratchDoubles();
    }

    //- The team's scratch for the level in nParts parts
    static int scratchDoubles(const Level& level, int nParts)
    {
        return detail::CoarsestPcgTeam::scratchDoubles(level.n(), nParts, level.matrix().nnz(),
                                                       level.nDeviceCouplingTerms());
    }

    CoarsestPcg()
    :
        iterations_(1)
    {}

private:
    //- The parts and where each part's inverse lives (rows of a part squared, one after another)
    void setParts(const std::vector<int>& parts)
    {
        parts_ = parts;
        const int nParts = int(parts.size()) - 1;
        std::vector<int> partOf(parts.back());
        std::vector<int> zStart(parts.size(), 0);
        for (int q = 0; q < nParts; ++q)
        {
            const int m = parts[q + 1] - parts[q];
            std::fill(partOf.begin() + parts[q], partOf.begin() + parts[q + 1], q);
            zStart[q + 1] = zStart[q] + m*m;
        }
        partStart_.resize(parts.size());
        B::upload(ptr(partStart_), parts.data(), parts.size());
        partOf_.resize(partOf.size());
        B::upload(ptr(partOf_), partOf.data(), partOf.size());
        zStart_.resize(zStart.size());
        B::upload(ptr(zStart_), zStart.data(), zStart.size());
        z_.resize(zStart.back());
    }

public:

    //- Per solve, with the level's new values: the DIC factor (rD) and the parts' inverses, the
    //  parts (teamParts), the iteration count zeroed
    void setMatrix(Level& level, const std::vector<int>& parts)
    {
        if (parts != parts_)
        {
            setParts(parts);
        }
        const long zero = 0;
        B::upload(ptr(iterations_), &zero, 1);
        badPivot_.reset();
        try
        {
            level.preconditioners().setup(Preconditioner(PreconditionerRegistry::idFor<preconditioners::DicDilu>(true)));
        }
        catch (const ValueError& e)
        {
            badPivot_ = std::make_unique<ValueError>(e);
            return;
        }
        const CsrMatrix<B>& A = level.matrix();
        forEach<B>(0, level.n(), detail::PartInverseColumn{
            ptr(partOf_), ptr(partStart_), ptr(zStart_), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val),
            ptr(level.preconditioners().template instance<preconditioners::DicDilu>().rD()), ptr(z_)});
    }

    //- corr = the coarsest correction for src (backend arrays), queued on the backend's stream
    void solve(Level& level, const double* src, double* corr, const SolverControls& controls)
    {
        if (badPivot_)
        {
            throw *badPivot_;
        }
        const CsrMatrix<B>& A = level.matrix();
        const detail::InterfaceRowTerms terms = level.interfaceRowTerms();
        const detail::CoarsestPcgTeam team{
            level.n(), int(parts_.size()) - 1, A.nnz(), level.nDeviceCouplingTerms(),
            {ptr(partStart_), ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val),
             terms.rowStart, terms.cols, terms.c, ptr(partOf_), ptr(zStart_), ptr(z_)},
            src, corr, ptr(iterations_), controls};
        B::forEachTeam(0, 1, teamSize, team, scratchDoubles(level, team.nParts));
    }

    //- The iterations of the solves since setMatrix (one transfer)
    long iterations()
    {
        long its = 0;
        B::download(&its, ptr(iterations_), 1);
        return its;
    }
};

} // namespace gpuLdu

#endif
