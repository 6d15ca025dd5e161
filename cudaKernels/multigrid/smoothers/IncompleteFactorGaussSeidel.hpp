// SPDX-License-Identifier: GPL-3.0-or-later
// OpenFOAM's DICGaussSeidelSmoother and DILUGaussSeidelSmoother: the DIC (DILU) smoother's
// sweeps, then as many Gauss-Seidel sweeps.

#ifndef GPULDU_INCOMPLETEFACTORGAUSSSEIDELSMOOTHER_HPP
#define GPULDU_INCOMPLETEFACTORGAUSSSEIDELSMOOTHER_HPP

#include "multigrid/smoothers/GaussSeidel.hpp"
#include "multigrid/smoothers/IncompleteFactor.hpp"

namespace gpuLdu
{

template<class B>
class IncompleteFactorGaussSeidelSmoother
{
    IncompleteFactorSmoother<B> factor_;
    GaussSeidelSmoother<B, false> gaussSeidel_;

public:
    void setup(const SmootherLevel<B>& level)
    {
        factor_.setup(level);
    }

    void smooth(const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps) const
    {
        factor_.smooth(level, psi, b, nSweeps);
        gaussSeidel_.smooth(level, psi, b, nSweeps);
    }
};

namespace smoothers
{

struct IncompleteFactorGaussSeidel
{
    static constexpr Variant variants[] =
    {
        {"DICGaussSeidel", Takes::symmetric, nullptr},
        {"DILUGaussSeidel", Takes::asymmetric, nullptr}
    };
    static constexpr bool openFOAMs = true;
    static constexpr bool dividesByDiagonal = true;
    template<class B>
    using Type = IncompleteFactorGaussSeidelSmoother<B>;
};

} // namespace smoothers

} // namespace gpuLdu

#endif
