// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's coarsest level where it spans several systems (the groups of several GPUs or nodes, each
// group's hierarchy with processor faces to the others): every system's coarsest level gathered
// on every system as one level and solved there whole by the coarsest team (CoarsestPcg), each
// system taking its own rows of the correction.
//   the level  the systems' rows one after the other (in the systems' order), their faces, and
//              their device couplings, whose halo columns become the rows across (each halo
//              value's row found once, by sending the rows' numbers through the halo)
//   the solve  OpenFOAM's PCG with DIC as the team runs it: the DIC blocks are the ranks'
//              blocks (interfaces stay out of DIC, as natively), the product is every system's
//              with its interfaces, so the iterations are native -np N's; the sums run over all
//              parts in one order on every system, so every system computes the same correction,
//              to the bit, with nothing exchanged inside the solve
// Exchanges: the structure once (two gathers, one halo exchange), the values once a solve (one
// gather), the source once a V-cycle (one sum on the backend of a vector holding each system's
// source in its rows and zeros elsewhere, exact; or one gather through the host). Each system
// solving its own rows takes a halo exchange and three sums an iteration instead: 30-50
// iterations a V-cycle on 1M-16M cavity3D cells, each exchange 5-20 us (docs/performance.md).

#ifndef GPULDU_GATHEREDCOARSEST_HPP
#define GPULDU_GATHEREDCOARSEST_HPP

#include "multigrid/CoarsestPcg.hpp"

#include <memory>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- to[i] = from[i - first] in [first, first + n), 0 elsewhere: one system's rows placed in the
//  gathered level's vector
struct PlaceRows
{
    const double* from;
    double* to;
    int first;
    int n;

    GPULDU_HD void operator()(int i) const
    {
        to[i] = (i >= first && i < first + n) ? from[i - first] : 0.0;
    }
};

} // namespace detail

template<class B>
class GatheredCoarsest
{
    using Level = LduSystemImpl<B>;
    template<class T>
    using Vector = typename B::template Vector<T>;

    //- This system's index, each system's first row and first face (the level's rows and
    //  faces last)
    int me_;
    std::vector<int> first_;
    std::vector<int> firstFace_;
    //- The gathered level, its team's parts, its source and correction (every row)
    std::unique_ptr<Level> level_;
    std::vector<int> parts_;
    CoarsestPcg<B> team_;
    Vector<double> source_;
    Vector<double> corr_;

public:
    //- A piece's values read in order (the ints of a structure piece are exact as doubles)
    struct Reader
    {
        const std::vector<double>& piece;
        std::size_t at = 0;

        int next()
        {
            if (at >= piece.size())
            {
                throw Error("gpuLdu: a gathered GAMG level's piece ends early");
            }
            return int(piece[at++]);
        }
    };

    //- A level's rows, faces and device coupling terms
    struct LevelSizes
    {
        int n;
        int nFaces;
        int nTerms;
    };

    //- One system's level read back from its structure piece (structurePiece's order) into the
    //  gathered level's faces and device couplings, its rows from first on
    static LevelSizes readLevel(Reader& r, int first, std::vector<int>& lower, std::vector<int>& upper,
                                DeviceCouplings& couplings)
    {
        const LevelSizes z{r.next(), r.next(), 0};
        const int nRows = r.next();
        const int nTerms = r.next();
        for (int f = 0; f < z.nFaces; ++f)
        {
            lower.push_back(first + r.next());
        }
        for (int f = 0; f < z.nFaces; ++f)
        {
            upper.push_back(first + r.next());
        }
        for (int j = 0; j < nRows; ++j)
        {
            couplings.rows.push_back(first + r.next());
        }
        const int termsBefore = couplings.nTerms();
        r.next();
        for (int j = 0; j < nRows; ++j)
        {
            couplings.start.push_back(termsBefore + r.next());
        }
        for (int k = 0; k < nTerms; ++k)
        {
            couplings.cols.push_back(r.next());
        }
        return {z.n, z.nFaces, nTerms};
    }

    //- What this system gives of its coarsest level's structure: its rows n, its faces (lower,
    //  upper: the level's addressing), its device couplings c with every column numbered in the
    //  gathered level (its own rows from first on, a halo value k at haloRows[k], the row the
    //  halo brings it from)
    static std::vector<double> structurePiece(
        const LduAddressingView& level,
        const DeviceCouplings& c,
        int first,
        const std::vector<double>& haloRows
    )
    {
        std::vector<double> piece{double(level.nCells), double(level.nFaces), double(c.rows.size()),
                                  double(c.nTerms())};
        piece.insert(piece.end(), level.lower, level.lower + level.nFaces);
        piece.insert(piece.end(), level.upper, level.upper + level.nFaces);
        piece.insert(piece.end(), c.rows.begin(), c.rows.end());
        piece.insert(piece.end(), c.start.begin(), c.start.end());
        for (const int col : c.cols)
        {
            piece.push_back(col < level.nCells ? double(first + col) : haloRows.at(col - level.nCells));
        }
        return piece;
    }

    //- The rows each system's halo reads (DeviceCouplings::nHalo values), given the halo's
    //  exchange (Coupling::exchangeHalo, on the host) and this system's first row
    static std::vector<double> haloRows(const DeviceCouplings& c, int first, const Coupling& coupling)
    {
        std::vector<double> send(c.haloSend.size()), halo(std::size_t(c.nHalo));
        for (std::size_t k = 0; k < send.size(); ++k)
        {
            send[k] = double(first + c.haloSend[k]);
        }
        if (c.nHalo > 0 || !send.empty())
        {
            coupling.exchangeHalo(send.data(), halo.data());
        }
        return halo;
    }

    //- The level from every system's structure piece (in the systems' order), as system me
    GatheredCoarsest(const std::vector<std::vector<double>>& pieces, int me)
    :
        me_(me),
        first_{0},
        firstFace_{0}
    {
        std::vector<int> lower, upper;
        DeviceCouplings couplings;
        for (const std::vector<double>& piece : pieces)
        {
            Reader r{piece};
            const LevelSizes z = readLevel(r, first_.back(), lower, upper, couplings);
            first_.push_back(first_.back() + z.n);
            firstFace_.push_back(firstFace_.back() + z.nFaces);
        }
        const int n = first_.back();
        level_ = std::make_unique<Level>(LduAddressingView{n, int(lower.size()), lower.data(), upper.data()});
        level_->setDeviceCouplings(couplings);
        parts_ = CoarsestPcg<B>::teamParts(n, lower, upper);
        source_.resize(n);
        corr_.resize(n);
    }

    //- Whether the team solves the gathered level (CoarsestPcg::usable: its parts' rows, its
    //  scratch); the same answer on every system of one kind of device
    bool usable() const
    {
        return CoarsestPcg<B>::usable(*level_, Coupling(), true, parts_);
    }

    //- This system's first row and its rows
    int first() const
    {
        return first_[me_];
    }

    int nCells() const
    {
        return first_[me_ + 1] - first_[me_];
    }

    //- The gathered level's rows
    int nGathered() const
    {
        return first_.back();
    }

    //- What this system gives of its coarsest matrix per solve: its LDU values (diag, upper: n
    //  + nFaces, on the host) and its device couplings' coefficients of A (nTerms)
    static std::vector<double> valuePiece(const std::vector<double>& ldu, const std::vector<double>& coeffs)
    {
        std::vector<double> piece(ldu);
        piece.insert(piece.end(), coeffs.begin(), coeffs.end());
        return piece;
    }

    //- The gathered matrix from every system's value piece (in the systems' order), its DIC
    //  factor for the team
    void setMatrix(const std::vector<std::vector<double>>& pieces)
    {
        const auto mismatch = [] { return Error("gpuLdu: a gathered coarsest level's values do not match its structure"); };
        if (pieces.size() + 1 != first_.size())
        {
            throw mismatch();
        }
        std::vector<double> diag, upper, coeffs;
        for (std::size_t s = 0; s < pieces.size(); ++s)
        {
            const std::vector<double>& piece = pieces[s];
            const std::size_t n = first_[s + 1] - first_[s];
            const std::size_t nF = firstFace_[s + 1] - firstFace_[s];
            if (piece.size() < n + nF)
            {
                throw mismatch();
            }
            diag.insert(diag.end(), piece.begin(), piece.begin() + n);
            upper.insert(upper.end(), piece.begin() + n, piece.begin() + n + nF);
            coeffs.insert(coeffs.end(), piece.begin() + n + nF, piece.end());
        }
        if (int(coeffs.size()) != level_->nDeviceCouplingTerms())
        {
            throw mismatch();
        }
        level_->setMatrix(diag.data(), upper.data(), nullptr);
        level_->setDeviceCouplingCoeffs(coeffs.data(), coeffs.data());
        team_.setMatrix(*level_, parts_);
    }

    //- The gathered source on the backend: this system's rows from src (backend), zeros
    //  elsewhere, for the systems' sum (Coupling::sumOnBackend) to fill in
    double* placeSource(const double* src)
    {
        forEach<B>(0, nGathered(), detail::PlaceRows{src, ptr(source_), first(), nCells()});
        return ptr(source_);
    }

    //- The gathered source from the host (every system's rows, in order)
    void uploadSource(const std::vector<std::vector<double>>& pieces)
    {
        std::vector<double> all;
        for (const std::vector<double>& piece : pieces)
        {
            all.insert(all.end(), piece.begin(), piece.end());
        }
        if (int(all.size()) != nGathered())
        {
            throw Error("gpuLdu: a gathered coarsest source of " + std::to_string(all.size())
                        + " rows for a level of " + std::to_string(nGathered()));
        }
        B::upload(ptr(source_), all.data(), all.size());
    }

    //- corr (this system's rows, on the backend) = the correction the team finds for the
    //  gathered source (placeSource and the sum, or uploadSource)
    void solve(double* corr, const SolverControls& controls)
    {
        team_.solve(*level_, ptr(source_), ptr(corr_), controls);
        forEach<B>(0, nCells(), detail::Copy{ptr(corr_) + first(), corr});
    }

    //- The team's iterations since setMatrix (one transfer)
    long iterations()
    {
        return team_.iterations();
    }
};

} // namespace gpuLdu

#endif
