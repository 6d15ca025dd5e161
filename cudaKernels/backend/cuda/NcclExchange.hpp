// SPDX-License-Identifier: GPL-3.0-or-later
// NCCL for the owners' exchange (gpuLdu/deviceExchange.hpp), in NcclExchange.cu

#pragma once

#include "gpuLdu/deviceExchange.hpp"

namespace gpuLdu
{

std::string ncclUnavailable();
std::vector<char> ncclId();
std::unique_ptr<DeviceExchange> ncclOpen(const std::vector<char>& id, const std::vector<int>& owners, int me);

} // namespace gpuLdu
