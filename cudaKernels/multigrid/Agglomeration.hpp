// SPDX-License-Identifier: GPL-3.0-or-later
// One coarsening step of OpenFOAM's GAMG agglomeration on a backend: the coarse matrix summed
// from the fine one (GAMGSolverAgglomerateMatrix.C), restriction and prolongation of fields
// (GAMGAgglomerationTemplates.C), in OpenFOAM's order. OpenFOAM adds into each coarse value by
// a loop over the fine cells or faces:
//     coarse diag_c  = 0 + diag_i over fine cells i of c (ascending), then + (upper_f + lower_f)
//                      (symmetric: + 2 upper_f) over the fine faces f inside c (ascending)
//     coarse upper_F = 0 + upper_f (lower_f where the face flips) over the fine faces f of F
//                      (ascending), lower_F likewise
//     restricted   c = 0 + x_i over the fine cells i of c (ascending)
//     prolonged    x_i = y_c(i)
// so each coarse value here is one thread summing its own list of fine sources in that order:
// the same sums, bit for bit, whichever thread runs when. The lists are built once, on the
// backend: a stable sort of the fine indices by their coarse entry (on the GPU a radix sort of
// millions of keys in milliseconds, where the host's counting sort took about a second at 8M
// cells, its random accesses missing the caches).

#ifndef GPULDU_AGGLOMERATION_HPP
#define GPULDU_AGGLOMERATION_HPP

#include "backend/Backend.hpp"
#include "matrix/CsrMatrix.hpp"

#include <thrust/iterator/counting_iterator.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <string>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- A negative key as nGroups (after every group when sorted)
struct LastIfNegative
{
    int nGroups;

    GPULDU_HD int operator()(int key) const
    {
        return key < 0 ? nGroups : key;
    }
};

//- Each coarse entry's fine sources, CSR-style: the items k of [0, n) grouped by key[k] in
//  [0, nGroups), ascending k within a group (a stable sort of k by key); items whose key is
//  negative left out (sorted after the groups: the keys sorted are never negative, whatever
//  order a sort gives signed keys). key is overwritten.
template<class B>
void groupBy(typename B::template Vector<int>& key, int nGroups, typename B::template Vector<int>& start,
             typename B::template Vector<int>& item)
{
    const int n = int(key.size());
    thrust::transform(B::policy(), key.begin(), key.end(), key.begin(), LastIfNegative{nGroups});
    item.resize(n);
    thrust::sequence(B::policy(), item.begin(), item.end());
    thrust::stable_sort_by_key(B::policy(), key.begin(), key.end(), item.begin());
    groupStarts<B>(key, nGroups, start);
    int kept = 0;
    B::download(&kept, ptr(start) + nGroups, 1);
    item.resize(kept);
}

//- Coarse diagonal: the fine diagonals of its cells, then its inner faces' off-diagonals
struct CoarseDiagonal
{
    const int* cellStart;
    const int* cells;
    const int* faceStart;
    const int* faces;
    const double* fineDiag;
    const double* fineUpper;
    const double* fineLower;
    bool symmetric;
    double* diag;

    GPULDU_HD void operator()(int c) const
    {
        double acc = 0;
        for (int k = cellStart[c]; k < cellStart[c + 1]; ++k)
        {
            acc += fineDiag[cells[k]];
        }
        for (int k = faceStart[c]; k < faceStart[c + 1]; ++k)
        {
            const int f = faces[k];
            acc += symmetric ? 2*fineUpper[f] : fineUpper[f] + fineLower[f];
        }
        diag[c] = acc;
    }
};

//- Coarse off-diagonals: the fine faces' (a flipped face, stored as ~f, swaps upper and lower)
struct CoarseOffDiagonals
{
    const int* faceStart;
    const int* faces;
    const double* fineUpper;
    const double* fineLower;
    bool symmetric;
    double* upper;
    double* lower;

    GPULDU_HD void operator()(int F) const
    {
        double u = 0;
        double l = 0;
        for (int k = faceStart[F]; k < faceStart[F + 1]; ++k)
        {
            const int f = faces[k];
            if (symmetric)
            {
                u += fineUpper[f < 0 ? ~f : f];
            }
            else if (f >= 0)
            {
                u += fineUpper[f];
                l += fineLower[f];
            }
            else
            {
                u += fineLower[~f];
                l += fineUpper[~f];
            }
        }
        upper[F] = u;
        if (!symmetric)
        {
            lower[F] = l;
        }
    }
};

//- coarse_c = 0 + the fine values of its cells, ascending
struct RestrictRow
{
    const int* cellStart;
    const int* cells;
    const double* fine;
    double* coarse;

    GPULDU_HD void operator()(int c) const
    {
        double acc = 0;
        for (int k = cellStart[c]; k < cellStart[c + 1]; ++k)
        {
            acc += fine[cells[k]];
        }
        coarse[c] = acc;
    }
};

//- GAMGSolver::interpolate's correction, per coarse cell: psiC - (sum diag*psi)/(sum diag)
//  over its fine cells (each sum from 0, ascending)
struct InterpolationCorrection
{
    const int* cellStart;
    const int* cells;
    const double* fineDiag;
    const double* finePsi;
    const double* psiC;
    double* corrC;

    GPULDU_HD void operator()(int c) const
    {
        double corr = 0;
        double diag = 0;
        for (int k = cellStart[c]; k < cellStart[c + 1]; ++k)
        {
            corr += fineDiag[cells[k]]*finePsi[cells[k]];
            diag += fineDiag[cells[k]];
        }
        corrC[c] = psiC[c] - corr/diag;
    }
};

//- fine_i = coarse_c(i) (add: fine_i += coarse_c(i))
template<bool Add>
struct ProlongRow
{
    const int* restrictAddressing;
    const double* coarse;
    double* fine;

    GPULDU_HD void operator()(int i) const
    {
        if (Add)
        {
            fine[i] += coarse[restrictAddressing[i]];
        }
        else
        {
            fine[i] = coarse[restrictAddressing[i]];
        }
    }
};

//- A fine cell restricted to no coarse cell of [0, nCoarse)
struct CellOutOfRange
{
    const int* restrictAddressing;
    int nCoarse;

    GPULDU_HD bool operator()(int i) const
    {
        return restrictAddressing[i] < 0 || restrictAddressing[i] >= nCoarse;
    }
};

//- A fine face neither inside one coarse cell (faceRestrictAddressing -1 - that cell) nor on
//  the coarse face between its cells' coarse cells (either way round: OpenFOAM's flip map is
//  taken as it is, after merged levels it holds the last level's flips)
struct FaceMisplaced
{
    const int* restrictAddressing;
    const int* faceRestrictAddressing;
    const int* fineLower;
    const int* fineUpper;
    const int* coarseLower;
    const int* coarseUpper;
    int nCoarseFaces;

    GPULDU_HD bool operator()(int f) const
    {
        const int cl = restrictAddressing[fineLower[f]];
        const int cu = restrictAddressing[fineUpper[f]];
        const int F = faceRestrictAddressing[f];
        if (F < 0)
        {
            return !(cl == cu && -1 - F == cl);
        }
        return !(F < nCoarseFaces
              && ((coarseLower[F] == cu && coarseUpper[F] == cl) || (coarseLower[F] == cl && coarseUpper[F] == cu)));
    }
};

//- A group without items
struct EmptyGroup
{
    const int* start;

    GPULDU_HD bool operator()(int c) const
    {
        return start[c] == start[c + 1];
    }
};

//- The coarse cell a fine face lies inside, -1 for a face on a coarse face
struct InnerFaceCell
{
    const int* faceRestrictAddressing;

    GPULDU_HD int operator()(int f) const
    {
        return faceRestrictAddressing[f] < 0 ? -1 - faceRestrictAddressing[f] : -1;
    }
};

//- A coarse face's fine face f stored as ~f where it flips (swapping upper and lower)
struct MarkFlipped
{
    const unsigned char* flipped;
    int* faces;

    GPULDU_HD void operator()(int k) const
    {
        faces[k] = flipped[faces[k]] ? ~faces[k] : faces[k];
    }
};

} // namespace detail

//- One coarsening step on a backend: the fine-to-coarse maps and each coarse value's sources
template<class B>
class Agglomeration
{
    template<class T>
    using Vector = typename B::template Vector<T>;

    int nFine_ = 0;
    int nCoarse_ = 0;
    int nCoarseFaces_ = 0;
    Vector<int> restrictAddressing_;
    Vector<int> cellStart_;
    Vector<int> cells_;
    Vector<int> innerFaceStart_;
    Vector<int> innerFaces_;
    Vector<int> faceStart_;
    Vector<int> faces_;

    template<class T>
    static Vector<T> toBackend(const T* h, int n)
    {
        Vector<T> d(n);
        B::upload(ptr(d), h, n);
        return d;
    }

    template<class T>
    static T valueAt(const Vector<T>& d, int k)
    {
        T v;
        B::download(&v, ptr(d) + k, 1);
        return v;
    }

public:
    //- From the fine addressing and the step's maps, validated: every fine cell in a coarse
    //  cell, every coarse cell with fine cells, every fine face either inside one coarse cell
    //  or on the coarse face between its cells' coarse cells
    Agglomeration(const LduAddressingView& fine, const GamgLevelView& level)
    :
        Agglomeration(fine, level, FacesOnBackend<B>(fine), FacesOnBackend<B>(level.coarse))
    {}

    //- The same, with the fine and the coarse level's faces already on the backend
    Agglomeration(const LduAddressingView& fine, const GamgLevelView& level, const FacesOnBackend<B>& fineFaces,
                  const FacesOnBackend<B>& coarseFaces)
    :
        nFine_(fine.nCells),
        nCoarse_(level.coarse.nCells),
        nCoarseFaces_(level.coarse.nFaces)
    {
        const auto bad = [&](const std::string& what)
        {
            return Error("gpuLdu: inconsistent GAMG agglomeration of a level of " + std::to_string(nFine_)
                         + " cells into " + std::to_string(nCoarse_) + ": " + what);
        };
        const int nF = fine.nFaces;
        if (!level.restrictAddressing || (nF > 0 && (!level.faceRestrictAddressing || !level.faceFlipMap)))
        {
            throw bad("missing addressing");
        }
        restrictAddressing_ = toBackend(level.restrictAddressing, nFine_);
        const int* r = ptr(restrictAddressing_);
        const int badCell = firstWhere<B>(nFine_, detail::CellOutOfRange{r, nCoarse_});
        if (badCell < nFine_)
        {
            throw bad("cell " + std::to_string(badCell) + " restricts to " + std::to_string(valueAt(restrictAddressing_, badCell)));
        }
        Vector<int> fr = toBackend(level.faceRestrictAddressing, nF);
        const int badFace = firstWhere<B>(nF, detail::FaceMisplaced{
            r, ptr(fr), ptr(fineFaces.lower), ptr(fineFaces.upper), ptr(coarseFaces.lower), ptr(coarseFaces.upper),
            nCoarseFaces_});
        if (badFace < nF)
        {
            throw bad("face " + std::to_string(badFace) + " restricts to " + std::to_string(valueAt(fr, badFace)));
        }

        Vector<int> key(restrictAddressing_);
        detail::groupBy<B>(key, nCoarse_, cellStart_, cells_);
        const int empty = firstWhere<B>(nCoarse_, detail::EmptyGroup{ptr(cellStart_)});
        if (empty < nCoarse_)
        {
            throw bad("coarse cell " + std::to_string(empty) + " has no fine cells");
        }
        key.resize(nF);
        thrust::transform(B::policy(), thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(nF),
                          key.begin(), detail::InnerFaceCell{ptr(fr)});
        detail::groupBy<B>(key, nCoarse_, innerFaceStart_, innerFaces_);
        detail::groupBy<B>(fr, nCoarseFaces_, faceStart_, faces_);
        static_assert(sizeof(bool) == 1, "the flip map's bools read as bytes");
        const Vector<unsigned char> flipped =
            toBackend(reinterpret_cast<const unsigned char*>(level.faceFlipMap), nF);
        forEach<B>(0, int(faces_.size()), detail::MarkFlipped{ptr(flipped), ptr(faces_)});
    }

    int nCoarse() const
    {
        return nCoarse_;
    }

    //- The coarse matrix's [diag | upper | lower] from the fine one's (lower unused when
    //  symmetric), as GAMGSolver::agglomerateMatrix sums them
    void coarseMatrix(const double* fineDiag, const double* fineUpper, const double* fineLower, bool symmetric, double* coarseLdu) const
    {
        double* diag = coarseLdu;
        double* upper = diag + nCoarse_;
        double* lower = upper + nCoarseFaces_;
        forEach<B>(0, nCoarse_, detail::CoarseDiagonal{
            ptr(cellStart_), ptr(cells_), ptr(innerFaceStart_), ptr(innerFaces_),
            fineDiag, fineUpper, fineLower, symmetric, diag});
        forEach<B>(0, nCoarseFaces_, detail::CoarseOffDiagonals{
            ptr(faceStart_), ptr(faces_), fineUpper, fineLower, symmetric, upper, lower});
    }

    //- coarse = the restriction of fine (OpenFOAM's restrictField)
    void restrictField(const double* fine, double* coarse) const
    {
        forEach<B>(0, nCoarse_, detail::RestrictRow{ptr(cellStart_), ptr(cells_), fine, coarse});
    }

    //- fine = the prolongation of coarse (prolongField; Add: fine += it)
    template<bool Add = false>
    void prolong(const double* coarse, double* fine) const
    {
        forEach<B>(0, nFine_, detail::ProlongRow<Add>{ptr(restrictAddressing_), coarse, fine});
    }

    //- GAMGSolver::interpolate's correction, given the fine psi after its first step:
    //  corrC = psiC - restrict(diag*psi)/restrict(diag); psi += corrC prolonged
    void interpolationCorrection(const double* fineDiag, double* finePsi, const double* psiC, double* corrC) const
    {
        forEach<B>(0, nCoarse_, detail::InterpolationCorrection{
            ptr(cellStart_), ptr(cells_), fineDiag, finePsi, psiC, corrC});
        prolong<true>(corrC, finePsi);
    }
};

} // namespace gpuLdu

#endif
