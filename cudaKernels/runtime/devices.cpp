// SPDX-License-Identifier: GPL-3.0-or-later
// Device selection (gpuLdu.hpp): whether the build has the GPU backend and a usable device, the
// devices this process sees, the one it uses, and which of a node's devices each rank takes; and
// whether the groups' owners can exchange on the device (gpuLdu/deviceExchange.hpp: NCCL in the
// CUDA build, backend/cuda/NcclExchange.cu; none without CUDA).

#include "gpuLdu/gpuLdu.hpp"
#include "gpuLdu/deviceExchange.hpp"

#ifdef GPULDU_WITH_CUDA
#include "backend/cuda/CudaDevices.hpp"
#include "backend/cuda/NcclExchange.hpp"
#endif

#include <algorithm>

namespace gpuLdu
{

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
    // the driver asked once a process (the plugin's initialisation thread asks first): its
    // answer does not change while the process runs, and every layer takes this one
    static const std::string reason = cudaUnavailableReason();
    return reason;
#else
    return "this build of gpuLduSolvers has no CUDA backend (it was built without nvcc or with GPULDU_CUDA=OFF)";
#endif
}

int visibleDevices()
{
#ifdef GPULDU_WITH_CUDA
    return gpuUnavailableReason().empty() ? cudaVisibleDevices() : 0;
#else
    return 0;
#endif
}

std::string useDevice(int device)
{
    const int n = visibleDevices();
    if (device < 0 || device >= n)
    {
        throw Error("gpuLdu: device " + std::to_string(device) + " asked for, but this process sees "
                    + std::to_string(n) + " CUDA device(s) (CUDA_VISIBLE_DEVICES respected)");
    }
#ifdef GPULDU_WITH_CUDA
    return cudaUseDevice(device);
#else
    return "";
#endif
}

std::string deviceBusId(int device)
{
    if (device < 0 || device >= visibleDevices())
    {
        return "";
    }
#ifdef GPULDU_WITH_CUDA
    return cudaDeviceBusId(device);
#else
    return "";
#endif
}

std::vector<int> deviceOfLocalRanks(int nLocal, int nDevices)
{
    std::vector<int> device(std::max(nLocal, 0), 0);
    const int nGroups = std::max(1, std::min(nDevices, nLocal));
    // groups of `size` ranks, the first `larger` of them one rank more
    const int size = nLocal/nGroups;
    const int larger = nLocal % nGroups;
    int rank = 0;
    for (int g = 0; g < nGroups && rank < nLocal; ++g)
    {
        for (int k = 0; k < size + (g < larger ? 1 : 0); ++k)
        {
            device[rank++] = g;
        }
    }
    return device;
}


std::string deviceExchangeUnavailable()
{
#ifdef GPULDU_WITH_CUDA
    return ncclUnavailable();
#else
    return "this build of gpuLduSolvers has no CUDA backend";
#endif
}


std::vector<char> deviceExchangeId()
{
#ifdef GPULDU_WITH_CUDA
    return ncclId();
#else
    throw Error("gpuLdu: " + deviceExchangeUnavailable());
#endif
}


std::unique_ptr<DeviceExchange> openDeviceExchange
(
    const std::vector<char>& id,
    const std::vector<int>& owners,
    int me
)
{
#ifdef GPULDU_WITH_CUDA
    return ncclOpen(id, owners, me);
#else
    (void)id;
    (void)owners;
    (void)me;
    throw Error("gpuLdu: " + deviceExchangeUnavailable());
#endif
}

} // namespace gpuLdu
