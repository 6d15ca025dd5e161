// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver of real symmetric matrices
// compiled for NVIDIA GPUs (nvcc, Thrust's CUDA system and the kernels of backend/cuda/):
// executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "instantiate/OnExecutor.hpp"

namespace gpuLdu
{

// Every member here, once: GAMG's coarsest level (gamgHierarchy.cu) uses this instantiation
template class LdltSolverImpl<GpuBackend, double>;

template<>
std::unique_ptr<LdltSolver> ldltSolverOn<Executor::gpu, double>(const SymmetricPattern& lower, LdltOrdering ordering)
{
    return std::make_unique<LdltSolverImpl<GpuBackend, double>>(lower, ordering);
}

} // namespace gpuLdu
