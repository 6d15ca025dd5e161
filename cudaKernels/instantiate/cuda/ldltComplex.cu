// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver of complex symmetric matrices
// compiled for NVIDIA GPUs (nvcc, Thrust's CUDA system and the kernels of backend/cuda/):
// executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "instantiate/OnExecutor.hpp"

namespace gpuLdu
{

template class LdltSolverImpl<GpuBackend, Complex>;

template<>
std::unique_ptr<ComplexLdltSolver> ldltSolverOn<Executor::gpu, std::complex<double>>(
    const SymmetricPattern& lower,
    LdltOrdering ordering
)
{
    return std::make_unique<LdltSolverImpl<GpuBackend, Complex>>(lower, ordering);
}

} // namespace gpuLdu
