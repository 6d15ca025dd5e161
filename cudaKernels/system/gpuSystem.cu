// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithms compiled for NVIDIA GPUs (Thrust's CUDA system and the kernels of
// backend/cuda/): executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "multigrid/GamgSystemImpl.hpp"
#include "system/LduSystemImpl.hpp"

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr)
{
    auto system = std::make_unique<LduSystemImpl<GpuBackend>>(addr);
    GpuBackend::synchronize();
    return system;
}

std::unique_ptr<GamgSystem> makeGpuGamgSystem(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels)
{
    auto system = std::make_unique<GamgSystemImpl<GpuBackend>>(fine, levels);
    GpuBackend::synchronize();
    return system;
}

template<class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> makeGpuLdltSolver(const SymmetricPattern& lower, LdltOrdering ordering)
{
    return std::make_unique<LdltSolverImpl<GpuBackend, detail::KernelScalar<Scalar>>>(lower, ordering);
}

template std::unique_ptr<LdltSolver> makeGpuLdltSolver<double>(const SymmetricPattern&, LdltOrdering);
template std::unique_ptr<ComplexLdltSolver> makeGpuLdltSolver<std::complex<double>>(
    const SymmetricPattern&,
    LdltOrdering
);

} // namespace gpuLdu
