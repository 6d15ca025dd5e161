// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's levels below a size gathered on every system (the groups of several GPUs or nodes, each
// group's hierarchy with processor faces to the others): from the first coarse level whose
// largest system has at most a given number of rows, every system's levels are gathered on every
// system as one hierarchy, and every system runs the V-cycle's part on those levels whole, with
// nothing exchanged in it: the halo exchanges and sums across systems of a small level cost
// 50-70 us each on two GPUs whatever its size, more than the level's own work
// (docs/performance.md), while its rows twice over cost a few us.
//   the levels  per level the systems' rows one after the other (in the systems' order), their
//               faces, parts (ranks) and device couplings, whose halo columns become the rows
//               across (GatheredCoarsest::haloRows); between two gathered levels the systems'
//               agglomerations, each shifted to its rows and faces
//   the values  per solve every system's coarse matrices (summed by its own hierarchy) and
//               coupling coefficients, placed in one vector and summed across the systems
//               (each value in one system's slot, zeros elsewhere: exact), or gathered through
//               the host
//   the cycle   per V-cycle the systems' sources at the first gathered level summed the same
//               way; the rest of the way down, the coarsest solve and the way up to that level
//               on the gathered levels (GamgHierarchyImpl), each system prolonging its own rows
// A gathered level's terms are those of the distributed levels, in the same order. Its sums: on
// the GPU over all its parts here, each part's sum in its slot and the total in slot order
// (DeviceScalars: the bits of the distributed levels' sums on the GPU, and of one GPU's); with
// executor cpu each part's partial, this system's parts' reduced over the systems as the
// distributed level reduces them (Pstream's order: every value the distributed levels' bit for
// bit).

#ifndef GPULDU_GATHEREDLEVELS_HPP
#define GPULDU_GATHEREDLEVELS_HPP

#include "multigrid/Agglomeration.hpp"
#include "multigrid/GamgCoarsest.hpp"
#include "multigrid/Smoothers.hpp"

#include <thrust/copy.h>
#include <thrust/fill.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace gpuLdu
{

//- The coupling of a gathered level: all its terms are its own; its sums over all its parts
//  here (localSums: the GPU's, each part's sum in its slot, slot order, as the distributed
//  level's on the GPU), else its parts' partials on the host: this system's parts' (firstPart
//  on, nParts of them) summed over the systems by their coupling of the level (set per solve),
//  as the distributed level sums them (executor cpu: OpenFOAM's reduce)
class GatheredCoupling : public Coupling
{
    bool onBackend_;
    bool localSums_;
    int firstPart_;
    int nParts_;
    int nAllParts_;
    const Coupling* systems_ = nullptr;

public:
    GatheredCoupling(bool onBackend, bool localSums, int firstPart, int nParts, int nAllParts)
    :
        onBackend_(onBackend),
        localSums_(localSums),
        firstPart_(firstPart),
        nParts_(nParts),
        nAllParts_(nAllParts)
    {}

    void setSystems(const Coupling& systems)
    {
        systems_ = &systems;
    }

    bool exchangesOnBackend(Executor) const override
    {
        return onBackend_;
    }

    bool sumsAreLocal() const override
    {
        return localSums_;
    }

    double sum(const double* partials, int nParts) const override
    {
        if (nParts != nAllParts_ || !systems_)
        {
            throw Error("gpuLdu: a gathered GAMG level's sum of " + std::to_string(nParts) + " parts, the level has "
                        + std::to_string(nAllParts_));
        }
        return systems_->sum(partials + firstPart_, nParts_);
    }
};

//- A system's level's parts: their row starts, slots and how many slots (LduSystem::setParts,
//  setPartSlots)
struct OwnParts
{
    const std::vector<int>* starts;
    const std::vector<int>* slots;
    int nSlots;
};

//- One of a system's levels as it is gathered: its addressing, device couplings and parts, and
//  for every level but the first the agglomeration that made it from the one above
//  (step.coarse is the addressing)
struct OwnLevel
{
    GamgLevelView step;
    const DeviceCouplings* couplings;
    OwnParts parts;
};

//- What a system keeps of its coarse levels of at most maxRows rows, to gather them at a later
//  solve (the agglomeration's views are borrowed): their addressing and agglomeration from the
//  level above (where that has at most maxRows rows too), host copies; their device couplings
class KeptLevels
{
    struct Copy
    {
        std::vector<int> lower, upper, restrict, faceRestrict;
        std::unique_ptr<bool[]> flip;
        int nCells = -1;
        bool hasStep = false;
    };
    std::vector<Copy> copies_;
    std::vector<DeviceCouplings> couplings_;

public:
    //- For a hierarchy's finest level and coarse levels
    KeptLevels(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels, int maxRows)
    :
        copies_(levels.size()),
        couplings_(levels.size())
    {
        for (std::size_t k = 0; k < levels.size(); ++k)
        {
            const GamgLevelView& level = levels[k];
            const LduAddressingView& above = k == 0 ? fine : levels[k - 1].coarse;
            Copy& copy = copies_[k];
            if (level.coarse.nCells > maxRows)
            {
                continue;
            }
            copy.nCells = level.coarse.nCells;
            copy.lower.assign(level.coarse.lower, level.coarse.lower + level.coarse.nFaces);
            copy.upper.assign(level.coarse.upper, level.coarse.upper + level.coarse.nFaces);
            copy.hasStep = k > 0 && above.nCells <= maxRows;
            if (copy.hasStep)
            {
                copy.restrict.assign(level.restrictAddressing, level.restrictAddressing + above.nCells);
                copy.faceRestrict.assign(level.faceRestrictAddressing, level.faceRestrictAddressing + above.nFaces);
                copy.flip.reset(new bool[above.nFaces + 1]);
                std::copy_n(level.faceFlipMap, above.nFaces, copy.flip.get());
            }
        }
    }

    //- The device couplings of every level (the finest first: LduSystem::setDeviceCouplings)
    void setCouplings(const std::vector<DeviceCouplings>& ofLevels)
    {
        couplings_.assign(ofLevels.begin() + 1, ofLevels.end());
    }

    //- Whether coarse levels from..to are kept, of nCells(k) rows each, with the agglomeration
    //  of each below from
    template<class Rows>
    bool kept(int from, int to, const Rows& nCells) const
    {
        for (int k = from; k <= to; ++k)
        {
            if (copies_[k].nCells != nCells(k) || (k > from && !copies_[k].hasStep))
            {
                return false;
            }
        }
        return true;
    }

    //- Coarse levels from..to as they are gathered (kept), partsOf(k) coarse level k's parts
    template<class Parts>
    std::vector<OwnLevel> own(int from, int to, const Parts& partsOf) const
    {
        std::vector<OwnLevel> levels;
        for (int k = from; k <= to; ++k)
        {
            const Copy& c = copies_[k];
            const LduAddressingView coarse{c.nCells, int(c.lower.size()), c.lower.data(), c.upper.data()};
            levels.push_back({GamgLevelView{coarse, c.restrict.data(), c.faceRestrict.data(), c.flip.get()},
                              &couplings_.at(k), partsOf(k)});
        }
        return levels;
    }
};

template<class B>
class GatheredLevels
{
    using Level = LduSystemImpl<B>;
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- Per gathered level i (coarse level from_ + i), each system's rows, faces and device
    //  coupling terms, and where each system's start (the totals last)
    struct Sizes
    {
        std::vector<int> first{0};
        std::vector<int> firstFace{0};
        std::vector<int> firstTerm{0};

        int n(int s) const { return first[s + 1] - first[s]; }
        int nFaces(int s) const { return firstFace[s + 1] - firstFace[s]; }
        int nTerms(int s) const { return firstTerm[s + 1] - firstTerm[s]; }
    };

    int from_;
    int me_;
    bool onBackend_;
    std::vector<Sizes> sizes_;
    std::vector<std::unique_ptr<GatheredCoupling>> couplings_;
    std::vector<std::unique_ptr<Level>> levels_;
    //- steps_[i - 1]: the agglomeration of gathered level i from level i - 1
    std::vector<Agglomeration<B>> steps_;
    std::vector<Smoothers<B>> smoothers_;
    std::vector<Vector<double>> corr_;
    std::vector<Vector<double>> src_;
    std::unique_ptr<GamgCoarsest<B>> coarsest_;
    //- Per solve the levels' values, level by level: diag, upper, coupling coefficients of A and
    //  of A^T (valueAt_[i] the start of level i's); the source's own rows through the host
    Vector<double> values_;
    std::vector<std::size_t> valueAt_;

    using Reader = typename GatheredCoarsest<B>::Reader;

    //- The segments (start in values_, count) of system s's values of level i, in the order
    //  valueSegments lists a system's own arrays
    std::vector<std::pair<std::size_t, int>> valueSegments(std::size_t i, int s) const
    {
        const Sizes& z = sizes_[i];
        const std::size_t n = z.first.back(), nF = z.firstFace.back(), m = z.firstTerm.back();
        const std::size_t at = valueAt_[i];
        return {{at + z.first[s], z.n(s)}, {at + n + z.firstFace[s], z.nFaces(s)},
                {at + n + nF + z.firstTerm[s], z.nTerms(s)}, {at + n + nF + m + z.firstTerm[s], z.nTerms(s)}};
    }

    //- values_ as every system's own arrays (own[i][j]: level i's segment j, on the backend)
    //  placed in their slots: summed across on the backend, or gathered through the host
    void place(const std::vector<std::vector<const double*>>& own, const Coupling& coupling)
    {
        const int nSystems = int(sizes_[0].first.size()) - 1;
        if (onBackend_)
        {
            thrust::fill(B::policy(), values_.begin(), values_.end(), 0.0);
            for (std::size_t i = 0; i < own.size(); ++i)
            {
                const auto segments = valueSegments(i, me_);
                for (std::size_t j = 0; j < segments.size(); ++j)
                {
                    thrust::copy_n(B::policy(), own[i][j], segments[j].second, ptr(values_) + segments[j].first);
                }
            }
            coupling.sumOnBackend(ptr(values_), int(values_.size()));
            return;
        }
        std::vector<double> mine;
        for (std::size_t i = 0; i < own.size(); ++i)
        {
            const auto segments = valueSegments(i, me_);
            for (std::size_t j = 0; j < segments.size(); ++j)
            {
                const std::size_t at = mine.size();
                mine.resize(at + segments[j].second);
                B::download(mine.data() + at, own[i][j], segments[j].second);
            }
        }
        const std::vector<std::vector<double>> pieces = coupling.gather(mine);
        std::vector<double> all(values_.size());
        for (int s = 0; s < nSystems; ++s)
        {
            std::size_t at = 0;
            for (std::size_t i = 0; i < own.size(); ++i)
            {
                for (const auto& [start, count] : valueSegments(i, s))
                {
                    if (at + count > pieces.at(s).size())
                    {
                        throw Error("gpuLdu: a gathered GAMG level's values do not match its structure");
                    }
                    std::copy_n(pieces[s].begin() + at, count, all.begin() + start);
                    at += count;
                }
            }
        }
        B::upload(ptr(values_), all.data(), all.size());
    }

public:
    //- What this system gives of its levels' sizes (rows, faces, terms per level)
    static std::vector<double> sizePiece(const std::vector<OwnLevel>& levels)
    {
        std::vector<double> piece;
        for (const OwnLevel& l : levels)
        {
            piece.insert(piece.end(), {double(l.step.coarse.nCells), double(l.step.coarse.nFaces),
                                       double(l.couplings->nTerms())});
        }
        return piece;
    }

    //- The rows of the gathered levels where each system's start (level i's: firsts[i]), from
    //  every system's size piece
    static std::vector<std::vector<int>> firsts(const std::vector<std::vector<double>>& sizePieces, int nLevels)
    {
        std::vector<std::vector<int>> first(nLevels, std::vector<int>{0});
        for (const std::vector<double>& piece : sizePieces)
        {
            if (int(piece.size()) != 3*nLevels)
            {
                throw Error("gpuLdu: gathered GAMG levels of systems with different numbers of levels");
            }
            for (int i = 0; i < nLevels; ++i)
            {
                first[i].push_back(first[i].back() + int(piece[3*i]));
            }
        }
        return first;
    }

    //- What this system gives of its levels' structure: per level its faces, device couplings
    //  (their columns in the gathered level: haloRows[i] for its halo, GatheredCoarsest) and
    //  parts, and below the first level the agglomeration from the level above
    static std::vector<double> structurePiece(
        const std::vector<OwnLevel>& levels,
        const std::vector<int>& first,
        const std::vector<std::vector<double>>& haloRows
    )
    {
        std::vector<double> piece;
        for (std::size_t i = 0; i < levels.size(); ++i)
        {
            const OwnLevel& l = levels[i];
            const std::vector<double> level = GatheredCoarsest<B>::structurePiece(
                l.step.coarse, *l.couplings, first[i], haloRows[i]);
            piece.insert(piece.end(), level.begin(), level.end());
            piece.push_back(double(l.parts.starts->size()));
            piece.insert(piece.end(), l.parts.starts->begin(), l.parts.starts->end());
            piece.insert(piece.end(), l.parts.slots->begin(), l.parts.slots->end());
            piece.push_back(double(l.parts.nSlots));
            if (i > 0)
            {
                const LduAddressingView& fine = levels[i - 1].step.coarse;
                piece.insert(piece.end(), l.step.restrictAddressing, l.step.restrictAddressing + fine.nCells);
                piece.insert(piece.end(), l.step.faceRestrictAddressing, l.step.faceRestrictAddressing + fine.nFaces);
                piece.insert(piece.end(), l.step.faceFlipMap, l.step.faceFlipMap + fine.nFaces);
            }
        }
        return piece;
    }

    //- This system's levels (own: coarse levels from..) gathered with every other system's,
    //  made by all of them together: top the finest level's coupling (gathers), levelCoupling(k)
    //  coarse level k's (its halo exchanged once, to number the rows across)
    template<class LevelCoupling>
    static std::unique_ptr<GatheredLevels> gather(const std::vector<OwnLevel>& own, int from, const Coupling& top,
                                                  const LevelCoupling& levelCoupling)
    {
        const int nLevels = int(own.size());
        const int me = top.systemIndex();
        const std::vector<std::vector<int>> first = firsts(top.gather(sizePiece(own)), nLevels);
        std::vector<int> mine;
        std::vector<std::vector<double>> haloRows;
        for (int i = 0; i < nLevels; ++i)
        {
            mine.push_back(first[i].at(me));
            haloRows.push_back(GatheredCoarsest<B>::haloRows(*own[i].couplings, mine.back(), levelCoupling(from + i)));
        }
        return std::make_unique<GatheredLevels>(top.gather(structurePiece(own, mine, haloRows)), nLevels, from, me,
                                                top.exchangesOnBackend(B::executor));
    }

private:
    //- One gathered level as the systems' pieces give it, one system after another: its faces,
    //  parts and their slots, device couplings, and (below the first) the agglomeration from the
    //  level above shifted to the gathered rows and faces
    struct LevelPieces
    {
        Sizes z;
        std::vector<int> lower, upper;
        std::vector<int> parts{0}, slots, restrict, faceRestrict;
        std::vector<char> flip;
        int nSlots = -1;
        int myFirstPart = 0;
        int myParts = 0;
        DeviceCouplings couplings;
    };

    //- System s's piece of gathered level i from r, appended to l
    void readSystemLevel(Reader& r, int s, int i, LevelPieces& l) const
    {
        const int first = l.z.first.back();
        const int firstFace = l.z.firstFace.back();
        const auto sizes = GatheredCoarsest<B>::readLevel(r, first, l.lower, l.upper, l.couplings);
        l.z.first.push_back(first + sizes.n);
        l.z.firstFace.push_back(firstFace + sizes.nFaces);
        l.z.firstTerm.push_back(l.z.firstTerm.back() + sizes.nTerms);
        const int nStarts = r.next();
        r.next();
        if (s == me_)
        {
            l.myFirstPart = int(l.parts.size()) - 1;
            l.myParts = nStarts - 1;
        }
        for (int p = 1; p < nStarts; ++p)
        {
            l.parts.push_back(first + r.next());
        }
        for (int p = 1; p < nStarts; ++p)
        {
            l.slots.push_back(r.next());
        }
        const int itsSlots = r.next();
        if (l.nSlots >= 0 && itsSlots != l.nSlots)
        {
            throw Error("gpuLdu: gathered GAMG levels of systems whose parts have different slots");
        }
        l.nSlots = itsSlots;
        if (i > 0)
        {
            // the agglomeration from level i - 1: its rows and faces are this system's there,
            // its coarse cells and faces shifted to its rows here
            const Sizes& above = sizes_[i - 1];
            for (int c = 0; c < above.n(s); ++c)
            {
                l.restrict.push_back(first + r.next());
            }
            for (int f = 0; f < above.nFaces(s); ++f)
            {
                const int to = r.next();
                l.faceRestrict.push_back(to >= 0 ? firstFace + to : -1 - (first + (-1 - to)));
            }
            for (int f = 0; f < above.nFaces(s); ++f)
            {
                l.flip.push_back(char(r.next() != 0));
            }
        }
    }

    //- Gathered level i made from its pieces (above: level i - 1's, where i > 0): its system,
    //  coupling, agglomeration, vectors and the place of its values
    void addLevel(int i, const LevelPieces& l, const LevelPieces* above, std::size_t& nValues)
    {
        const LduAddressingView view{l.z.first.back(), int(l.lower.size()), l.lower.data(), l.upper.data()};
        levels_.push_back(std::make_unique<Level>(view));
        levels_.back()->setParts(l.parts);
        levels_.back()->setPartSlots(l.slots, l.nSlots);
        couplings_.push_back(std::make_unique<GatheredCoupling>(onBackend_, onBackend_ || B::executor == Executor::gpu,
                                                                l.myFirstPart, l.myParts, int(l.parts.size()) - 1));
        levels_.back()->setDeviceCouplings(l.couplings);
        if (i > 0)
        {
            const std::unique_ptr<bool[]> flips(new bool[l.flip.size() + 1]);
            std::copy(l.flip.begin(), l.flip.end(), flips.get());
            const LduAddressingView aboveView{sizes_[i - 1].first.back(), int(above->lower.size()),
                                              above->lower.data(), above->upper.data()};
            steps_.emplace_back(aboveView, GamgLevelView{view, l.restrict.data(), l.faceRestrict.data(), flips.get()});
        }
        valueAt_.push_back(nValues);
        nValues += std::size_t(l.z.first.back()) + l.z.firstFace.back() + 2*std::size_t(l.z.firstTerm.back());
        corr_.emplace_back(l.z.first.back());
        src_.emplace_back(l.z.first.back());
        sizes_.push_back(l.z);
    }

public:
    //- The levels from every system's structure piece (in the systems' order), as system me;
    //  from: the first gathered level's index among the coarse levels; onBackend: whether the
    //  systems' couplings sum on the backend (else values and sources go through the host)
    GatheredLevels(const std::vector<std::vector<double>>& pieces, int nLevels, int from, int me, bool onBackend)
    :
        from_(from),
        me_(me),
        onBackend_(onBackend)
    {
        std::vector<Reader> readers;
        for (const std::vector<double>& piece : pieces)
        {
            readers.push_back(Reader{piece});
        }
        std::vector<LevelPieces> pieced(nLevels);
        std::size_t nValues = 0;
        for (int i = 0; i < nLevels; ++i)
        {
            for (std::size_t s = 0; s < readers.size(); ++s)
            {
                readSystemLevel(readers[s], int(s), i, pieced[i]);
            }
            addLevel(i, pieced[i], i > 0 ? &pieced[i - 1] : nullptr, nValues);
        }
        for (const Reader& r : readers)
        {
            if (r.at != r.piece.size())
            {
                throw Error("gpuLdu: a gathered GAMG level's piece is longer than its structure");
            }
        }
        values_.resize(nValues);
        smoothers_.resize(levels_.size());
        const LevelPieces& last = pieced.back();
        const LduAddressingView coarsest{last.z.first.back(), int(last.lower.size()), last.lower.data(),
                                         last.upper.data()};
        coarsest_ = std::make_unique<GamgCoarsest<B>>(coarsest);
        if (LduSystem* host = coarsest_->hostSystem())
        {
            host->setParts(last.parts);
            host->setPartSlots(last.slots, last.nSlots);
            host->setDeviceCouplings(last.couplings);
        }
    }

    //- The first gathered level (its index among the coarse levels) and the last
    int from() const { return from_; }
    int to() const { return from_ + int(levels_.size()) - 1; }

    //- The gathered rows of coarse level k (from() <= k <= to()), and the most of any level
    int nRows(int k) const { return sizes_[k - from_].first.back(); }

    int largest() const
    {
        int most = 0;
        for (const Sizes& z : sizes_)
        {
            most = std::max(most, z.first.back());
        }
        return most;
    }

    //- Coarse level k's system, smoothers, correction, source and coupling (gathered), the
    //  agglomeration that made it from level k - 1 (k > from())
    Level& level(int k) { return *levels_[k - from_]; }
    Smoothers<B>& smoothers(int k) { return smoothers_[k - from_]; }
    double* corr(int k) { return ptr(corr_[k - from_]); }
    double* src(int k) { return ptr(src_[k - from_]); }
    const Agglomeration<B>& step(int k) const { return steps_[k - from_ - 1]; }
    const Coupling& coupling(int k) const { return *couplings_[k - from_]; }

    //- Per solve the systems' couplings of the gathered levels (systems[i]: level from() + i's)
    void setSystemCouplings(const std::vector<const Coupling*>& systems)
    {
        for (std::size_t i = 0; i < couplings_.size(); ++i)
        {
            couplings_[i]->setSystems(*systems.at(i));
        }
    }
    GamgCoarsest<B>& coarsest() { return *coarsest_; }

    //- Whether the values and sources go between the systems on the backend (else the host)
    bool onBackend() const { return onBackend_; }

    //- This system's rows of the first gathered level's correction
    const double* ownCorrection() { return corr(from_) + sizes_[0].first[me_]; }

    //- Per solve the gathered levels' matrices from every system's levels (own[i]: level i's LDU
    //  values diag, upper and its coupling coefficients of A then A^T, on the backend; each
    //  system passes its own, coupling: the systems'), symmetric
    void setMatrices(const std::vector<const double*>& ldu, const std::vector<const double*>& coeffs,
                     const Coupling& coupling)
    {
        std::vector<std::vector<const double*>> own;
        for (std::size_t i = 0; i < levels_.size(); ++i)
        {
            const Sizes& z = sizes_[i];
            own.push_back({ldu[i], ldu[i] + z.n(me_), coeffs[i], coeffs[i] + z.nTerms(me_)});
        }
        place(own, coupling);
        for (std::size_t i = 0; i < levels_.size(); ++i)
        {
            const Sizes& z = sizes_[i];
            const std::size_t n = z.first.back(), nF = z.firstFace.back();
            Level& level = *levels_[i];
            thrust::copy_n(B::policy(), ptr(values_) + valueAt_[i], n + nF, level.lduValues());
            level.setMatrixFromLdu(true);
            level.setDeviceCouplingCoeffsOnBackend(ptr(values_) + valueAt_[i] + n + nF);
        }
        // the coarsest level's coefficients to its host system, where it solves there
        if (LduSystem* host = coarsest_->hostSystem())
        {
            const Sizes& z = sizes_.back();
            const std::size_t n = z.first.back(), nF = z.firstFace.back(), m = z.firstTerm.back();
            std::vector<double> both(2*m);
            B::download(both.data(), ptr(values_) + valueAt_.back() + n + nF, both.size());
            host->setDeviceCouplingCoeffs(both.data(), both.data() + m);
        }
    }

    //- The first gathered level's source from every system's own rows (src, on the backend)
    void gatherSource(const double* src, const Coupling& coupling)
    {
        const Sizes& z = sizes_[0];
        if (onBackend_)
        {
            forEach<B>(0, z.first.back(), detail::PlaceRows{src, this->src(from_), z.first[me_], z.n(me_)});
            coupling.sumOnBackend(this->src(from_), z.first.back());
            return;
        }
        std::vector<double> mine(std::size_t(z.n(me_)));
        B::download(mine.data(), src, mine.size());
        std::vector<double> all;
        for (const std::vector<double>& piece : coupling.gather(mine))
        {
            all.insert(all.end(), piece.begin(), piece.end());
        }
        if (int(all.size()) != z.first.back())
        {
            throw Error("gpuLdu: a gathered GAMG source of " + std::to_string(all.size()) + " rows for a level of "
                        + std::to_string(z.first.back()));
        }
        B::upload(this->src(from_), all.data(), all.size());
    }
};

} // namespace gpuLdu

#endif
