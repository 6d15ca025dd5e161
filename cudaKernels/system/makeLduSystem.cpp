// SPDX-License-Identifier: GPL-3.0-or-later
// Executor selection: the system on the host or, where a CUDA device is usable, on the GPU.

#include "gpuLdu/gpuLdu.hpp"

#include <utility>

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeCpuSystem(const LduAddressingView& addr);

#ifdef GPULDU_WITH_CUDA
std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr);
std::string cudaUnavailableReason();
#endif

bool builtWithCuda()
{
#ifdef GPULDU_WITH_CUDA
    return true;
#else
    return false;
#endif
}

std::string gpuUnavailableReason()
{
#ifdef GPULDU_WITH_CUDA
    return cudaUnavailableReason();
#else
    return "this build of gpuLduSolvers has no CUDA backend (it was built without nvcc or with GPULDU_CUDA=OFF)";
#endif
}

std::unique_ptr<LduSystem> makeLduSystem(Executor executor, const LduAddressingView& addr)
{
    if (executor == Executor::cpu)
    {
        return makeCpuSystem(addr);
    }
    const std::string reason = gpuUnavailableReason();
    if (!reason.empty())
    {
        throw Error("executor gpu is not usable: " + reason);
    }
#ifdef GPULDU_WITH_CUDA
    return makeGpuSystem(addr);
#else
    return nullptr;
#endif
}

} // namespace gpuLdu
