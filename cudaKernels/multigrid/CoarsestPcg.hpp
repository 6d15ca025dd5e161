// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest solve (OpenFOAM's PCG with DIC from a zero correction, to GAMG's tolerance and
// relTol) as one team of threads: on the GPU one block runs every iteration in one launch, so
// the coarsest solve stays inside the V-cycle's recording (no wait for the host, no host round
// trip per V-cycle); on the host the team is one thread (the portable twin). The arithmetic is
// the host LduSystem's (LduSystemImpl::solveResident with PCG, DIC and the team's parts as the
// system's parts), bit for bit:
//   start      psi = 0, r = source; normFactor = sum|source| + 1e-20 (OpenFOAM's normFactor at
//              psi = 0: A psi = 0 and xRef = 0), initial residual sum|r|/normFactor
//   iteration  w = M^-1 r (DIC of each part: forward  w[i] = rD[i] r[i] - sum_{j<i} (rD[i] A[i][j]) w[j]
//                                        backward w[i] -= sum_{j>i, descending} (rD[i] A[i][j]) w[j])
//              wArA = w.r;  p = w (first) or w + (wArA/wArA_old) p
//              w = A p (SpmvRow's order: diagonal, lower, upper; then the device couplings' terms)
//              wApA = w.p: stop where |wApA|/normFactor is singular
//              psi += alpha p, r -= alpha w (alpha = wArA/wApA); residual sum|r|/normFactor
//   stop       OpenFOAM's: maxIter, minIter, tolerance, relTol; a non-finite residual
// Each sum is taken per part (rows that no face joins, CoarsestPcg::teamParts: its own DIC block
// and its own partial sum, in row order), then over the parts in order (Coupling::sum).
// Per iteration the team meets six times (barriers); one thread a part runs the part's
// sequential work (the DIC sweeps, the partial sums), which bounds the part's rows (maxPartRows).
// Everything the loop reads lives in the team's scratch (the block's shared memory), the matrix,
// its factor and terms copied there once a launch: the DIC sweeps are chains of dependent loads,
// each a trip to L2 (about 0.3 us) where they are global memory, about 30 cycles in shared memory.
// There the level takes the team's layout (CoarsestPcg::Layout): after a part of an even number
// of rows one unused row, so that each part's rows and entries (its rows and twice its faces)
// start an odd number of places after the part before. The parts' threads read at their parts'
// strides, and parts of one size (one decomposition on every rank: each rank's coarsest block the
// same) at an even stride share a few of the 32 banks of shared memory, each read replayed per
// thread: on 64 parts of 12 rows the sweeps took 29.6k cycles an iteration, 15.5k at odd strides
// (H200, gpuLduBench's coarsest section; clock64 probes).
// With the vectors in shared memory and the matrix in global memory an iteration took 35 us (443
// rows in 32 parts, 2 x H200: about 1 us a row of a part's sweeps), the host's loop 15-32 us; as
// it is, on OpenFOAM's 8M cavity3D level of 64 ranks (864 rows, about 108 parts; H200) 24.6 us
// against the host loop's 44.2. A row's columns may come in any order (OpenFOAM's agglomerated
// levels sort faces by owner only): the team reads them in the host's order.

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
    //- The level's arrays the loop reads, in the team's layout (in the team's scratch once
    //  staged): part q's rows [partStart[q], partEnd[q]), unused rows between parts
    struct Arrays
    {
        const int* partStart;
        const int* partEnd;
        const int* rowStart;
        const int* col;
        const int* diagPos;
        const double* val;
        const double* rD;
        //- The device couplings' terms by row (InterfaceRowTerms without a halo; none: nTerms 0)
        const int* termStart;
        const int* termCols;
        const double* termC;
    };

    //- Rows and entries in the team's layout (unused ones included)
    int n;
    int nParts;
    int nnz;
    int nTerms;
    //- The layout's arrays; val, rD and termC the level's own, in its order (val and rD
    //  gathered by entrySource and rowSource as they are staged)
    Arrays global;
    //- The level's row of each row of the layout, its entry of each entry (-1: unused; an
    //  unused row's one entry its diagonal, 1)
    const int* rowSource;
    const int* entrySource;
    const double* source;
    double* corr;
    long* iterations;
    SolverControls controls;

    //- psi, r, w, p (n each), 3 x nParts partial sums, the values, rD and the terms'
    //  coefficients; then the ints (two to a double): the row starts, columns, diagonal
    //  positions, part starts and ends, the terms' row starts and columns
    static int scratchDoubles(int n, int nParts, int nnz, int nTerms)
    {
        const long doubles = 5L*n + 3L*nParts + nnz + nTerms;
        const long ints = 3L*n + 2 + nnz + 2L*nParts + 1 + 1 + nTerms;
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
        double* rD = val + nnz;
        double* termC = rD + n;
        int* rowStart = reinterpret_cast<int*>(termC + nTerms);
        int* col = rowStart + n + 1;
        int* diagPos = col + nnz;
        int* partStart = diagPos + n;
        int* partEnd = partStart + nParts + 1;
        int* termStart = partEnd + nParts;
        int* termCols = termStart + n + 1;
        for (int e = t.lane(); e < nnz; e += t.size())
        {
            const int k = entrySource[e];
            val[e] = k >= 0 ? global.val[k] : 1.0;
        }
        for (int i = t.lane(); i < n; i += t.size())
        {
            const int j = rowSource[i];
            rD[i] = j >= 0 ? global.rD[j] : 0.0;
        }
        copy(t, global.rowStart, rowStart, n + 1);
        copy(t, global.col, col, nnz);
        copy(t, global.diagPos, diagPos, n);
        copy(t, global.partStart, partStart, nParts + 1);
        copy(t, global.partEnd, partEnd, nParts);
        if (nTerms > 0)
        {
            copy(t, global.termC, termC, nTerms);
            copy(t, global.termStart, termStart, n + 1);
            copy(t, global.termCols, termCols, nTerms);
        }
        t.sync();
        return {partStart, partEnd, rowStart, col, diagPos, val, rD, termStart, termCols, termC};
    }

    //- DIC of part q: w = M^-1 r over its rows (forward, then backward); returns w.r there
    GPULDU_HD static double precondition(const Arrays& a, int q, const double* r, double* w)
    {
        const int first = a.partStart[q];
        const int end = a.partEnd[q];
        for (int i = first; i < end; ++i)
        {
            double acc = a.rD[i]*r[i];
            for (int k = a.rowStart[i]; k < a.diagPos[i]; ++k)
            {
                acc -= (a.rD[i]*a.val[k])*w[a.col[k]];
            }
            w[i] = acc;
        }
        for (int i = end - 1; i >= first; --i)
        {
            double acc = w[i];
            for (int k = a.rowStart[i + 1] - 1; k > a.diagPos[i]; --k)
            {
                acc -= (a.rD[i]*a.val[k])*w[a.col[k]];
            }
            w[i] = acc;
        }
        double s = 0;
        for (int i = first; i < end; ++i)
        {
            s = s + w[i]*r[i];
        }
        return s;
    }

    //- (A p)[i]: SpmvRow's sum, then the device couplings' terms (ApplyCouplings)
    GPULDU_HD double product(const Arrays& a, int i, const double* p) const
    {
        const int d = a.diagPos[i];
        double yi = a.val[d]*p[i];
        for (int k = a.rowStart[i]; k < d; ++k)
        {
            yi += a.val[k]*p[a.col[k]];
        }
        for (int k = d + 1; k < a.rowStart[i + 1]; ++k)
        {
            yi += a.val[k]*p[a.col[k]];
        }
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

    template<class Team>
    GPULDU_HD void operator()(int, const Team& t) const
    {
        const int lane = t.lane();
        const int size = t.size();
        double* psi = t.scratch();
        double* r = psi + n;
        double* w = r + n;
        double* p = w + n;
        double* wArA = p + n;
        double* wApA = wArA + nParts;
        double* residual = wApA + nParts;
        const Arrays a = stage(t, residual + nParts);

        // psi = 0, r = source (an unused row's all zero, p too: its product's row reads it);
        // normFactor and the initial residual from sum|source|
        for (int i = lane; i < n; i += size)
        {
            const int j = rowSource[i];
            psi[i] = 0;
            r[i] = j >= 0 ? source[j] : 0.0;
            w[i] = 0;
            p[i] = 0;
        }
        t.sync();
        for (int q = lane; q < nParts; q += size)
        {
            double s = 0;
            for (int i = a.partStart[q]; i < a.partEnd[q]; ++i)
            {
                s = s + (0.0 + magnitude(r[i]));
            }
            residual[q] = s;
        }
        t.sync();
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
                for (int q = lane; q < nParts; q += size)
                {
                    wArA[q] = precondition(a, q, r, w);
                }
                t.sync();
                const double wArANow = total(wArA);
                const double beta = nIter == 0 ? 0 : wArANow/wArAOld;
                for (int i = lane; i < n; i += size)
                {
                    p[i] = nIter == 0 ? w[i] : w[i] + beta*p[i];
                }
                t.sync();
                for (int i = lane; i < n; i += size)
                {
                    w[i] = product(a, i, p);
                }
                t.sync();
                for (int q = lane; q < nParts; q += size)
                {
                    double s = 0;
                    for (int i = a.partStart[q]; i < a.partEnd[q]; ++i)
                    {
                        s = s + w[i]*p[i];
                    }
                    wApA[q] = s;
                }
                t.sync();
                const double wApANow = total(wApA);
                if (isSingular(magnitude(wApANow)/normFactor))
                {
                    break;
                }
                const double alpha = wArANow/wApANow;
                for (int i = lane; i < n; i += size)
                {
                    psi[i] += alpha*p[i];
                    r[i] -= alpha*w[i];
                }
                t.sync();
                for (int q = lane; q < nParts; q += size)
                {
                    double s = 0;
                    for (int i = a.partStart[q]; i < a.partEnd[q]; ++i)
                    {
                        s = s + magnitude(r[i]);
                    }
                    residual[q] = s;
                }
                t.sync();
                res = total(residual)/normFactor;
                wArAOld = wArANow;
                if (!isFiniteValue(res))
                {
                    ++nIter;
                    break;
                }
            } while ((++nIter < controls.maxIter && !converged(res)) || nIter < controls.minIter);
        }
        t.sync();
        for (int i = lane; i < n; i += size)
        {
            const int j = rowSource[i];
            if (j >= 0)
            {
                corr[j] = psi[i];
            }
        }
        if (lane == 0)
        {
            *iterations += nIter;
        }
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
//  the same parts, bit for bit)
template<class B>
class CoarsestPcg
{
    using Level = LduSystemImpl<B>;
    template<class T>
    using Vector = typename B::template Vector<T>;

public:
    //- The level in the team's layout (see the file's head), on the host: after each part of an
    //  even number of rows an unused row (its one entry its diagonal, 1; no terms); the level's
    //  rows, entries and device couplings' terms in their order
    struct Layout
    {
        std::vector<int> partStart;
        std::vector<int> partEnd;
        std::vector<int> rowStart;
        std::vector<int> col;
        std::vector<int> diagPos;
        std::vector<int> termStart;
        std::vector<int> termCols;
        std::vector<int> rowSource;
        std::vector<int> entrySource;

        int nRows() const
        {
            return int(rowSource.size());
        }

        int nEntries() const
        {
            return int(entrySource.size());
        }

        //- From the level's CSR arrays and its terms by row (termStart empty: none)
        static Layout of(const std::vector<int>& parts, const std::vector<int>& rowStart, const std::vector<int>& col,
                         const std::vector<int>& diagPos, const std::vector<int>& termStart,
                         const std::vector<int>& termCols)
        {
            Layout l;
            const int n = int(diagPos.size());
            std::vector<int> rowOf(n);
            for (std::size_t q = 0; q + 1 < parts.size(); ++q)
            {
                l.partStart.push_back(l.nRows());
                for (int i = parts[q]; i < parts[q + 1]; ++i)
                {
                    rowOf[i] = l.nRows();
                    l.rowSource.push_back(i);
                    l.rowStart.push_back(l.nEntries());
                    l.diagPos.push_back(l.nEntries() + diagPos[i] - rowStart[i]);
                    for (int k = rowStart[i]; k < rowStart[i + 1]; ++k)
                    {
                        l.entrySource.push_back(k);
                        l.col.push_back(col[k]);
                    }
                    l.termStart.push_back(termStart.empty() ? 0 : termStart[i]);
                }
                l.partEnd.push_back(l.nRows());
                if ((parts[q + 1] - parts[q]) % 2 == 0)
                {
                    // an unused row: the diagonal alone, no terms (those of the part's next row on)
                    l.rowSource.push_back(-1);
                    l.rowStart.push_back(l.nEntries());
                    l.diagPos.push_back(l.nEntries());
                    l.termStart.push_back(termStart.empty() ? 0 : termStart[parts[q + 1]]);
                    l.entrySource.push_back(-1);
                    l.col.push_back(l.nRows() - 1);
                }
            }
            l.partStart.push_back(l.nRows());
            l.rowStart.push_back(l.nEntries());
            l.termStart.push_back(termStart.empty() ? 0 : termStart[n]);
            // the columns (a level's rows, past them its unused rows' own) in the layout's rows
            for (int e = 0; e < l.nEntries(); ++e)
            {
                if (l.entrySource[e] >= 0)
                {
                    l.col[e] = rowOf[l.col[e]];
                }
            }
            for (const int c : termCols)
            {
                l.termCols.push_back(rowOf[c]);
            }
            return l;
        }
    };

private:
    std::vector<int> parts_;
    Layout layout_;
    //- The level's entries in layout_
    int layoutEntries_ = 0;
    //- layout_'s arrays on the backend
    Vector<int> partStart_, partEnd_, rowStart_, col_, diagPos_, termStart_, termCols_, rowSource_, entrySource_;
    Vector<long> iterations_;
    //- A bad pivot of the DIC factor: thrown by the next solve (where GAMG iterates)
    std::unique_ptr<ValueError> badPivot_;

    template<class T>
    static std::vector<T> toHost(const Vector<T>& v, std::size_t count)
    {
        std::vector<T> h(count);
        B::download(h.data(), ptr(v), count);
        return h;
    }

    template<class T>
    static void toBackend(Vector<T>& v, const std::vector<T>& h)
    {
        v.resize(h.size());
        B::upload(ptr(v), h.data(), h.size());
    }

    //- layout_ of the level in parts_, and its arrays on the backend
    void setLayout(const Level& level)
    {
        const CsrMatrix<B>& A = level.matrix();
        const int n = level.n();
        std::vector<int> termStart;
        std::vector<int> termCols;
        const detail::InterfaceRowTerms terms = level.interfaceRowTerms();
        const int nTerms = level.nDeviceCouplingTerms();
        if (nTerms > 0)
        {
            termStart.resize(n + 1);
            termCols.resize(nTerms);
            B::download(termStart.data(), terms.rowStart, n + 1);
            B::download(termCols.data(), terms.cols, nTerms);
        }
        layoutEntries_ = A.nnz();
        layout_ = Layout::of(parts_, toHost(A.rowStart, n + 1), toHost(A.col, A.nnz()), toHost(A.diagPos, n),
                             termStart, termCols);
        toBackend(partStart_, layout_.partStart);
        toBackend(partEnd_, layout_.partEnd);
        toBackend(rowStart_, layout_.rowStart);
        toBackend(col_, layout_.col);
        toBackend(diagPos_, layout_.diagPos);
        toBackend(termStart_, layout_.termStart);
        toBackend(termCols_, layout_.termCols);
        toBackend(rowSource_, layout_.rowSource);
        toBackend(entrySource_, layout_.entrySource);
    }

public:
    //- A part's rows are one thread's sequential work (a row of its sweeps about 0.05 us an
    //  iteration in shared memory): a rank's coarsest level holds about nCellsInCoarsestLevel
    //  rows (10 by default)
    static constexpr int maxPartRows = 128;
    //- The team: one block of this many threads on the GPU
    static constexpr int teamSize = 256;

    //- The starts of the team's parts of a level of n rows with faces (lower, upper): its
    //  finest split into consecutive rows that no face joins, neighbouring pieces merged until
    //  a part has partRows rows (8, or more where the rows outnumber the team's threads 8 to
    //  one): each thread of the team sweeps one part
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

    //- The team's scratch for the level in nParts parts (its layout's unused rows and entries at
    //  most one a part)
    static int scratchDoubles(const Level& level, int nParts)
    {
        return detail::CoarsestPcgTeam::scratchDoubles(level.n() + nParts, nParts, level.matrix().nnz() + nParts,
                                                       level.nDeviceCouplingTerms());
    }

    CoarsestPcg()
    :
        iterations_(1)
    {}

    //- Per solve, with the level's new values: the DIC factor (rD), the parts (teamParts), the
    //  iteration count zeroed
    void setMatrix(Level& level, const std::vector<int>& parts)
    {
        // (the level's rows, entries and terms are its mesh's: as long as it stands, with its parts)
        const bool stands = parts == parts_ && layout_.nRows() > 0 && layoutEntries_ == level.matrix().nnz()
                         && int(layout_.termCols.size()) == level.nDeviceCouplingTerms();
        if (!stands)
        {
            parts_ = parts;
            setLayout(level);
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
        }
    }

    //- corr = the coarsest correction for src (backend arrays), queued on the backend's stream
    void solve(Level& level, const double* src, double* corr, const SolverControls& controls)
    {
        if (badPivot_)
        {
            throw *badPivot_;
        }
        const Layout& l = layout_;
        const detail::CoarsestPcgTeam team{
            l.nRows(), int(parts_.size()) - 1, l.nEntries(), int(l.termCols.size()),
            {ptr(partStart_), ptr(partEnd_), ptr(rowStart_), ptr(col_), ptr(diagPos_), ptr(level.matrix().val),
             ptr(level.preconditioners().template instance<preconditioners::DicDilu>().rD()),
             ptr(termStart_), ptr(termCols_), level.interfaceRowTerms().c},
            ptr(rowSource_), ptr(entrySource_), src, corr, ptr(iterations_), controls};
        B::forEachTeam(0, 1, teamSize, team,
                       detail::CoarsestPcgTeam::scratchDoubles(team.n, team.nParts, team.nnz, team.nTerms));
    }

    //- The team's layout of the level (with new parts: once a mesh)
    const Layout& layout() const
    {
        return layout_;
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
