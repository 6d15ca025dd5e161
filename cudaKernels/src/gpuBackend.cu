// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithms compiled for NVIDIA GPUs (Thrust CUDA system).

#include "LduSystemImpl.hpp"

#include <string>

namespace gpuLdu
{

void cudaCheck(cudaError_t status, const char* call, const char* file, int line)
{
    if (status != cudaSuccess)
    {
        throw Error(
            std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line)
          + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status)
        );
    }
}

std::string cudaUnavailableReason()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    }
    if (count == 0)
    {
        return "no CUDA device found";
    }
    return "";
}

std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr)
{
    try
    {
        auto system = std::make_unique<LduSystemImpl<GpuBackend>>(addr);
        GPULDU_CUDA_CHECK(cudaDeviceSynchronize());
        return system;
    }
    catch (const thrust::system_error& e)
    {
        throw Error(std::string("CUDA error while building the GPU system: ") + e.what());
    }
}

} // namespace gpuLdu
