// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's smoothers (multigrid/smoothers/): OpenFOAM's (GaussSeidelSmoother.C,
// symGaussSeidelSmoother.C, DICSmoother.C, DILUSmoother.C) against their face loops, bit for bit
// on both backends, on a coarse level's matrix (faces not upper-triangular) with and without
// interfaces; the plugin's l1Jacobi and Chebyshev against their definitions, and Chebyshev's
// damping of the upper spectrum.

#include "gamgTestSupport.hpp"

#include <cmath>
#include <numeric>
#include <string>

namespace gpuLdu::test
{

//- OpenFOAM's smoothers, their face loops written out (GaussSeidelSmoother.C,
//  symGaussSeidelSmoother.C, DICSmoother.C/DILUSmoother.C with lduMatrix::residual), the
//  problem's interfaces as OpenFOAM's interface update with add = false: b' += c x_neighbour.
//  The faces are in owner order (a coarse level's are), each owner's from ownStart.
class ReferenceSmoother
{
    const LduProblem& p_;
    const std::vector<double>& lo_;
    const std::vector<double>& up_;
    std::vector<int> ownStart_;

public:
    explicit ReferenceSmoother(const LduProblem& p)
    :
        p_(p),
        lo_(p.lowerOrUpper()),
        up_(p.upperCoeffs),
        ownStart_(p.nCells + 1, 0)
    {
        for (int f = 0; f < p.nFaces(); ++f)
        {
            ++ownStart_[p.lower[f] + 1];
        }
        std::partial_sum(ownStart_.begin(), ownStart_.end(), ownStart_.begin());
    }

    //- nSweeps of GaussSeidel (symmetric: each sweep forward, then backward)
    void gaussSeidel(std::vector<double>& psi, const std::vector<double>& b, int nSweeps, bool symmetric) const
    {
        for (int s = 0; s < nSweeps; ++s)
        {
            std::vector<double> bPrime = b;
            for (std::size_t k = 0; k < p_.ifCell.size(); ++k)
            {
                bPrime[p_.ifCell[k]] += p_.ifCoeff[k]*psi[p_.ifNbr[k]];
            }
            for (int c = 0; c < p_.nCells; ++c)
            {
                gaussSeidelCell(psi, bPrime, c);
            }
            for (int c = p_.nCells - 1; symmetric && c >= 0; --c)
            {
                gaussSeidelCell(psi, bPrime, c);
            }
        }
    }

    //- nSweeps of DIC/DILU: psi += (LU)^-1 (b - A psi)
    void incompleteFactor(std::vector<double>& psi, const std::vector<double>& b, int nSweeps) const
    {
        const std::vector<double> rD = reciprocalPivots();
        for (int s = 0; s < nSweeps; ++s)
        {
            std::vector<double> rA = residual(psi, b);
            for (int c = 0; c < p_.nCells; ++c)
            {
                rA[c] *= rD[c];
            }
            for (int f = 0; f < p_.nFaces(); ++f)
            {
                rA[p_.upper[f]] -= rD[p_.upper[f]]*lo_[f]*rA[p_.lower[f]];
            }
            for (int f = p_.nFaces() - 1; f >= 0; --f)
            {
                rA[p_.lower[f]] -= rD[p_.lower[f]]*up_[f]*rA[p_.upper[f]];
            }
            for (int c = 0; c < p_.nCells; ++c)
            {
                psi[c] += rA[c];
            }
        }
    }

private:
    //- psi_i = (b'_i - sum_upper u_f psi_nbr)/d_i, then b'_nbr -= l_f psi_i over the owner's faces
    void gaussSeidelCell(std::vector<double>& psi, std::vector<double>& bPrime, int celli) const
    {
        double psii = bPrime[celli];
        for (int f = ownStart_[celli]; f < ownStart_[celli + 1]; ++f)
        {
            psii -= up_[f]*psi[p_.upper[f]];
        }
        psii /= p_.diag[celli];
        for (int f = ownStart_[celli]; f < ownStart_[celli + 1]; ++f)
        {
            bPrime[p_.upper[f]] -= lo_[f]*psii;
        }
        psi[celli] = psii;
    }

    //- DIC/DILU's 1/pivot: rD_upper -= u_f l_f/rD_lower face by face, then inverted
    std::vector<double> reciprocalPivots() const
    {
        std::vector<double> rD = p_.diag;
        for (int f = 0; f < p_.nFaces(); ++f)
        {
            rD[p_.upper[f]] -= up_[f]*lo_[f]/rD[p_.lower[f]];
        }
        for (double& d : rD)
        {
            d = 1.0/d;
        }
        return rD;
    }

    //- lduMatrix::residual: b - A psi, the interfaces' terms added last
    std::vector<double> residual(const std::vector<double>& psi, const std::vector<double>& b) const
    {
        std::vector<double> rA(p_.nCells);
        for (int c = 0; c < p_.nCells; ++c)
        {
            rA[c] = b[c] - p_.diag[c]*psi[c];
        }
        for (int f = 0; f < p_.nFaces(); ++f)
        {
            rA[p_.upper[f]] -= lo_[f]*psi[p_.lower[f]];
            rA[p_.lower[f]] -= up_[f]*psi[p_.upper[f]];
        }
        for (std::size_t k = 0; k < p_.ifCell.size(); ++k)
        {
            rA[p_.ifCell[k]] += p_.ifCoeff[k]*psi[p_.ifNbr[k]];
        }
        return rA;
    }
};

//- The smoother named as OpenFOAM's: nSweeps of it on psi
inline void referenceSmooth(const LduProblem& p, GamgSmoother smoother, std::vector<double>& psi,
                            const std::vector<double>& b, int nSweeps)
{
    const ReferenceSmoother reference(p);
    const std::string name = smootherName(smoother);
    if (name == "GaussSeidel" || name == "symGaussSeidel")
    {
        reference.gaussSeidel(psi, b, nSweeps, name == "symGaussSeidel");
    }
    else if (name == "DIC" || name == "DILU")
    {
        reference.incompleteFactor(psi, b, nSweeps);
    }
    else if (name == "DICGaussSeidel" || name == "DILUGaussSeidel")
    {
        reference.incompleteFactor(psi, b, nSweeps);
        reference.gaussSeidel(psi, b, nSweeps, false);
    }
    else
    {
        FAIL() << "no reference for the smoother " << name;
    }
}

//- The plugin's own smoothers from their definitions (multigrid/smoothers/L1Jacobi.hpp, Chebyshev.hpp), on the
//  faces: l1Jacobi; Chebyshev, the fourth kind with Lottes' weights w, in its residual form, the
//  residual carried from step to step rather than made from the iterate:
//      r_0 = D^-1 (b - A x_0),   r_k = r_{k-1} - D^-1 A d_{k-1},
//      d_0 = 4/(3 rho) r_0,   d_k = (2k - 1)/(2k + 3) d_{k-1} + (8k + 4)/((2k + 3) rho) r_k,
//      x_m = x_0 + sum_k w_k d_k
//  another form of the same iteration than the one the solver runs.
//  floatValues: the sweeps' A (its products, D, l1Jacobi's norms) with its values rounded to
//  float, as on a coarse level (Chebyshev's bound from A in double, the interfaces' coefficients
//  in double).
inline void referenceJacobiSmooth(const LduProblem& p, GamgSmoother smoother, std::vector<double>& psi,
                                  const std::vector<double>& b, int nSweeps, bool floatValues = false)
{
    LduProblem sweepMatrix = p;
    for (std::vector<double>* v : {&sweepMatrix.diag, &sweepMatrix.upperCoeffs, &sweepMatrix.lowerCoeffs})
    {
        for (double& a : *v)
        {
            a = floatValues ? double(float(a)) : a;
        }
    }
    const int n = p.nCells;
    // sum_{j != i} |A_ij| with the interfaces' terms, of A or of the sweeps' A
    const auto offDiagonalMagnitudes = [&](const LduProblem& a)
    {
        std::vector<double> m(n, 0.0);
        for (int f = 0; f < a.nFaces(); ++f)
        {
            m[a.lower[f]] += std::abs(a.upperCoeffs[f]);
            m[a.upper[f]] += std::abs(a.lowerOrUpper()[f]);
        }
        for (std::size_t k = 0; k < a.ifCell.size(); ++k)
        {
            m[a.ifCell[k]] += std::abs(a.ifCoeff[k]);
        }
        return m;
    };
    const std::vector<double> offMag = offDiagonalMagnitudes(p);
    const auto residual = [&](const std::vector<double>& x)
    {
        std::vector<double> r = referenceAmul(sweepMatrix, x);
        for (int c = 0; c < n; ++c)
        {
            r[c] = b[c] - r[c];
        }
        return r;
    };
    if (smoother == GamgSmoother::named("l1Jacobi"))
    {
        const std::vector<double> sweepOffMag = offDiagonalMagnitudes(sweepMatrix);
        for (int s = 0; s < nSweeps; ++s)
        {
            const std::vector<double> r = residual(psi);
            for (int c = 0; c < n; ++c)
            {
                const double D = sweepMatrix.diag[c];
                psi[c] += r[c]/(D > 0 ? D + sweepOffMag[c] : D - sweepOffMag[c]);
            }
        }
        return;
    }
    double beta = 0;
    for (int c = 0; c < n; ++c)
    {
        beta = std::max(beta, 1 + offMag[c]/std::abs(p.diag[c]));
    }
    const std::vector<double> w = ChebyshevWeights::of(nSweeps);
    std::vector<double> r = residual(psi), d(n, 0.0), x = psi;
    for (int i = 0; i < n; ++i)
    {
        r[i] /= sweepMatrix.diag[i];
    }
    for (int k = 0; k < nSweeps; ++k)
    {
        if (k > 0)
        {
            const std::vector<double> Ad = referenceAmul(sweepMatrix, d);
            for (int i = 0; i < n; ++i)
            {
                r[i] -= Ad[i]/sweepMatrix.diag[i];
            }
        }
        for (int i = 0; i < n; ++i)
        {
            d[i] = k == 0 ? 4/(3*beta)*r[i] : double(2*k - 1)/(2*k + 3)*d[i] + double(8*k + 4)/((2*k + 3)*beta)*r[i];
            x[i] += w[std::size_t(k)]*d[i];
        }
    }
    psi = x;
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
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), {t2.view()});
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
        GamgHierarchyImpl<TypeParam> gamg(p.addressing(), {t2.view()});
        gamg.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        gamg.setInterfaces({coupling.cells(), {}});
        const std::vector<double> b = randomVector(p.nCells, 10);
        for (GamgSmoother s : {GamgSmoother::named("l1Jacobi"), GamgSmoother::named("Chebyshev")})
        // the finest level, and as a coarse level (the sweeps' values in float there)
        for (bool asCorrection : {false, true})
        {
            // odd and even numbers of sweeps: the result lands in psi either way
            for (int nSweeps : {1, 2, 3, 4})
            {
                std::vector<double> expected = randomVector(p.nCells, 11);
                std::vector<double> psi = expected;
                referenceJacobiSmooth(p, s, expected, b, nSweeps, asCorrection);
                gamg.smoothFinest(s, psi.data(), b.data(), nSweeps, coupling, asCorrection);
                double maxDiff = 0, maxMag = 0;
                for (int i = 0; i < p.nCells; ++i)
                {
                    maxDiff = std::max(maxDiff, std::abs(psi[i] - expected[i]));
                    maxMag = std::max(maxMag, std::abs(expected[i]));
                }
                EXPECT_LT(maxDiff, 1e-12*maxMag) << "smoother " << smootherName(s) << ", " << nSweeps << " sweeps"
                                                 << (asCorrection ? " as a coarse level" : "")
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
    // bound rho. On A x = 0 the smoothed psi is the error: after 3 steps the checkerboard is
    // scaled by the polynomial's value at rho, p(rho) (the steps on the eigenvalue alone: r_k =
    // -rho y_k), a fifth or less, and a smooth error barely changes
    LduProblem p = poisson3D(10, 10, 10, 5);
    std::fill(p.upperCoeffs.begin(), p.upperCoeffs.end(), -1.0);
    std::fill(p.diag.begin(), p.diag.end(), 0.0);
    for (int f = 0; f < p.nFaces(); ++f)
    {
        p.diag[p.lower[f]] += 1;
        p.diag[p.upper[f]] += 1;
    }
    const TestLevel t = agglomerate(p.addressing(), 3);
    GamgHierarchyImpl<TypeParam> gamg(p.addressing(), {t.view()});
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
    const double rho = 2;
    const std::vector<double> w = ChebyshevWeights::of(3);
    double y = 1, d = 0, pRho = 1;
    for (int k = 0; k < 3; ++k)
    {
        const double r = -rho*y;
        d = k == 0 ? 4/(3*rho)*r : double(2*k - 1)/(2*k + 3)*d + double(8*k + 4)/((2*k + 3)*rho)*r;
        y += d;
        pRho += w[std::size_t(k)]*d;
    }
    EXPECT_LT(std::abs(pRho), 0.25);
    std::vector<double> e = checkerboard;
    gamg.smoothFinest(GamgSmoother::named("Chebyshev"), e.data(), zero.data(), 3);
    EXPECT_NEAR(norm(e), std::abs(pRho)*norm(checkerboard), 1e-9*norm(checkerboard));
    e = smooth;
    gamg.smoothFinest(GamgSmoother::named("Chebyshev"), e.data(), zero.data(), 3);
    EXPECT_GT(norm(e), 0.5*norm(smooth));
}

//- Lottes' weights: one a step up to degree 16, rising from about 1 to about 1.5 (his table's
//  shape), and 1 beyond it (the plain fourth kind)
TEST(ChebyshevWeights, OneAStepRisingToTheLast)
{
    for (int m = 1; m <= ChebyshevWeights::maxDegree + 2; ++m)
    {
        const std::vector<double> w = ChebyshevWeights::of(m);
        ASSERT_EQ(w.size(), std::size_t(m));
        for (int k = 0; k < m; ++k)
        {
            if (m > ChebyshevWeights::maxDegree)
            {
                EXPECT_EQ(w[std::size_t(k)], 1.0) << "degree " << m;
                continue;
            }
            EXPECT_GE(w[std::size_t(k)], 1.0) << "degree " << m << ", step " << k;
            EXPECT_LT(w[std::size_t(k)], 1.52) << "degree " << m << ", step " << k;
            if (k > 0)
            {
                EXPECT_GT(w[std::size_t(k)], w[std::size_t(k - 1)]) << "degree " << m << ", step " << k;
            }
        }
    }
}

} // namespace gpuLdu::test
