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
// the same sums, bit for bit, whichever thread runs when. The lists are built once on the host.

#ifndef GPULDU_AGGLOMERATION_HPP
#define GPULDU_AGGLOMERATION_HPP

#include "backend/Backend.hpp"

#include <string>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- Each coarse entry's fine sources, CSR-style, on the host
struct SourceLists
{
    std::vector<int> start;
    std::vector<int> item;
};

//- The items k of [0, n) grouped by owner(k) in [0, nOwners), ascending k within a group;
//  items with owner < 0 are left out
template<class Owner>
SourceLists groupBy(int n, int nOwners, const Owner& owner)
{
    SourceLists s;
    s.start.assign(nOwners + 1, 0);
    for (int k = 0; k < n; ++k)
    {
        if (owner(k) >= 0)
        {
            ++s.start[owner(k) + 1];
        }
    }
    for (int c = 0; c < nOwners; ++c)
    {
        s.start[c + 1] += s.start[c];
    }
    s.item.resize(s.start.back());
    std::vector<int> next(s.start.begin(), s.start.end() - 1);
    for (int k = 0; k < n; ++k)
    {
        if (owner(k) >= 0)
        {
            s.item[next[owner(k)]++] = k;
        }
    }
    return s;
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
    static Vector<T> toBackend(const std::vector<T>& h)
    {
        Vector<T> d(h.size());
        B::upload(ptr(d), h.data(), h.size());
        return d;
    }

public:
    //- From the fine addressing and the step's maps, validated: every fine cell in a coarse
    //  cell, every coarse cell with fine cells, every fine face either inside one coarse cell
    //  or on the coarse face between its cells' coarse cells
    Agglomeration(const LduAddressingView& fine, const GamgLevelView& level)
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
        if (!level.restrictAddressing || (fine.nFaces > 0 && (!level.faceRestrictAddressing || !level.faceFlipMap)))
        {
            throw bad("missing addressing");
        }
        const int* r = level.restrictAddressing;
        const int* fr = level.faceRestrictAddressing;
        for (int i = 0; i < nFine_; ++i)
        {
            if (r[i] < 0 || r[i] >= nCoarse_)
            {
                throw bad("cell " + std::to_string(i) + " restricts to " + std::to_string(r[i]));
            }
        }
        for (int f = 0; f < fine.nFaces; ++f)
        {
            const int cl = r[fine.lower[f]];
            const int cu = r[fine.upper[f]];
            const int F = fr[f];
            bool valid;
            if (F < 0)
            {
                valid = cl == cu && -1 - F == cl;
            }
            else
            {
                valid = F < nCoarseFaces_;
                if (valid)
                {
                    // OpenFOAM's flip map is taken as it is: after merged levels (mergeLevels
                    // > 1, GAMGAgglomeration::combineLevels) it holds the last level's flips
                    const int lF = level.coarse.lower[F];
                    const int uF = level.coarse.upper[F];
                    valid = (lF == cu && uF == cl) || (lF == cl && uF == cu);
                }
            }
            if (!valid)
            {
                throw bad("face " + std::to_string(f) + " restricts to " + std::to_string(F));
            }
        }

        const detail::SourceLists cells = detail::groupBy(nFine_, nCoarse_, [&](int i) { return r[i]; });
        for (int c = 0; c < nCoarse_; ++c)
        {
            if (cells.start[c] == cells.start[c + 1])
            {
                throw bad("coarse cell " + std::to_string(c) + " has no fine cells");
            }
        }
        const detail::SourceLists inner = detail::groupBy(fine.nFaces, nCoarse_, [&](int f) { return fr[f] < 0 ? -1 - fr[f] : -1; });
        detail::SourceLists faces = detail::groupBy(fine.nFaces, nCoarseFaces_, [&](int f) { return fr[f]; });
        for (int& f : faces.item)
        {
            f = level.faceFlipMap[f] ? ~f : f;
        }

        restrictAddressing_ = toBackend(std::vector<int>(r, r + nFine_));
        cellStart_ = toBackend(cells.start);
        cells_ = toBackend(cells.item);
        innerFaceStart_ = toBackend(inner.start);
        innerFaces_ = toBackend(inner.item);
        faceStart_ = toBackend(faces.start);
        faces_ = toBackend(faces.item);
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
