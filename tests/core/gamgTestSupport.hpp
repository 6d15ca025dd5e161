// SPDX-License-Identifier: GPL-3.0-or-later
// What the GAMG tests share (gamgHierarchyTest.cpp, gamgSmootherTest.cpp, gamgCycleTest.cpp,
// gamgCoarsestTest.cpp): the suite GamgTest; an agglomeration built the way OpenFOAM's
// agglomerateLduAddressing builds it (coarse faces of a cell in the order they are met: not
// upper-triangular) and OpenFOAM's coarse matrix of it (GAMGSolverAgglomerateMatrix.C); a
// hierarchy of three such levels; a momentum-like matrix; an exact dense coarsest solve.

#ifndef GPULDU_GAMGTESTSUPPORT_HPP
#define GPULDU_GAMGTESTSUPPORT_HPP

#include "testSupport.hpp"

#include "multigrid/GamgHierarchyImpl.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

namespace gpuLdu::test
{

template<class B>
class GamgTest : public ::testing::Test {};

TYPED_TEST_SUITE(GamgTest, Backends);

//- One coarsening step as OpenFOAM's GAMGAgglomeration::agglomerateLduAddressing makes it from
//  a cell map: coarse faces numbered per coarse owner in the order the fine faces meet them
struct TestLevel
{
    std::vector<int> restrictAddressing;
    std::vector<int> faceRestrictAddressing;
    std::vector<int> lower;
    std::vector<int> upper;
    int nCells = 0;
    // bool storage for GamgLevelView::faceFlipMap
    std::unique_ptr<bool[]> flipBools;

    LduAddressingView coarse() const
    {
        return {nCells, int(lower.size()), lower.data(), upper.data()};
    }

    GamgLevelView view() const
    {
        return {coarse(), restrictAddressing.data(), faceRestrictAddressing.data(), flipBools.get()};
    }
};

//- Pairs of neighbouring cells (each cell with its first unpaired neighbour, in face order;
//  a cell without one alone), the pairs given coarse numbers in a shuffled order (so that fine
//  faces flip on coarse ones)
inline TestLevel agglomerate(const LduAddressingView& fine, unsigned seed)
{
    TestLevel t;
    std::vector<int> pair(fine.nCells, -1);
    for (int f = 0; f < fine.nFaces; ++f)
    {
        if (pair[fine.lower[f]] < 0 && pair[fine.upper[f]] < 0)
        {
            pair[fine.lower[f]] = pair[fine.upper[f]] = t.nCells++;
        }
    }
    for (int& c : pair)
    {
        c = c < 0 ? t.nCells++ : c;
    }
    std::vector<int> number(t.nCells);
    std::iota(number.begin(), number.end(), 0);
    std::shuffle(number.begin(), number.end(), std::mt19937(seed));
    for (int i = 0; i < fine.nCells; ++i)
    {
        t.restrictAddressing.push_back(number[pair[i]]);
    }
    // per coarse owner its coarse neighbours in order of first meeting
    std::vector<std::vector<std::pair<int, int>>> nbrs(t.nCells);
    std::vector<std::pair<int, int>> faceOf(fine.nFaces);
    for (int f = 0; f < fine.nFaces; ++f)
    {
        const int cu = t.restrictAddressing[fine.upper[f]];
        const int cl = t.restrictAddressing[fine.lower[f]];
        if (cu == cl)
        {
            faceOf[f] = {-1, cl};
            continue;
        }
        const int own = std::min(cu, cl);
        const int nei = std::max(cu, cl);
        auto& list = nbrs[own];
        auto it = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == nei; });
        int slot = int(it - list.begin());
        if (it == list.end())
        {
            list.push_back({nei, 0});
        }
        faceOf[f] = {own, slot};
    }
    std::vector<std::vector<int>> number2(t.nCells);
    for (int c = 0; c < t.nCells; ++c)
    {
        for (const auto& e : nbrs[c])
        {
            number2[c].push_back(int(t.lower.size()));
            t.lower.push_back(c);
            t.upper.push_back(e.first);
        }
    }
    t.flipBools.reset(new bool[std::max(fine.nFaces, 1)]);
    for (int f = 0; f < fine.nFaces; ++f)
    {
        if (faceOf[f].first < 0)
        {
            t.faceRestrictAddressing.push_back(-1 - faceOf[f].second);
            t.flipBools[f] = false;
        }
        else
        {
            const int F = number2[faceOf[f].first][faceOf[f].second];
            t.faceRestrictAddressing.push_back(F);
            t.flipBools[f] = t.restrictAddressing[fine.lower[f]] != t.lower[F];
        }
    }
    return t;
}

//- GAMGSolver::agglomerateMatrix's loops: [diag | upper | lower]
inline std::vector<double> referenceCoarseMatrix(const LduProblem& p, const TestLevel& t)
{
    const int nC = t.nCells;
    const int nF = int(t.lower.size());
    std::vector<double> diag(nC, 0.0), upper(nF, 0.0), lower(nF, 0.0);
    for (int i = 0; i < p.nCells; ++i)
    {
        diag[t.restrictAddressing[i]] += p.diag[i];
    }
    for (int f = 0; f < p.nFaces(); ++f)
    {
        const int F = t.faceRestrictAddressing[f];
        if (p.symmetric())
        {
            if (F >= 0)
            {
                upper[F] += p.upperCoeffs[f];
            }
            else
            {
                diag[-1 - F] += 2*p.upperCoeffs[f];
            }
        }
        else if (F >= 0)
        {
            upper[F] += t.flipBools[f] ? p.lowerCoeffs[f] : p.upperCoeffs[f];
            lower[F] += t.flipBools[f] ? p.upperCoeffs[f] : p.lowerCoeffs[f];
        }
        else
        {
            diag[-1 - F] += p.upperCoeffs[f] + p.lowerCoeffs[f];
        }
    }
    diag.insert(diag.end(), upper.begin(), upper.end());
    if (!p.symmetric())
    {
        diag.insert(diag.end(), lower.begin(), lower.end());
    }
    return diag;
}

//- The matrix of a coarse level (referenceCoarseMatrix) as a problem of its own, each interface
//  term carried to the coarse cells of its two cells (as a GAMG interface's)
inline LduProblem coarseProblem(const LduProblem& p, const TestLevel& t)
{
    LduProblem c;
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        c.ifCell.push_back(t.restrictAddressing[p.ifCell[k]]);
        c.ifNbr.push_back(t.restrictAddressing[p.ifNbr[k]]);
        c.ifCoeff.push_back(p.ifCoeff[k]);
        if (c.ifCell.back() == c.ifNbr.back())
        {
            throw std::logic_error("an interface's two cells in one coarse cell");
        }
    }
    c.nCells = t.nCells;
    c.lower = t.lower;
    c.upper = t.upper;
    const std::vector<double> ldu = referenceCoarseMatrix(p, t);
    const std::size_t nF = t.lower.size();
    c.diag.assign(ldu.begin(), ldu.begin() + c.nCells);
    c.upperCoeffs.assign(ldu.begin() + c.nCells, ldu.begin() + c.nCells + nF);
    if (!p.symmetric())
    {
        c.lowerCoeffs.assign(ldu.begin() + c.nCells + nF, ldu.end());
    }
    return c;
}

//- An asymmetric matrix as a transient momentum equation's: the asymmetric test problem with
//  its diagonal made larger (the time derivative); periodicX as poisson3D's
inline LduProblem momentumLike(int nx, int ny, int nz, unsigned seed, bool periodicX = false)
{
    LduProblem p = asymmetric(nx, ny, nz, seed, periodicX);
    for (double& d : p.diag)
    {
        d *= 1.5;
    }
    return p;
}

//- Three coarse levels of a problem (agglomerate with seeds seed, seed + 1, seed + 2), the
//  problem of each level (the finest first) and the views a GamgHierarchy takes
struct TestHierarchy
{
    std::vector<TestLevel> levels;
    std::vector<LduProblem> problems;
    std::vector<GamgLevelView> views;

    TestHierarchy(const LduProblem& p, unsigned seed)
    :
        problems{p}
    {
        for (unsigned l = 0; l < 3; ++l)
        {
            levels.push_back(agglomerate(problems.back().addressing(), seed + l));
            problems.push_back(coarseProblem(problems.back(), levels.back()));
        }
        for (const TestLevel& t : levels)
        {
            views.push_back(t.view());
        }
    }
};

//- A direct solve of the coarsest level by dense Gaussian elimination with partial pivoting,
//  keeping the values it was given and counting its solves
class DenseCoarsest : public CoarsestSolver
{
    int n_;
    LduAddressingView addr_;
    std::vector<double> dense_;

public:
    std::vector<double> diag, upper, lower;
    int solves = 0;

    explicit DenseCoarsest(const LduAddressingView& addr) : n_(addr.nCells), addr_(addr) {}

    void setMatrix(const double* d, const double* u, const double* l) override
    {
        diag.assign(d, d + n_);
        upper.assign(u, u + addr_.nFaces);
        lower.assign(l ? l : u, (l ? l : u) + addr_.nFaces);
        dense_.assign(std::size_t(n_)*n_, 0.0);
        for (int i = 0; i < n_; ++i)
        {
            dense_[std::size_t(i)*n_ + i] = diag[i];
        }
        for (int f = 0; f < addr_.nFaces; ++f)
        {
            dense_[std::size_t(addr_.lower[f])*n_ + addr_.upper[f]] = upper[f];
            dense_[std::size_t(addr_.upper[f])*n_ + addr_.lower[f]] = lower[f];
        }
    }

    void solve(const double* source, double* psi) override
    {
        ++solves;
        std::vector<double> a = dense_;
        std::vector<double> x(source, source + n_);
        for (int k = 0; k < n_; ++k)
        {
            int p = k;
            for (int i = k + 1; i < n_; ++i)
            {
                if (std::abs(a[std::size_t(i)*n_ + k]) > std::abs(a[std::size_t(p)*n_ + k]))
                {
                    p = i;
                }
            }
            for (int j = 0; j < n_; ++j)
            {
                std::swap(a[std::size_t(k)*n_ + j], a[std::size_t(p)*n_ + j]);
            }
            std::swap(x[k], x[p]);
            for (int i = k + 1; i < n_; ++i)
            {
                const double m = a[std::size_t(i)*n_ + k]/a[std::size_t(k)*n_ + k];
                for (int j = k; j < n_; ++j)
                {
                    a[std::size_t(i)*n_ + j] -= m*a[std::size_t(k)*n_ + j];
                }
                x[i] -= m*x[k];
            }
        }
        for (int i = n_ - 1; i >= 0; --i)
        {
            double s = x[i];
            for (int j = i + 1; j < n_; ++j)
            {
                s -= a[std::size_t(i)*n_ + j]*psi[j];
            }
            psi[i] = s/a[std::size_t(i)*n_ + i];
        }
    }
};

} // namespace gpuLdu::test

#endif
