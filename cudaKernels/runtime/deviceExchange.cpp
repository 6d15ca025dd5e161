// SPDX-License-Identifier: GPL-3.0-or-later
// The owners' exchange on the device (gpuLdu/deviceExchange.hpp): NCCL in the CUDA build
// (backend/cuda/NcclExchange.cu), none without CUDA.

#include "gpuLdu/deviceExchange.hpp"
#include "gpuLdu/errors.hpp"

#ifdef GPULDU_WITH_CUDA
#include "backend/cuda/NcclExchange.hpp"
#endif

namespace gpuLdu
{

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
