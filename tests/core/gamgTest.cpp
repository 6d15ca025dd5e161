// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG (multigrid/): the coarse matrices and restriction against OpenFOAM's loops
// (GAMGSolverAgglomerateMatrix.C, GAMGAgglomerationTemplates.C), the smoothers against
// OpenFOAM's (GaussSeidelSmoother.C, symGaussSeidelSmoother.C, DICSmoother.C), bit for bit on
// both backends, on an agglomeration built the way OpenFOAM's agglomerateLduAddressing builds
// it (coarse faces of a cell in the order they are met: not upper-triangular), and whole solves.

#include "testSupport.hpp"

#include "multigrid/GamgSystemImpl.hpp"

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <stdexcept>

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

TYPED_TEST(GamgTest, CoarseMatrixAndRestrictionAreOpenFOAMsSums)
{
    using B = TypeParam;
    for (const LduProblem& p : {poisson3D(9, 7, 5, 1, -1), asymmetric(9, 7, 5, 2)})
    {
        const TestLevel t = agglomerate(p.addressing(), 3);
        const Agglomeration<B> step(p.addressing(), t.view());
        const std::size_t nC = t.nCells, nF = t.lower.size();

        std::vector<double> ldu = p.diag;
        ldu.insert(ldu.end(), p.upperCoeffs.begin(), p.upperCoeffs.end());
        ldu.insert(ldu.end(), p.lowerOrUpper().begin(), p.lowerOrUpper().end());
        const typename B::template Vector<double> fine(ldu.begin(), ldu.end());
        typename B::template Vector<double> coarse(nC + 2*nF);
        const double* f = ptr(fine);
        step.coarseMatrix(f, f + p.nCells, f + p.nCells + p.nFaces(), p.symmetric(), ptr(coarse));
        std::vector<double> got = toHost(coarse);
        got.resize(p.symmetric() ? nC + nF : nC + 2*nF);
        EXPECT_EQ(got, referenceCoarseMatrix(p, t));

        const std::vector<double> x = randomVector(p.nCells, 4);
        std::vector<double> expected(nC, 0.0);
        for (int i = 0; i < p.nCells; ++i)
        {
            expected[t.restrictAddressing[i]] += x[i];
        }
        const typename B::template Vector<double> xd(x.begin(), x.end());
        typename B::template Vector<double> xc(nC);
        step.restrictField(ptr(xd), ptr(xc));
        EXPECT_EQ(toHost(xc), expected);
    }
}

TYPED_TEST(GamgTest, RejectsInconsistentAgglomeration)
{
    const LduProblem p = poisson3D(4, 3, 2, 1, -1);
    TestLevel t = agglomerate(p.addressing(), 5);
    t.restrictAddressing[3] = t.nCells;
    EXPECT_THROW((Agglomeration<TypeParam>(p.addressing(), t.view())), Error);
    t = agglomerate(p.addressing(), 5);
    t.faceRestrictAddressing[0] = -1 - (t.restrictAddressing[p.lower[0]] + 1) % t.nCells;
    EXPECT_THROW((Agglomeration<TypeParam>(p.addressing(), t.view())), Error);
}

//- OpenFOAM's smoothers, their face loops written out (GaussSeidelSmoother.C,
//  symGaussSeidelSmoother.C, DICSmoother.C/DILUSmoother.C with lduMatrix::residual), the
//  problem's interfaces as OpenFOAM's interface update with add = false: b' += c x_neighbour
inline void referenceSmooth(const LduProblem& p, GamgSmoother smoother, std::vector<double>& psi,
                            const std::vector<double>& b, int nSweeps)
{
    const int n = p.nCells;
    const auto& lo = p.lowerOrUpper();
    const auto& up = p.upperCoeffs;
    std::vector<int> ownStart(n + 1, 0);
    for (int f = 0; f < p.nFaces(); ++f)
    {
        ++ownStart[p.lower[f] + 1];
    }
    std::partial_sum(ownStart.begin(), ownStart.end(), ownStart.begin());
    const auto gsPass = [&](std::vector<double>& bPrime, int celli)
    {
        double psii = bPrime[celli];
        for (int f = ownStart[celli]; f < ownStart[celli + 1]; ++f)
        {
            psii -= up[f]*psi[p.upper[f]];
        }
        psii /= p.diag[celli];
        for (int f = ownStart[celli]; f < ownStart[celli + 1]; ++f)
        {
            bPrime[p.upper[f]] -= lo[f]*psii;
        }
        psi[celli] = psii;
    };
    const auto gaussSeidel = [&](bool symmetric)
    {
        for (int s = 0; s < nSweeps; ++s)
        {
            std::vector<double> bPrime = b;
            for (std::size_t k = 0; k < p.ifCell.size(); ++k)
            {
                bPrime[p.ifCell[k]] += p.ifCoeff[k]*psi[p.ifNbr[k]];
            }
            for (int c = 0; c < n; ++c)
            {
                gsPass(bPrime, c);
            }
            for (int c = n - 1; symmetric && c >= 0; --c)
            {
                gsPass(bPrime, c);
            }
        }
    };
    const auto incompleteFactor = [&]()
    {
        std::vector<double> rD = p.diag;
        for (int f = 0; f < p.nFaces(); ++f)
        {
            rD[p.upper[f]] -= up[f]*lo[f]/rD[p.lower[f]];
        }
        for (double& d : rD)
        {
            d = 1.0/d;
        }
        for (int s = 0; s < nSweeps; ++s)
        {
            std::vector<double> rA(n);
            for (int c = 0; c < n; ++c)
            {
                rA[c] = b[c] - p.diag[c]*psi[c];
            }
            for (int f = 0; f < p.nFaces(); ++f)
            {
                rA[p.upper[f]] -= lo[f]*psi[p.lower[f]];
                rA[p.lower[f]] -= up[f]*psi[p.upper[f]];
            }
            for (std::size_t k = 0; k < p.ifCell.size(); ++k)
            {
                rA[p.ifCell[k]] += p.ifCoeff[k]*psi[p.ifNbr[k]];
            }
            for (int c = 0; c < n; ++c)
            {
                rA[c] *= rD[c];
            }
            for (int f = 0; f < p.nFaces(); ++f)
            {
                rA[p.upper[f]] -= rD[p.upper[f]]*lo[f]*rA[p.lower[f]];
            }
            for (int f = p.nFaces() - 1; f >= 0; --f)
            {
                rA[p.lower[f]] -= rD[p.lower[f]]*up[f]*rA[p.upper[f]];
            }
            for (int c = 0; c < n; ++c)
            {
                psi[c] += rA[c];
            }
        }
    };
    const std::string name = smootherName(smoother);
    if (name == "GaussSeidel")
    {
        gaussSeidel(false);
    }
    else if (name == "symGaussSeidel")
    {
        gaussSeidel(true);
    }
    else if (name == "DIC" || name == "DILU")
    {
        incompleteFactor();
    }
    else if (name == "DICGaussSeidel" || name == "DILUGaussSeidel")
    {
        incompleteFactor();
        gaussSeidel(false);
    }
    else
    {
        FAIL() << "no reference for the smoother " << name;
    }
}

//- The plugin's own smoothers from their definitions (multigrid/smoothers/L1Jacobi.hpp, Chebyshev.hpp), on the
//  faces: l1Jacobi; Chebyshev in the three-term form of the Chebyshev polynomials' values
//  c_k = T_k(sigma) (c_0 = 1, c_1 = sigma, c_{k+1} = 2 sigma c_k - c_{k-1}):
//      x_1 = x_0 + r_0/theta,
//      x_{k+1} = x_k + 2 c_k/(c_{k+1} delta) r_k + c_{k-1}/c_{k+1} (x_k - x_{k-1})
//  with r_k = D^-1 (b - A x_k): another form of the same iteration than the one the solver runs
inline void referenceJacobiSmooth(const LduProblem& p, GamgSmoother smoother, std::vector<double>& psi,
                                  const std::vector<double>& b, int nSweeps)
{
    const int n = p.nCells;
    std::vector<double> offMag(n, 0.0);
    for (int f = 0; f < p.nFaces(); ++f)
    {
        offMag[p.lower[f]] += std::abs(p.upperCoeffs[f]);
        offMag[p.upper[f]] += std::abs(p.lowerOrUpper()[f]);
    }
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        offMag[p.ifCell[k]] += std::abs(p.ifCoeff[k]);
    }
    const auto residual = [&](const std::vector<double>& x)
    {
        std::vector<double> r = referenceAmul(p, x);
        for (int c = 0; c < n; ++c)
        {
            r[c] = b[c] - r[c];
        }
        return r;
    };
    if (smoother == GamgSmoother::named("l1Jacobi"))
    {
        for (int s = 0; s < nSweeps; ++s)
        {
            const std::vector<double> r = residual(psi);
            for (int c = 0; c < n; ++c)
            {
                const double D = p.diag[c];
                psi[c] += r[c]/(D > 0 ? D + offMag[c] : D - offMag[c]);
            }
        }
        return;
    }
    double beta = 0;
    for (int c = 0; c < n; ++c)
    {
        beta = std::max(beta, 1 + offMag[c]/std::abs(p.diag[c]));
    }
    const double alpha = ChebyshevCoefficients::lowerFraction*beta;
    const double theta = (beta + alpha)/2, delta = (beta - alpha)/2, sigma = theta/delta;
    double cPrev = 1, c = sigma;
    std::vector<double> xPrev = psi;
    for (int k = 0; k < nSweeps; ++k)
    {
        std::vector<double> r = residual(psi);
        const double cNext = 2*sigma*c - cPrev;
        for (int i = 0; i < n; ++i)
        {
            r[i] /= p.diag[i];
            const double step = k == 0
                ? r[i]/theta
                : 2*c/(cNext*delta)*r[i] + cPrev/cNext*(psi[i] - xPrev[i]);
            xPrev[i] = psi[i];
            psi[i] += step;
        }
        if (k > 0)
        {
            cPrev = c;
            c = cNext;
        }
    }
}

//- The problem with interface couplings between random pairs of cells added (cells on several
//  interfaces among them), in the sign of its diagonal and kept in the diagonal, as a cyclic's
inline LduProblem withInterfaces(LduProblem p, unsigned seed)
{
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> cell(0, p.nCells - 1);
    std::uniform_real_distribution<double> weight(0.5, 1.5);
    for (int k = 0; k < p.nCells/8; ++k)
    {
        const int a = cell(gen);
        const int b = cell(gen);
        if (a == b)
        {
            continue;
        }
        const double sign = p.diag[a] < 0 ? -1 : 1;
        const double w = sign*weight(gen);
        p.ifCell.insert(p.ifCell.end(), {a, b});
        p.ifNbr.insert(p.ifNbr.end(), {b, a});
        p.ifCoeff.insert(p.ifCoeff.end(), {w, w});
        p.diag[a] += w;
        p.diag[b] += w;
    }
    return p;
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

TYPED_TEST(GamgTest, SmoothersAreOpenFOAMs)
{
    // a coarse level's matrix: its faces are not in upper-triangular order
    for (const LduProblem& fine : {poisson3D(12, 9, 7, 6, -1), asymmetric(12, 9, 7, 7)})
    for (bool interfaces : {false, true})
    {
        const TestLevel t = agglomerate(fine.addressing(), 8);
        const LduProblem p = interfaces ? withInterfaces(coarseProblem(fine, t), 12) : coarseProblem(fine, t);
        const ProblemCoupling coupling(p);
        const TestLevel t2 = agglomerate(p.addressing(), 9);
        GamgSystemImpl<TypeParam> gamg(p.addressing(), {t2.view()});
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        gamg.setInterfaces({coupling.cells(), {}});
        const std::vector<double> b = randomVector(p.nCells, 10);
        const std::vector<GamgSmoother> smoothers = p.symmetric()
            ? std::vector<GamgSmoother>{GamgSmoother::named("GaussSeidel"), GamgSmoother::named("symGaussSeidel"),
                                        GamgSmoother::named("DIC"), GamgSmoother::named("DICGaussSeidel")}
            : std::vector<GamgSmoother>{GamgSmoother::named("GaussSeidel"), GamgSmoother::named("symGaussSeidel"),
                                        GamgSmoother::named("DILU"), GamgSmoother::named("DILUGaussSeidel")};
        for (GamgSmoother s : smoothers)
        {
            std::vector<double> expected = randomVector(p.nCells, 11);
            std::vector<double> psi = expected;
            referenceSmooth(p, s, expected, b, 2);
            gamg.smoothFinest(s, psi.data(), b.data(), 2, coupling);
            EXPECT_EQ(psi, expected) << "smoother " << smootherName(s) << (p.symmetric() ? " symmetric" : " asymmetric")
                                     << (interfaces ? " with interfaces" : "");
        }
    }
}

TYPED_TEST(GamgTest, JacobiSmoothersAreTheirDefinitions)
{
    for (const LduProblem& fine : {poisson3D(12, 9, 7, 6, -1), asymmetric(12, 9, 7, 7)})
    for (bool interfaces : {false, true})
    {
        const TestLevel t = agglomerate(fine.addressing(), 8);
        const LduProblem p = interfaces ? withInterfaces(coarseProblem(fine, t), 12) : coarseProblem(fine, t);
        const ProblemCoupling coupling(p);
        const TestLevel t2 = agglomerate(p.addressing(), 9);
        GamgSystemImpl<TypeParam> gamg(p.addressing(), {t2.view()});
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        gamg.setInterfaces({coupling.cells(), {}});
        const std::vector<double> b = randomVector(p.nCells, 10);
        for (GamgSmoother s : {GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            // odd and even numbers of sweeps: the result lands in psi either way
            for (int nSweeps : {1, 2, 3, 4})
            {
                std::vector<double> expected = randomVector(p.nCells, 11);
                std::vector<double> psi = expected;
                referenceJacobiSmooth(p, s, expected, b, nSweeps);
                gamg.smoothFinest(s, psi.data(), b.data(), nSweeps, coupling);
                double maxDiff = 0, maxMag = 0;
                for (int i = 0; i < p.nCells; ++i)
                {
                    maxDiff = std::max(maxDiff, std::abs(psi[i] - expected[i]));
                    maxMag = std::max(maxMag, std::abs(expected[i]));
                }
                EXPECT_LT(maxDiff, 1e-12*maxMag) << "smoother " << smootherName(s) << ", " << nSweeps << " sweeps"
                                                 << (p.symmetric() ? " symmetric" : " asymmetric")
                                                 << (interfaces ? " with interfaces" : "");
            }
        }
    }
}

TYPED_TEST(GamgTest, ChebyshevDampsTheUpperSpectrum)
{
    // the graph Laplacian of a 10^3 grid (off-diagonal -1, diagonal the number of neighbours):
    // a checkerboard is an eigenvector of D^-1 A with its largest eigenvalue 2, Gershgorin's
    // bound. On A x = 0 the smoothed psi is the error: after 3 steps the checkerboard is down
    // by the polynomial's value at beta, 1/T_3(sigma), and a smooth error barely changes
    LduProblem p = poisson3D(10, 10, 10, 5);
    std::fill(p.upperCoeffs.begin(), p.upperCoeffs.end(), -1.0);
    std::fill(p.diag.begin(), p.diag.end(), 0.0);
    for (int f = 0; f < p.nFaces(); ++f)
    {
        p.diag[p.lower[f]] += 1;
        p.diag[p.upper[f]] += 1;
    }
    const TestLevel t = agglomerate(p.addressing(), 3);
    GamgSystemImpl<TypeParam> gamg(p.addressing(), {t.view()});
    gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    const std::vector<double> zero(p.nCells, 0.0);
    std::vector<double> checkerboard(p.nCells), smooth(p.nCells);
    for (int i = 0; i < p.nCells; ++i)
    {
        const int x = i % 10, y = (i/10) % 10, z = i/100;
        checkerboard[i] = ((x + y + z) % 2) ? 1.0 : -1.0;
        smooth[i] = std::sin(M_PI*(x + 1)/11)*std::sin(M_PI*(y + 1)/11)*std::sin(M_PI*(z + 1)/11);
    }
    const auto norm = [](const std::vector<double>& v)
    {
        double s = 0;
        for (double x : v)
        {
            s += x*x;
        }
        return std::sqrt(s);
    };
    const double sigma = (1 + ChebyshevCoefficients::lowerFraction)/(1 - ChebyshevCoefficients::lowerFraction);
    const double T3 = 4*sigma*sigma*sigma - 3*sigma;
    std::vector<double> e = checkerboard;
    gamg.smoothFinest(GamgSmoother::named("Chebyshev"), e.data(), zero.data(), 3);
    EXPECT_NEAR(norm(e), norm(checkerboard)/T3, 1e-9*norm(checkerboard));
    e = smooth;
    gamg.smoothFinest(GamgSmoother::named("Chebyshev"), e.data(), zero.data(), 3);
    EXPECT_GT(norm(e), 0.5*norm(smooth));
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
//  problem of each level (the finest first) and the views a GamgSystem takes
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

TYPED_TEST(GamgTest, SolvesToTolerance)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 12, -1), momentumLike(16, 12, 10, 13)})
    {
        const TestHierarchy h(p, 20);
        const std::vector<GamgLevelView>& views = h.views;
        auto gamg = std::make_unique<GamgSystemImpl<TypeParam>>(p.addressing(), views);
        gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> b = referenceSource(p);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            SolverControls controls;
            controls.tolerance = 1e-9;
            std::vector<double> psi(p.nCells, 0.0);
            const SolveResult r = gamg->solve(psi.data(), b.data(), controls, c, {});
            EXPECT_TRUE(r.converged) << "smoother " << smootherName(s);
            EXPECT_LT(r.finalResidual, 1e-9);
            EXPECT_GT(r.nIterations, 1);
            EXPECT_LT(r.nIterations, 100);
            // the residual it reports is that of the psi it returns (normalised at the start:
            // psi = 0, A psi = 0)
            const std::vector<double> Ax = referenceAmul(p, psi);
            double sum = 0;
            for (int i = 0; i < p.nCells; ++i)
            {
                sum += std::abs(b[i] - Ax[i]);
            }
            const std::vector<double> zero(p.nCells, 0.0);
            EXPECT_NEAR(sum/referenceNormFactor(p, zero, zero, b), r.finalResidual, 1e-12*r.finalResidual);
        }
    }
}

//- Before its V-cycles a GAMG solve reports what it would compute with or divide by (with
//  OpenFOAM's floating-point traps on, on the host): a non-finite value of the fine matrix or
//  source, a zero diagonal of a level the V-cycle divides by (level 0 and a coarse one, its
//  coarse cell), a zero DIC pivot of a smoother; none where the start is converged (OpenFOAM
//  builds its smoothers only when it iterates)
TYPED_TEST(GamgTest, BadValuesAndPivotsAreReportedWithTheirLevel)
{
    const LduProblem good = poisson3D(16, 12, 10, 12, -1);
    const TestHierarchy h(good, 20);
    const std::vector<double> b = referenceSource(good);
    const auto solveError = [&](const LduProblem& p, const GamgControls& c, const std::vector<double>& source)
    {
        GamgSystemImpl<TypeParam> gamg(p.addressing(), h.views);
        std::vector<double> psi(p.nCells, 0.0);
        SolverControls controls;
        controls.tolerance = 1e-9;
        BadValue none;
        none.index = -1;
        const int before = fegetexcept();
        feenableexcept(FE_DIVBYZERO | FE_INVALID | FE_OVERFLOW);
        try
        {
            gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
            gamg.solve(psi.data(), source.data(), controls, c, {});
        }
        catch (const ValueError& e)
        {
            none = e.bad();
        }
        fedisableexcept(FE_ALL_EXCEPT);
        feenableexcept(before);
        return none;
    };
    GamgControls gaussSeidel;
    GamgControls dic;
    dic.smoother = GamgSmoother::named("DIC");
    dic.scaleCorrection = false;

    EXPECT_EQ(solveError(good, gaussSeidel, b).index, -1);
    EXPECT_EQ(solveError(good, dic, b).index, -1);

    std::vector<double> source = b;
    source[42] = std::nan("");
    BadValue e = solveError(good, gaussSeidel, source);
    EXPECT_EQ(e.kind, ValueKind::source);
    EXPECT_EQ(e.index, 42);
    EXPECT_EQ(e.level, 0);

    // GaussSeidel divides by the fine diagonal
    LduProblem p = good;
    p.diag[77] = 0.0;
    e = solveError(p, gaussSeidel, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "diagonal");
    EXPECT_EQ(e.level, 0);
    EXPECT_EQ(e.row, 77);
    // not where the solve does not iterate
    EXPECT_EQ(solveError(p, gaussSeidel, std::vector<double>(p.nCells, 0.0)).index, -1);

    // DIC's first pivot is the first diagonal (no scaling: nothing else divides by it)
    p = good;
    p.diag[0] = 0.0;
    e = solveError(p, dic, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "DIC");
    EXPECT_EQ(e.level, 0);
    EXPECT_EQ(e.row, 0);

    // a coarse cell of level 1 made of fine cells i and j (face f between them) has the
    // diagonal diag_i + diag_j + 2 upper_f: zero, exactly, with diag_i = diag_j = -upper_f
    const TestLevel& first = h.levels[0];
    int f = 0;
    while (first.restrictAddressing[good.lower[f]] != first.restrictAddressing[good.upper[f]])
    {
        ++f;
    }
    p = good;
    p.diag[good.lower[f]] = p.diag[good.upper[f]] = -good.upperCoeffs[f];
    e = solveError(p, gaussSeidel, b);
    EXPECT_EQ(e.kind, ValueKind::pivot);
    EXPECT_EQ(e.pivotOf, "diagonal");
    EXPECT_EQ(e.level, 1);
    EXPECT_EQ(e.row, first.restrictAddressing[good.lower[f]]);
}

//- Coupled interfaces on every level (cyclic-like couplings between the x = 0 and x = nx - 1
//  planes, carried to the coarse levels): every smoother solves the coupled system, the residual
//  it reports is the coupled one of the psi it returns; without the couplings the same solve
//  leaves the coupled residual far from converged (the test sees the interfaces)
TYPED_TEST(GamgTest, CoupledSolvesToTolerance)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 14, -1, true), momentumLike(16, 12, 10, 15, true)})
    {
        const TestHierarchy h(p, 30);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf;
        for (const LduProblem& level : problems)
        {
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            ASSERT_FALSE(cellsOf.back().empty());
        }
        auto gamg = std::make_unique<GamgSystemImpl<TypeParam>>(p.addressing(), views);
        gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> zero(p.nCells, 0.0);
        const double normFactor = referenceNormFactor(p, zero, zero, b);
        const auto coupledResidual = [&](const std::vector<double>& psi)
        {
            const std::vector<double> Ax = referenceAmul(p, psi);
            double sum = 0;
            for (int i = 0; i < p.nCells; ++i)
            {
                sum += std::abs(b[i] - Ax[i]);
            }
            return sum/normFactor;
        };
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<double> psi(p.nCells, 0.0);
            gamg->setInterfaces(cellsOf);
            const SolveResult r = gamg->solve(psi.data(), b.data(), controls, c, couplingOf);
            EXPECT_TRUE(r.converged) << "smoother " << smootherName(s);
            EXPECT_LT(r.finalResidual, 1e-9);
            EXPECT_NEAR(coupledResidual(psi), r.finalResidual, 1e-9*r.finalResidual) << "smoother " << smootherName(s);

            // the same solve blind to the interfaces
            std::vector<double> blind(p.nCells, 0.0);
            gamg->setInterfaces(std::vector<std::vector<int>>(problems.size()));
            controls.maxIter = 20;
            gamg->solve(blind.data(), b.data(), controls, c, {});
            EXPECT_GT(coupledResidual(blind), 1e-4) << "smoother " << smootherName(s);
        }
    }
}

//- The interface terms of a test problem as DeviceCouplings: rows ascending, each row's terms
//  in the problem's order (as ProblemCoupling applies them); their coefficients in coeffs
DeviceCouplings deviceCouplings(const LduProblem& p, std::vector<double>& coeffs)
{
    std::map<int, std::vector<std::size_t>> termsOf;
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        termsOf[p.ifCell[k]].push_back(k);
    }
    DeviceCouplings c;
    coeffs.clear();
    for (const auto& [row, terms] : termsOf)
    {
        c.rows.push_back(row);
        for (const std::size_t k : terms)
        {
            c.cols.push_back(p.ifNbr[k]);
            coeffs.push_back(p.ifCoeff[k]);
        }
        c.start.push_back(int(c.cols.size()));
    }
    return c;
}

//- Ranks consolidated into one hierarchy: the interface terms every level applies itself
//  (DeviceCouplings: product, residual, row sums, magnitudes) give the solve the host's
//  couplings give, bit for bit, with every smoother (the coarsest level on the host too, on the
//  GPU); sums taken per part on both
TYPED_TEST(GamgTest, DeviceCouplingsAreTheHostCouplings)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 16, -1, true), momentumLike(16, 12, 10, 17, true)})
    {
        const TestHierarchy h(p, 40);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf, partsOf;
        std::vector<DeviceCouplings> deviceOf;
        std::vector<std::vector<double>> coeffsOf(problems.size());
        for (std::size_t k = 0; k < problems.size(); ++k)
        {
            const LduProblem& level = problems[k];
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            partsOf.push_back({0, level.nCells/3, level.nCells});
            deviceOf.push_back(deviceCouplings(level, coeffsOf[k]));
            ASSERT_GT(deviceOf.back().nTerms(), 0);
        }
        auto host = std::make_unique<GamgSystemImpl<TypeParam>>(p.addressing(), views);
        auto device = std::make_unique<GamgSystemImpl<TypeParam>>(p.addressing(), views);
        for (auto* gamg : {host.get(), device.get()})
        {
            gamg->setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
            gamg->setParts(partsOf);
        }
        host->setInterfaces(cellsOf);
        device->setDeviceCouplings(deviceOf);
        for (std::size_t k = 0; k < problems.size(); ++k)
        {
            device->setDeviceCouplingCoeffs(int(k), coeffsOf[k].data(), coeffsOf[k].data());
        }
        const std::vector<double> b = referenceSource(p);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), GamgSmoother::named("symGaussSeidel"),
                               p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        {
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            c.nPreSweeps = 1;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<double> psiHost(p.nCells, 0.0), psiDevice(p.nCells, 0.0);
            const SolveResult h = host->solve(psiHost.data(), b.data(), controls, c, couplingOf);
            const SolveResult d = device->solve(psiDevice.data(), b.data(), controls, c, {});
            EXPECT_TRUE(h.converged) << "smoother " << smootherName(s);
            EXPECT_EQ(h.nIterations, d.nIterations) << "smoother " << smootherName(s);
            EXPECT_EQ(h.initialResidual, d.initialResidual) << "smoother " << smootherName(s);
            EXPECT_EQ(h.finalResidual, d.finalResidual) << "smoother " << smootherName(s);
            EXPECT_EQ(psiHost, psiDevice) << "smoother " << smootherName(s);
        }
    }
}

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

//- directSolveCoarsest: the coarsest level goes to the host's solver, with the coarsest matrix
//  OpenFOAM's sums make (bit for bit), once per V-cycle; the solve converges with it; unset, the
//  default coarsest solve is back
TYPED_TEST(GamgTest, CoarsestSolverTakesTheCoarsestLevel)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 16, -1), momentumLike(16, 12, 10, 17)})
    {
        const TestHierarchy h(p, 40);
        const std::vector<LduProblem>& problems = h.problems;
        const std::vector<GamgLevelView>& views = h.views;
        GamgSystemImpl<TypeParam> gamg(p.addressing(), views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const LduProblem& coarsest = problems.back();
        DenseCoarsest direct(coarsest.addressing());
        gamg.setCoarsestSolver(&direct);
        const std::vector<double> b = referenceSource(p);
        GamgControls c;
        c.scaleCorrection = p.symmetric();
        SolverControls controls;
        controls.tolerance = 1e-9;
        std::vector<double> psi(p.nCells, 0.0);
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, {});
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.finalResidual, 1e-9);
        EXPECT_EQ(direct.solves, r.nIterations);
        EXPECT_EQ(direct.diag, coarsest.diag);
        EXPECT_EQ(direct.upper, coarsest.upperCoeffs);
        EXPECT_EQ(direct.lower, coarsest.lowerOrUpper());

        gamg.setCoarsestSolver(nullptr);
        std::vector<double> psi2(p.nCells, 0.0);
        const int solvesBefore = direct.solves;
        EXPECT_TRUE(gamg.solve(psi2.data(), b.data(), controls, c, {}).converged);
        EXPECT_EQ(direct.solves, solvesBefore);
    }
}

//- diagonalSolver as a CoarsestSolver on the host: psi = source/diag (the reference of
//  GamgControls::coarsestByDiagonal)
class DiagonalCoarsest : public CoarsestSolver
{
    int n_;
    std::vector<double> diag_;

public:
    int solves = 0;

    explicit DiagonalCoarsest(int n) : n_(n) {}

    void setMatrix(const double* d, const double*, const double*) override
    {
        diag_.assign(d, d + n_);
    }

    void solve(const double* source, double* psi) override
    {
        ++solves;
        for (std::size_t i = 0; i < diag_.size(); ++i)
        {
            psi[i] = source[i]/diag_[i];
        }
    }
};

//- GamgControls::coarsestByDiagonal (the Foundation's 14 on a coarsest level without faces):
//  the coarsest correction is source/diag on the backend, V-cycle for V-cycle the same numbers
//  as that solve on the host (to the bit: one division each), symmetric and asymmetric; without
//  the control the coarsest level's faces count (PCG/PBiCGStab), and psi differs
TYPED_TEST(GamgTest, CoarsestByDiagonalIsSourceOverDiag)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 18, -1), momentumLike(16, 12, 10, 19)})
    {
        SCOPED_TRACE(p.symmetric() ? "symmetric" : "asymmetric");
        const TestHierarchy h(p, 50);
        const std::vector<double> b = referenceSource(p);
        SolverControls controls;
        controls.tolerance = 1e-8;
        controls.maxIter = 200;
        GamgControls c;
        c.scaleCorrection = p.symmetric();

        GamgSystemImpl<TypeParam> reference(p.addressing(), h.views);
        reference.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        DiagonalCoarsest host(h.problems.back().nCells);
        reference.setCoarsestSolver(&host);
        std::vector<double> psiHost(p.nCells, 0.0);
        const SolveResult rHost = reference.solve(psiHost.data(), b.data(), controls, c, {});

        GamgSystemImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        GamgControls diagonal = c;
        diagonal.coarsestByDiagonal = true;
        std::vector<double> psi(p.nCells, 0.0);
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, diagonal, {});

        EXPECT_GT(host.solves, 0);
        EXPECT_EQ(r.nIterations, rHost.nIterations);
        EXPECT_EQ(r.finalResidual, rHost.finalResidual);
        EXPECT_EQ(psi, psiHost);

        std::vector<double> psiKrylov(p.nCells, 0.0);
        gamg.solve(psiKrylov.data(), b.data(), controls, c, {});
        EXPECT_NE(psiKrylov, psiHost);
    }
}

//- GamgControls::directCoarsest: the coarsest level by the sparse LDL^T on the backend takes the
//  V-cycles of an exact dense solve there (DenseCoarsest), to rounding; new values are factored
//  anew (2 A against the dense solve of 2 A); an asymmetric matrix is refused
TYPED_TEST(GamgTest, DirectCoarsestIsAnExactCoarsestSolve)
{
    const LduProblem p = poisson3D(16, 12, 10, 16, -1);
    const TestHierarchy h(p, 40);
    GamgSystemImpl<TypeParam> gamg(p.addressing(), h.views);
    DenseCoarsest dense(h.problems.back().addressing());
    const std::vector<double> b = referenceSource(p);
    SolverControls controls;
    controls.tolerance = 1e-10;
    for (const double factor : {1.0, 2.0})
    {
        SCOPED_TRACE(factor);
        std::vector<double> diag = p.diag, upper = p.upperCoeffs;
        for (double& v : diag) v *= factor;
        for (double& v : upper) v *= factor;
        gamg.setMatrix(diag.data(), upper.data(), nullptr);
        GamgControls c;
        gamg.setCoarsestSolver(&dense);
        std::vector<double> reference(p.nCells, 0.0), psi(p.nCells, 0.0);
        const SolveResult expected = gamg.solve(reference.data(), b.data(), controls, c, {});
        gamg.setCoarsestSolver(nullptr);
        c.directCoarsest = true;
        const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, {});
        EXPECT_TRUE(r.converged);
        EXPECT_EQ(r.nIterations, expected.nIterations);
        EXPECT_NEAR(r.finalResidual, expected.finalResidual, 1e-3*expected.finalResidual);
        double scale = 0, difference = 0;
        for (int i = 0; i < p.nCells; ++i)
        {
            scale = std::max(scale, std::abs(reference[i]));
            difference = std::max(difference, std::abs(psi[i] - reference[i]));
        }
        EXPECT_LE(difference, 1e-9*scale);
    }

    const LduProblem a = momentumLike(16, 12, 10, 17);
    const TestHierarchy ha(a, 40);
    GamgSystemImpl<TypeParam> asymmetric(a.addressing(), ha.views);
    asymmetric.setMatrix(a.diag.data(), a.upperCoeffs.data(), a.lowerOrNull());
    GamgControls c;
    c.directCoarsest = true;
    std::vector<double> psi(a.nCells, 0.0);
    const std::vector<double> ba = referenceSource(a);
    EXPECT_THROW(asymmetric.solve(psi.data(), ba.data(), controls, c, {}), Error);
}

//- ESI's "norm none" (SolverControls::normalised = false) in GAMG: the initial residual is
//  sum|b - A psi0| itself, the final one sum|b - A psi| of the psi returned, to tolerance. The
//  same solve normalised with the tolerance divided by normFactor (far from 1 here) takes the
//  same V-cycles (the coarsest level solved directly, apart from the tolerance) to the same psi:
//  its residuals are these divided by normFactor (the negative control: a different initial
//  residual), and with the unscaled tolerance it stops earlier.
TYPED_TEST(GamgTest, UnnormalisedResidualsAreSumsOfTheResidual)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 12, -1), momentumLike(16, 12, 10, 13)})
    {
        SCOPED_TRACE(p.symmetric() ? "symmetric" : "asymmetric");
        const TestHierarchy h(p, 20);
        GamgSystemImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        DenseCoarsest direct(h.problems.back().addressing());
        gamg.setCoarsestSolver(&direct);
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> psi0 = randomVector(p.nCells, 24, -0.1, 0.1);
        const auto residualSum = [&](const std::vector<double>& x)
        {
            return referenceResidualSum(p, b, x);
        };
        const double r0 = residualSum(psi0);
        const double normFactor = referenceNormFactor(p, psi0, referenceAmul(p, psi0), b);
        ASSERT_GT(normFactor, 10.0);

        GamgControls gc;
        gc.scaleCorrection = p.symmetric();
        SolverControls c;
        c.normalised = false;
        c.tolerance = 1e-7;
        std::vector<double> psi = psi0;
        const SolveResult r = gamg.solve(psi.data(), b.data(), c, gc, {});
        EXPECT_TRUE(r.converged);
        EXPECT_LT(r.finalResidual, c.tolerance);
        EXPECT_GT(r.nIterations, 3);
        EXPECT_NEAR(r.initialResidual, r0, 1e-12*r0);
        EXPECT_NEAR(r.finalResidual, residualSum(psi), 1e-9*r.finalResidual);

        SolverControls scaled = c;
        scaled.normalised = true;
        scaled.tolerance = c.tolerance/normFactor;
        std::vector<double> psiN = psi0;
        const SolveResult n = gamg.solve(psiN.data(), b.data(), scaled, gc, {});
        EXPECT_NEAR(n.initialResidual, r0/normFactor, 1e-12*r0/normFactor);
        EXPECT_LT(n.initialResidual, 0.1*r.initialResidual);
        EXPECT_EQ(n.nIterations, r.nIterations);
        EXPECT_NEAR(n.finalResidual*normFactor, r.finalResidual, 1e-12*r.finalResidual);
        if (TypeParam::executor == Executor::cpu)
        {
            EXPECT_EQ(r.initialResidual, r0);
            EXPECT_EQ(psiN, psi);
        }
        else
        {
            EXPECT_LT(relativeDifference(psiN, psi), 1e-12);
        }

        SolverControls unscaled = scaled;
        unscaled.tolerance = c.tolerance;
        std::vector<double> psiU = psi0;
        EXPECT_LT(gamg.solve(psiU.data(), b.data(), unscaled, gc, {}).nIterations, r.nIterations);
    }
}

//- GamgControls::preSweepResidualByRows (ESI v2406+: the source after pre-smoothing as
//  lduMatrix::residual forms it, row by row, interfaces last) against b - A x (v1912, the
//  Foundation), with pre-sweeps on every coarse level, coupled interfaces on every level: both
//  converge to tolerance and report the residual of the psi they return; V-cycle by V-cycle
//  their residuals agree to rounding (the same sums in another order), and on the host they
//  differ in some cycle (the setting is taken). No sequential GAMG reference exists to hold
//  the row-wise one to.
TYPED_TEST(GamgTest, PreSweepResidualByRowsIsBMinusAxToRounding)
{
    for (const LduProblem& p : {poisson3D(16, 12, 10, 14, -1, true), momentumLike(16, 12, 10, 15, true)})
    {
        const TestHierarchy h(p, 30);
        std::vector<std::unique_ptr<ProblemCoupling>> couplings;
        std::vector<const Coupling*> couplingOf;
        std::vector<std::vector<int>> cellsOf;
        for (const LduProblem& level : h.problems)
        {
            couplings.push_back(std::make_unique<ProblemCoupling>(level));
            couplingOf.push_back(couplings.back().get());
            cellsOf.push_back(couplings.back()->cells());
            ASSERT_FALSE(cellsOf.back().empty());
        }
        GamgSystemImpl<TypeParam> gamg(p.addressing(), h.views);
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        gamg.setInterfaces(cellsOf);
        const std::vector<double> b = referenceSource(p);
        const std::vector<double> zero(p.nCells, 0.0);
        const double normFactor = referenceNormFactor(p, zero, zero, b);
        for (GamgSmoother s : {GamgSmoother::named("GaussSeidel"), p.symmetric() ? GamgSmoother::named("DIC") : GamgSmoother::named("DILU"),
                               GamgSmoother::named("l1Jacobi")})
        {
            SCOPED_TRACE(std::string(p.symmetric() ? "symmetric" : "asymmetric") + ", smoother "
                         + smootherName(s));
            GamgControls c;
            c.smoother = s;
            c.scaleCorrection = p.symmetric();
            c.interpolateCorrection = true;
            c.nPreSweeps = 2;
            SolverControls controls;
            controls.tolerance = 1e-9;
            controls.maxIter = 200;
            std::vector<int> nIterations;
            for (bool byRows : {false, true})
            {
                c.preSweepResidualByRows = byRows;
                std::vector<double> psi(p.nCells, 0.0);
                const SolveResult r = gamg.solve(psi.data(), b.data(), controls, c, couplingOf);
                EXPECT_TRUE(r.converged) << "by rows " << byRows;
                EXPECT_LT(r.finalResidual, controls.tolerance);
                const std::vector<double> Ax = referenceAmul(p, psi);
                double sum = 0;
                for (int i = 0; i < p.nCells; ++i)
                {
                    sum += std::abs(b[i] - Ax[i]);
                }
                EXPECT_NEAR(sum/normFactor, r.finalResidual, 1e-9*r.finalResidual) << "by rows " << byRows;
                nIterations.push_back(r.nIterations);
            }
            EXPECT_GT(nIterations[0], 2);
            EXPECT_NEAR(nIterations[0], nIterations[1], 1);

            // the residual after each V-cycle: maxIter cycles, converged at the last one at most
            // (the tolerance kept: the coarsest solve takes it)
            bool differ = false;
            for (int k = 1; k <= std::min(nIterations[0], nIterations[1]); ++k)
            {
                SolverControls cycles = controls;
                cycles.maxIter = k;
                double residual[2], initial = 0;
                for (bool byRows : {false, true})
                {
                    c.preSweepResidualByRows = byRows;
                    std::vector<double> psi(p.nCells, 0.0);
                    const SolveResult r = gamg.solve(psi.data(), b.data(), cycles, c, couplingOf);
                    EXPECT_EQ(r.nIterations, k);
                    residual[byRows] = r.finalResidual;
                    initial = r.initialResidual;
                }
                // to 1e-12 of the scale of the terms summed in another order (the initial
                // residual's, psi = 0: measured up to 1e-16 of it)
                EXPECT_NEAR(residual[1], residual[0], 1e-12*initial) << "V-cycle " << k;
                differ = differ || residual[1] != residual[0];
            }
            // the setting is taken: on the host another order of the same sums rounds otherwise
            // in some cycle
            if (TypeParam::executor == Executor::cpu)
            {
                EXPECT_TRUE(differ);
            }
        }
    }
}

} // namespace gpuLdu::test
