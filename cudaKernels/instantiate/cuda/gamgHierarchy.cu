// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's hierarchy
// compiled for NVIDIA GPUs (nvcc, Thrust's CUDA system and the kernels of backend/cuda/):
// executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "instantiate/OnExecutor.hpp"
#include "multigrid/GamgHierarchyImpl.hpp"

namespace gpuLdu
{

// Its levels' system and its coarsest level's LDL^T are instantiated in their own translation
// units (krylovSystem.cu, ldltReal.cu): what this one does not inline of them (their
// vtables and the members reached through them) is taken from there, not compiled again
extern template class LduSystemImpl<GpuBackend>;
extern template class LdltSolverImpl<GpuBackend, double>;

template<>
std::unique_ptr<GamgHierarchy> gamgHierarchyOn<Executor::gpu>(
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
)
{
    auto hierarchy = std::make_unique<GamgHierarchyImpl<GpuBackend>>(fine, levels);
    GpuBackend::synchronize();
    return hierarchy;
}

} // namespace gpuLdu
