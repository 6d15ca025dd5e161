// SPDX-License-Identifier: GPL-3.0-or-later
// Test problems in LDU form (generated in code or read from tests/data) and the sequential
// references: OpenFOAM v1912's own face loops for Amul, normFactor, DIC and PCG
// (../shared/docs/openfoam-api.md c.5-c.8), written out plainly.

#ifndef GPULDU_TESTSUPPORT_HPP
#define GPULDU_TESTSUPPORT_HPP

#include "LduSystemImpl.hpp"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace gpuLdu::test
{

#ifdef __CUDACC__
using Backends = ::testing::Types<CpuBackend, GpuBackend>;
#else
using Backends = ::testing::Types<CpuBackend>;
#endif

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

//- Reads a Matrix Market file (coordinate real/integer, general or symmetric, gzip or plain)
//  into LDU form; the pattern must be structurally symmetric.
inline LduProblem readMatrixMarket(const std::string& path)
{
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in)
    {
        throw std::runtime_error("cannot open " + path);
    }
    std::string header;
    char buf[4096];
    bool symmetric = false;
    int rows = 0;
    int cols = 0;
    long nnz = -1;
    std::map<std::pair<int, int>, double> entries;
    while (gzgets(in, buf, sizeof buf))
    {
        std::string line(buf);
        if (line.rfind("%%MatrixMarket", 0) == 0)
        {
            symmetric = line.find("symmetric") != std::string::npos;
            continue;
        }
        if (line.empty() || line[0] == '%' || line[0] == '\n')
        {
            continue;
        }
        std::istringstream ls(line);
        if (nnz < 0)
        {
            ls >> rows >> cols >> nnz;
            continue;
        }
        int i;
        int j;
        double v;
        ls >> i >> j >> v;
        entries[{i - 1, j - 1}] += v;
        if (symmetric && i != j)
        {
            entries[{j - 1, i - 1}] += v;
        }
    }
    gzclose(in);
    LduProblem p;
    p.nCells = rows;
    p.diag.assign(rows, 0.0);
    std::vector<double> lowerCoeffs;
    for (const auto& [ij, v] : entries)
    {
        const auto [i, j] = ij;
        if (i == j)
        {
            p.diag[i] = v;
        }
        else if (i < j)
        {
            const auto t = entries.find({j, i});
            if (t == entries.end())
            {
                throw std::runtime_error(path + ": pattern is not symmetric");
            }
            p.lower.push_back(i);
            p.upper.push_back(j);
            p.upperCoeffs.push_back(v);
            lowerCoeffs.push_back(t->second);
        }
    }
    if (lowerCoeffs != p.upperCoeffs)
    {
        p.lowerCoeffs = lowerCoeffs;
    }
    return p;
}

//- tests/data, or $GPULDU_TEST_DATA_DIR when set (a build run from another checkout's place).
inline std::string dataFile(const std::string& name)
{
    const char* dir = std::getenv("GPULDU_TEST_DATA_DIR");
    return std::string(dir && *dir ? dir : GPULDU_TEST_DATA_DIR) + "/" + name;
}

//- Coupling for LduProblem's interface couplings: result = -coeff * x[nbr].
class ProblemCoupling : public Coupling
{
    std::vector<int> cells_;
    std::vector<std::vector<std::pair<int, double>>> terms_;

public:
    std::vector<double> sumACorrection;

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
        sumACorrection.assign(cells_.size(), 0.0);
        for (std::size_t k = 0; k < p.ifCell.size(); ++k)
        {
            terms_[slot[p.ifCell[k]]].push_back({slot[p.ifNbr[k]], p.ifCoeff[k]});
            sumACorrection[slot[p.ifCell[k]]] -= p.ifCoeff[k];
        }
    }

    const std::vector<int>& cells() const
    {
        return cells_;
    }

    void interfaceProduct(const double* x, double* result) const override
    {
        for (std::size_t j = 0; j < cells_.size(); ++j)
        {
            result[j] = 0;
            for (const auto& [nbr, c] : terms_[j])
            {
                result[j] -= c*x[nbr];
            }
        }
    }
};

//- OpenFOAM's Amul (face loop), interfaces as updateMatrixInterfaces applies them.
inline std::vector<double> referenceAmul(const LduProblem& p, const std::vector<double>& x)
{
    std::vector<double> y(p.nCells);
    const auto& lo = p.lowerOrUpper();
    for (int c = 0; c < p.nCells; ++c)
    {
        y[c] = p.diag[c]*x[c];
    }
    for (int f = 0; f < p.nFaces(); ++f)
    {
        y[p.upper[f]] += lo[f]*x[p.lower[f]];
        y[p.lower[f]] += p.upperCoeffs[f]*x[p.upper[f]];
    }
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        y[p.ifCell[k]] -= p.ifCoeff[k]*x[p.ifNbr[k]];
    }
    return y;
}

//- OpenFOAM's DIC (or diagonal) factor: rD.
inline std::vector<double> referenceRD(const LduProblem& p, Preconditioner type)
{
    std::vector<double> rD(p.diag);
    if (type == Preconditioner::DIC)
    {
        for (int f = 0; f < p.nFaces(); ++f)
        {
            rD[p.upper[f]] -= p.upperCoeffs[f]*p.upperCoeffs[f]/rD[p.lower[f]];
        }
    }
    for (double& d : rD)
    {
        d = 1.0/d;
    }
    return rD;
}

//- OpenFOAM's precondition() for none, diagonal and DIC.
inline std::vector<double> referencePrecondition(
    const LduProblem& p, Preconditioner type, const std::vector<double>& rD, const std::vector<double>& r)
{
    std::vector<double> w(r);
    if (type == Preconditioner::none)
    {
        return w;
    }
    for (int c = 0; c < p.nCells; ++c)
    {
        w[c] = rD[c]*r[c];
    }
    if (type == Preconditioner::DIC)
    {
        for (int f = 0; f < p.nFaces(); ++f)
        {
            w[p.upper[f]] -= rD[p.upper[f]]*p.upperCoeffs[f]*w[p.lower[f]];
        }
        for (int f = p.nFaces() - 1; f >= 0; --f)
        {
            w[p.lower[f]] -= rD[p.lower[f]]*p.upperCoeffs[f]*w[p.upper[f]];
        }
    }
    return w;
}

inline double sumMag(const std::vector<double>& x)
{
    double s = 0;
    for (double v : x)
    {
        s += std::abs(v);
    }
    return s;
}

inline double sumProd(const std::vector<double>& x, const std::vector<double>& y)
{
    double s = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        s += x[i]*y[i];
    }
    return s;
}

//- OpenFOAM's PCG::solve (serial), normFactor included.
inline SolveResult referencePCG(
    const LduProblem& p, std::vector<double>& psi, const std::vector<double>& source,
    const SolverControls& c, Preconditioner type)
{
    const int n = p.nCells;
    SolveResult res;
    std::vector<double> wA = referenceAmul(p, psi);
    std::vector<double> rA(n);
    for (int i = 0; i < n; ++i)
    {
        rA[i] = source[i] - wA[i];
    }
    // normFactor
    std::vector<double> sumA(p.diag);
    const auto& lo = p.lowerOrUpper();
    for (int f = 0; f < p.nFaces(); ++f)
    {
        sumA[p.upper[f]] += lo[f];
        sumA[p.lower[f]] += p.upperCoeffs[f];
    }
    for (std::size_t k = 0; k < p.ifCell.size(); ++k)
    {
        sumA[p.ifCell[k]] -= p.ifCoeff[k];
    }
    double xRef = 0;
    for (double v : psi)
    {
        xRef += v;
    }
    xRef /= n;
    double normFactor = 0;
    for (int i = 0; i < n; ++i)
    {
        normFactor += std::abs(wA[i] - sumA[i]*xRef) + std::abs(source[i] - sumA[i]*xRef);
    }
    normFactor += 1e-20;

    res.initialResidual = res.finalResidual = sumMag(rA)/normFactor;
    if (c.minIter > 0 || !isConverged(res.finalResidual, res.initialResidual, c))
    {
        const std::vector<double> rD = referenceRD(p, type);
        std::vector<double> pA(n);
        double wArA = 1e20;
        do
        {
            const double wArAold = wArA;
            wA = referencePrecondition(p, type, rD, rA);
            wArA = sumProd(wA, rA);
            for (int i = 0; i < n; ++i)
            {
                pA[i] = res.nIterations == 0 ? wA[i] : wA[i] + (wArA/wArAold)*pA[i];
            }
            wA = referenceAmul(p, pA);
            const double wApA = sumProd(wA, pA);
            if (std::abs(wApA)/normFactor < 1e-300)
            {
                res.singular = true;
                break;
            }
            const double alpha = wArA/wApA;
            for (int i = 0; i < n; ++i)
            {
                psi[i] += alpha*pA[i];
                rA[i] -= alpha*wA[i];
            }
            res.finalResidual = sumMag(rA)/normFactor;
        } while ((++res.nIterations < c.maxIter
                  && !(res.converged = isConverged(res.finalResidual, res.initialResidual, c)))
                 || res.nIterations < c.minIter);
    }
    else
    {
        res.converged = true;
    }
    return res;
}

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

} // namespace gpuLdu::test

#endif
