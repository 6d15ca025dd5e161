// SPDX-License-Identifier: GPL-3.0-or-later
// The Krylov solvers' system
// compiled for NVIDIA GPUs (nvcc, Thrust's CUDA system and the kernels of backend/cuda/):
// executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "instantiate/OnExecutor.hpp"
#include "krylov/LduSystemImpl.hpp"

namespace gpuLdu
{

// Every member here, once: GAMG's levels (gamgHierarchy.cu) use this instantiation
template class LduSystemImpl<GpuBackend>;

template<>
std::unique_ptr<LduSystem> lduSystemOn<Executor::gpu>(const LduAddressingView& addr)
{
    auto system = std::make_unique<LduSystemImpl<GpuBackend>>(addr);
    GpuBackend::synchronize();
    return system;
}

} // namespace gpuLdu
