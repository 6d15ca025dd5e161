// SPDX-License-Identifier: GPL-3.0-or-later
// Test and benchmark problems in OpenFOAM's LDU form: generated in code (3-D Laplacians,
// convection-diffusion, a pattern with triangles) or read from Matrix Market files.

#ifndef GPULDU_PROBLEMS_HPP
#define GPULDU_PROBLEMS_HPP

#include "backend/cpu/CpuBackend.hpp"
#ifdef __CUDACC__
#include "backend/cuda/GpuBackend.hpp"
#endif
#include "krylov/LduSystemImpl.hpp"
#include "gpuLdu/matrixMarket.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace gpuLdu::test
{

inline std::vector<double> randomVector(int n, unsigned seed, double lo = -1, double hi = 1)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> u(lo, hi);
    std::vector<double> v(n);
    for (double& x : v)
    {
        x = u(gen);
    }
    return v;
}

//- Copy a backend vector to the host.
template<class V>
std::vector<double> toHost(const V& v)
{
    thrust::host_vector<double> h(v);
    return std::vector<double>(h.begin(), h.end());
}

//- max_i |a_i - b_i| / max_i |b_i|
inline double relativeDifference(const std::vector<double>& a, const std::vector<double>& b)
{
    double num = 0;
    double den = 0;
    for (std::size_t i = 0; i < a.size(); ++i)
    {
        num = std::max(num, std::abs(a[i] - b[i]));
        den = std::max(den, std::abs(b[i]));
    }
    return den > 0 ? num/den : num;
}

//- A matrix in OpenFOAM's LDU form plus optional "interface" couplings between cell pairs that
//  are not faces (as cyclic patches are): A[cell][nbr] = -coeff (OpenFOAM's sign).
struct LduProblem
{
    int nCells = 0;
    std::vector<int> lower;
    std::vector<int> upper;
    std::vector<double> diag;
    std::vector<double> upperCoeffs;
    std::vector<double> lowerCoeffs;
    std::vector<int> ifCell;
    std::vector<int> ifNbr;
    std::vector<double> ifCoeff;

    int nFaces() const
    {
        return int(lower.size());
    }

    LduAddressingView addressing() const
    {
        return {nCells, nFaces(), lower.data(), upper.data()};
    }

    bool symmetric() const
    {
        return lowerCoeffs.empty();
    }

    const std::vector<double>& lowerOrUpper() const
    {
        return symmetric() ? upperCoeffs : lowerCoeffs;
    }

    //- The lower coefficients as LduSystem::setMatrix takes them: nullptr when symmetric
    const double* lowerOrNull() const
    {
        return symmetric() ? nullptr : lowerCoeffs.data();
    }
};

//- 7-point Laplacian-like matrix on an nx*ny*nz grid in natural order with random positive
//  face coefficients. sign = -1 gives OpenFOAM's pressure form (diag < 0, off-diagonal > 0).
//  periodicX adds cyclic couplings between the x = 0 and x = nx-1 planes as interfaces.
inline LduProblem poisson3D(int nx, int ny, int nz, unsigned seed, double sign = 1, bool periodicX = false)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> coeff(0.5, 1.5);
    LduProblem p;
    p.nCells = nx*ny*nz;
    p.diag.assign(p.nCells, 0.0);
    auto id = [&](int i, int j, int k) { return i + nx*(j + ny*k); };
    for (int c = 0; c < p.nCells; ++c)
    {
        const int i = c % nx;
        const int j = (c/nx) % ny;
        const int k = c/(nx*ny);
        // faces in upper-triangular order: neighbours of c in ascending cell number
        const int nbrs[3] = {i + 1 < nx ? id(i + 1, j, k) : -1, j + 1 < ny ? id(i, j + 1, k) : -1,
                             k + 1 < nz ? id(i, j, k + 1) : -1};
        for (int nb : nbrs)
        {
            if (nb >= 0)
            {
                const double a = coeff(gen);
                p.lower.push_back(c);
                p.upper.push_back(nb);
                p.upperCoeffs.push_back(-sign*a);
                p.diag[c] += sign*a;
                p.diag[nb] += sign*a;
            }
        }
    }
    for (int c = 0; c < p.nCells; ++c)
    {
        p.diag[c] += sign*0.01*coeff(gen);
    }
    if (periodicX)
    {
        for (int k = 0; k < nz; ++k)
        {
            for (int j = 0; j < ny; ++j)
            {
                const int a = id(0, j, k);
                const int b = id(nx - 1, j, k);
                const double w = coeff(gen);
                // A[a][b] = A[b][a] = -sign*w: OpenFOAM stores coeff = sign*w (effective -coeff)
                p.ifCell.insert(p.ifCell.end(), {a, b});
                p.ifNbr.insert(p.ifNbr.end(), {b, a});
                p.ifCoeff.insert(p.ifCoeff.end(), {sign*w, sign*w});
                p.diag[a] += sign*w;
                p.diag[b] += sign*w;
            }
        }
    }
    return p;
}

//- A Matrix Market file (gpuLdu::readMatrixMarket) as an LduProblem: lowerCoeffs empty when the
//  values are symmetric.
inline LduProblem readMatrixMarket(const std::string& path)
{
    LduMatrixData m = gpuLdu::readMatrixMarket(path);
    if (m.complexValues)
    {
        throw Error(path + ": complex values, the tests' problems are real");
    }
    LduProblem p;
    p.nCells = m.nCells;
    p.lower = std::move(m.lower);
    p.upper = std::move(m.upper);
    p.diag = std::move(m.diag);
    if (!m.symmetric())
    {
        p.lowerCoeffs = std::move(m.lowerCoeffs);
    }
    p.upperCoeffs = std::move(m.upperCoeffs);
    return p;
}

//- tests/data, or $GPULDU_TEST_DATA_DIR when set (a build run from another checkout's place).
inline std::string dataFile(const std::string& name)
{
    const char* dir = std::getenv("GPULDU_TEST_DATA_DIR");
    return std::string(dir && *dir ? dir : GPULDU_TEST_DATA_DIR) + "/" + name;
}

//- Coupling for LduProblem's interface couplings: y[cell] -= coeff*x[nbr], term after term in
//  the problem's order (as OpenFOAM's Amul takes patch faces), so a cell with several terms gets
//  them in that order.
class ProblemCoupling : public Coupling
{
    std::vector<int> cells_;
    //- Per interface cell, its terms in order: (slot of the neighbour, coefficient)
    std::vector<std::vector<std::pair<int, double>>> terms_;

public:
    explicit ProblemCoupling(const LduProblem& p)
    {
        std::map<int, int> slot;
        for (std::size_t k = 0; k < p.ifCell.size(); ++k)
        {
            for (int c : {p.ifCell[k], p.ifNbr[k]})
            {
                if (!slot.count(c))
                {
                    slot[c] = 0;
                }
            }
        }
        for (auto& [c, s] : slot)
        {
            s = int(cells_.size());
            cells_.push_back(c);
        }
        terms_.resize(cells_.size());
        for (std::size_t k = 0; k < p.ifCell.size(); ++k)
        {
            terms_[slot[p.ifCell[k]]].push_back({slot[p.ifNbr[k]], p.ifCoeff[k]});
        }
    }

    const std::vector<int>& cells() const
    {
        return cells_;
    }

    //- All terms on the host, after the system's own (late)
    bool hasPhase(InterfacePhase phase) const override
    {
        return phase == InterfacePhase::late && !cells_.empty();
    }

    //- The interface couplings of the test problems are symmetric
    void interfaceProductT(InterfacePhase phase, const double* x, double* y) const override
    {
        interfaceProduct(phase, x, y);
    }

    void interfaceProduct(InterfacePhase phase, const double* x, double* y) const override
    {
        if (phase != InterfacePhase::late)
        {
            return;
        }
        for (std::size_t j = 0; j < cells_.size(); ++j)
        {
            for (const auto& [nbr, c] : terms_[j])
            {
                y[j] -= c*x[nbr];
            }
        }
    }

    //- lduMatrix::residual's interface terms: y += c x_neighbour
    void interfaceResidual(InterfacePhase phase, const double* x, double* y) const override
    {
        if (phase != InterfacePhase::late)
        {
            return;
        }
        for (std::size_t j = 0; j < cells_.size(); ++j)
        {
            for (const auto& [nbr, c] : terms_[j])
            {
                y[j] += c*x[nbr];
            }
        }
    }

    void interfaceMagnitudes(InterfacePhase phase, double* y) const override
    {
        if (phase != InterfacePhase::late)
        {
            return;
        }
        for (std::size_t j = 0; j < cells_.size(); ++j)
        {
            for (const auto& term : terms_[j])
            {
                y[j] += std::abs(term.second);
            }
        }
    }

    void interfaceRowSums(InterfacePhase phase, double* sumA) const override
    {
        if (phase != InterfacePhase::late)
        {
            return;
        }
        for (std::size_t j = 0; j < cells_.size(); ++j)
        {
            for (const auto& term : terms_[j])
            {
                sumA[j] -= term.second;
            }
        }
    }
};

//- A convection-diffusion-like asymmetric matrix: upper and lower differ.
inline LduProblem asymmetric(int nx, int ny, int nz, unsigned seed, bool periodicX = false)
{
    LduProblem p = poisson3D(nx, ny, nz, seed, 1, periodicX);
    const std::vector<double> shift = randomVector(p.nFaces(), seed + 1, -0.4, 0.4);
    p.lowerCoeffs = p.upperCoeffs;
    for (int f = 0; f < p.nFaces(); ++f)
    {
        p.upperCoeffs[f] += shift[f];
        p.lowerCoeffs[f] -= shift[f];
    }
    return p;
}

//- A triangle-rich pattern (each cell also coupled to its diagonal neighbour in x-y), so that
//  ILU0 fills within the pattern and differs from DILU.
inline LduProblem withTriangles(int nx, int ny, unsigned seed)
{
    LduProblem p;
    p.nCells = nx*ny;
    p.diag.assign(p.nCells, 0.0);
    std::mt19937 gen(seed);
    std::uniform_real_distribution<double> coeff(0.5, 1.5);
    for (int c = 0; c < p.nCells; ++c)
    {
        const int i = c % nx;
        const int j = c/nx;
        for (int nb : {i + 1 < nx ? c + 1 : -1, j + 1 < ny ? c + nx : -1, i + 1 < nx && j + 1 < ny ? c + nx + 1 : -1})
        {
            if (nb >= 0)
            {
                const double a = coeff(gen);
                p.lower.push_back(c);
                p.upper.push_back(nb);
                p.upperCoeffs.push_back(-a);
                p.lowerCoeffs.push_back(-a*coeff(gen));
                p.diag[c] += 1.6*a;
                p.diag[nb] += 1.6*a;
            }
        }
    }
    return p;
}

//- A right-hand side with a known smooth solution: A x for x_i = sin(i/7)
inline std::vector<double> referenceSource(const LduProblem& p)
{
    std::vector<double> x(p.nCells);
    for (int i = 0; i < p.nCells; ++i)
    {
        x[i] = std::sin(i/7.0);
    }
    std::vector<double> b(p.nCells);
    const auto& lo = p.lowerCoeffs.empty() ? p.upperCoeffs : p.lowerCoeffs;
    for (int c = 0; c < p.nCells; ++c)
    {
        b[c] = p.diag[c]*x[c];
    }
    for (int f = 0; f < p.nFaces(); ++f)
    {
        b[p.upper[f]] += lo[f]*x[p.lower[f]];
        b[p.lower[f]] += p.upperCoeffs[f]*x[p.upper[f]];
    }
    return b;
}

} // namespace gpuLdu::test

#endif
