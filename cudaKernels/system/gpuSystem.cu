// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithms compiled for NVIDIA GPUs (Thrust's CUDA system and the kernels of
// backend/cuda/): executor gpu.

#include "backend/cuda/GpuBackend.hpp"
#include "system/LduSystemImpl.hpp"

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr)
{
    auto system = std::make_unique<LduSystemImpl<GpuBackend>>(addr);
    GpuBackend::synchronize();
    return system;
}

} // namespace gpuLdu
