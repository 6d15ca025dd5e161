// SPDX-License-Identifier: GPL-3.0-or-later
// The plugin's own GAMG smoother Chebyshev (not OpenFOAM's: no checkNative), Jacobi-like
// (JacobiLike.hpp): every row from the old values, one pass over the matrix per sweep.
// Chebyshev: the fourth-kind Chebyshev smoother with optimal weights (Lottes, "Optimal
// polynomial smoothers for multigrid V-cycles", Numer. Linear Algebra Appl. 2023; Phillips and
// Fischer, "Optimal Chebyshev smoothers and one-sided V-cycles", 2022) on D^-1 A (D the
// diagonal), whose eigenvalues lie in (0, rho], rho = max_i sum_j |A_ij| / |A_ii| (Gershgorin's
// bound, computed per level and matrix). nSweeps steps make the polynomial of degree nSweeps
// that minimises the V-cycle's error bound over the whole (0, rho], no lower end to choose:
//     r_k = D^-1 (b - A y_k),   y_0 = x_0
//     d_0 = 4/(3 rho) r_0,   d_k = (2k - 1)/(2k + 3) d_{k-1} + (8k + 4)/((2k + 3) rho) r_k,
//     y_{k+1} = y_k + d_k,   x_m = x_0 + sum_k w_k d_k
// with Lottes' weights w_k for degree m = nSweeps (ChebyshevWeights; w = 1: the plain fourth
// kind, y_m). The sweeps move y and keep sum_k (w_k - 1) d_k beside it, added at the last.
// Against the first kind on [0.3 rho, rho] (this smoother before): 22% fewer V-cycles at 8M
// cells and 18% fewer at 1M on cavity3D (docs/performance.md, lever 32).

#ifndef GPULDU_CHEBYSHEVSMOOTHER_HPP
#define GPULDU_CHEBYSHEVSMOOTHER_HPP

#include "multigrid/smoothers/JacobiLike.hpp"
#include "registry/Registry.hpp"

#include <algorithm>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- Row i's Gershgorin bound of D^-1 A: sum_j |A_ij| / |A_ii| (with the interfaces' terms of
//  the row, interfaceMagnitude; nullptr: none)
struct GershgorinRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const double* val;
    const double* interfaceMagnitude;

    GPULDU_HD double operator()(int i) const
    {
        const double D = magnitude(val[diagPos[i]]);
        double s = D + (interfaceMagnitude ? interfaceMagnitude[i] : 0.0);
        for (int p = rowStart[i]; p < rowStart[i + 1]; ++p)
        {
            if (p != diagPos[i])
            {
                s += magnitude(val[p]);
            }
        }
        return s/D;
    }
};

//- One Chebyshev step of row i: r = (b - A y)_i/A_ii, d_i = cd*d_i + cr*r (d_i not read when
//  cd is 0: the first step), yNew_i = y_i + d_i; the weights' part: sum_i = extra*d_i at the
//  first step, += extra*d_i after, and at the last step yNew_i = y_i + d_i + sum_i (x_m), sum
//  nullptr where every weight is 1. With coupled interfaces b (or b with the row's terms) holds
//  their terms of the old y. A's values in V (float: the smoother's copy).
template<class V>
struct ChebyshevRow
{
    const int* rowStart;
    const int* col;
    const int* diagPos;
    const V* val;
    const double* b;
    InterfaceRowTerms terms;
    const double* y;
    double* d;
    double* yNew;
    double cd;
    double cr;
    double* sum;
    double extra;
    bool last;

    GPULDU_HD void operator()(int i) const
    {
        const RowProduct row(rowStart, col, diagPos, val, y, i);
        const double r = (terms.source(i, b, y) - row.Ax)/double(val[diagPos[i]]);
        const double di = (cd == 0 ? 0.0 : cd*d[i]) + cr*r;
        d[i] = di;
        if (!sum)
        {
            yNew[i] = y[i] + di;
            return;
        }
        const double s = (cd == 0 ? 0.0 : sum[i]) + extra*di;
        if (last)
        {
            yNew[i] = y[i] + di + s;
        }
        else
        {
            sum[i] = s;
            yNew[i] = y[i] + di;
        }
    }
};

} // namespace detail

//- Lottes' optimal weights w_0 .. w_{m-1} of the fourth-kind smoother of degree m, 1 <= m <= 16
//  (his table, 15 digits); a degree beyond it takes w = 1 (the plain fourth kind)
struct ChebyshevWeights
{
    static constexpr int maxDegree = 16;

    static std::vector<double> of(int m)
    {
        static const std::vector<double> table[maxDegree] = {
            {1.12500000000000},
            {1.02387287570313, 1.26408905371085},
            {1.00842544782028, 1.08867839208730, 1.33753125909618},
            {1.00391310427285, 1.04035811188593, 1.14863498546254, 1.38268869241000},
            {1.00212930146164, 1.02173711549260, 1.07872433192603, 1.19810065292663, 1.41322542791682},
            {1.00128517255940, 1.01304293035233, 1.04678215124113, 1.11616489419675, 1.23829020218444,
             1.43524297106744},
            {1.00083464397912, 1.00843949430122, 1.03008707768713, 1.07408384092003, 1.15036186707366,
             1.27116474046139, 1.45186658649364},
            {1.00057246631197, 1.00577427662415, 1.02050187922941, 1.05019803444565, 1.10115572984941,
             1.18086042806856, 1.29838585382576, 1.46486073151099},
            {1.00040960072832, 1.00412439506106, 1.01460212148266, 1.03561113626671, 1.07139972529194,
             1.12688273710962, 1.20785219140729, 1.32121930716746, 1.47529642820699},
            {1.00030312229652, 1.00304840660796, 1.01077022715387, 1.02619011597640, 1.05231724933755,
             1.09255743207549, 1.15083376663972, 1.23172250870894, 1.34060802024460, 1.48386124407011},
            {1.00023058595209, 1.00231675024028, 1.00817245396304, 1.01982986566342, 1.03950210235324,
             1.06965042700541, 1.11305754295742, 1.17290876275564, 1.25288300576792, 1.35725579919519,
             1.49101672564139},
            {1.00017947200828, 1.00180189139619, 1.00634861907307, 1.01537864566306, 1.03056942830760,
             1.05376019693943, 1.08699862592072, 1.13259183097913, 1.19316273358172, 1.27171293675110,
             1.37169337969799, 1.49708418575562},
            {1.00014241921559, 1.00142906932629, 1.00503028986298, 1.01216910518495, 1.02414874342792,
             1.04238158880820, 1.06842008128700, 1.10399010936759, 1.15102748242645, 1.21171811910125,
             1.28854264865128, 1.38432619380991, 1.50229418757368},
            {1.00011490538261, 1.00115246376914, 1.00405357333264, 1.00979590573153, 1.01941300472994,
             1.03401425035436, 1.05480599606629, 1.08311420301813, 1.12040891660892, 1.16833095655446,
             1.22872122288238, 1.30365305707817, 1.39546814053678, 1.50681646209583},
            {1.00009404750752, 1.00094291696343, 1.00331449056444, 1.00800294833816, 1.01584236259140,
             1.02772083317705, 1.04459535422831, 1.06750761206125, 1.09760092545889, 1.13613855366157,
             1.18452361426236, 1.24432087304475, 1.31728069083392, 1.40536543893560, 1.51077872501845},
            {1.00007794828179, 1.00078126847253, 1.00274487974401, 1.00662291017015, 1.01309858836971,
             1.02289448329337, 1.03678321409983, 1.05559875719896, 1.08024848405560, 1.11172607131497,
             1.15112543431072, 1.19965584614973, 1.25865841744946, 1.32962412656664, 1.41421360695576,
             1.51427891730346}};
        return m >= 1 && m <= maxDegree ? table[m - 1] : std::vector<double>(std::size_t(std::max(m, 0)), 1.0);
    }
};

//- The coefficients of the Chebyshev steps 0 .. nSteps-1 for the bound rho of D^-1 A (see the
//  top of this file): d's (cd, cr) and each step's weight less one (extra)
struct ChebyshevCoefficients
{
    std::vector<double> cd;
    std::vector<double> cr;
    std::vector<double> extra;

    ChebyshevCoefficients(double rho, int nSteps)
    {
        const std::vector<double> w = ChebyshevWeights::of(nSteps);
        for (int k = 0; k < nSteps; ++k)
        {
            cd.push_back(k == 0 ? 0.0 : double(2*k - 1)/double(2*k + 3));
            cr.push_back(k == 0 ? 4/(3*rho) : double(8*k + 4)/(double(2*k + 3)*rho));
            extra.push_back(w[std::size_t(k)] - 1);
        }
    }

    //- Whether a weight differs from 1 (the sweeps keep the weights' sum)
    bool weighted() const
    {
        return std::any_of(extra.begin(), extra.end(), [](double e) { return e != 0; });
    }
};

//- Per solve the level's Gershgorin bound of D^-1 A (the maximum over all ranks); per smooth
//  the polynomial of degree nSweeps on it, its d in the second work vector and its weights' sum
//  in the third; the sweeps' values A's rounded to float on a coarse level (SweepValues), the
//  bound A's in double
template<class B>
class ChebyshevSmoother
{
    InterfaceMagnitudes<B> interfaceMagnitudes_;
    SweepValues<B> values_;
    double bound_ = 0;

public:
    void setup(const SmootherLevel<B>& level)
    {
        interfaceMagnitudes_.setup(level);
        values_.setup(level);
        const CsrMatrix<B>& A = level.system.matrix();
        bound_ = level.coupling.maximum(std::max(0.0, level.system.workspace().maximum(level.system.n(),
            detail::GershgorinRow{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), ptr(A.val), interfaceMagnitudes_.values()})));
    }

    void smooth(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps) const
    {
        const CsrMatrix<B>& A = level.system.matrix();
        const ChebyshevCoefficients c(bound_, nSweeps);
        double* d = level.work[1];
        double* sum = c.weighted() ? level.work[2] : nullptr;
        values_.visit(level, [&](const auto* values)
        {
            jacobiSweeps(level, psi, b, nSweeps, [&](int sweep, const double* bPrime,
                                                     const detail::InterfaceRowTerms& terms, const double* y, double* yNew)
            {
                using V = detail::ValueOf<decltype(values)>;
                return detail::ChebyshevRow<V>{ptr(A.rowStart), ptr(A.col), ptr(A.diagPos), values, bPrime, terms, y, d,
                                               yNew, c.cd[sweep], c.cr[sweep], sum, c.extra[sweep], sweep + 1 == nSweeps};
            });
        });
    }
};

namespace smoothers
{

struct Chebyshev
{
    static constexpr Variant variants[] = {{"Chebyshev", Takes::both, nullptr}};
    static constexpr bool openFOAMs = false;
    static constexpr bool dividesByDiagonal = true;
    static constexpr bool recordable = true;
    template<class B>
    using Type = ChebyshevSmoother<B>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
