// SPDX-License-Identifier: GPL-3.0-or-later
// The groups' owners exchanging their halo values (gpuLdu/rankGroup.hpp, GroupHalo) and
// summing their groups' sums on the device: NCCL between the owners' GPUs, opened at run time (libnccl.so.2), stream-ordered on
// the backend's stream, so that no exchange waits on the host. Where NCCL is not found the
// OpenFOAM layer exchanges through the host (Coupling::exchangeHalo). C++11: the OpenFOAM layer
// of v1912 includes it.

#pragma once

#include "gpuLdu/rankGroup.hpp"

#include <memory>
#include <string>
#include <vector>

namespace gpuLdu
{

class DeviceExchange
{
public:
    virtual ~DeviceExchange() = default;

    //- x at the level's faces to each neighbouring group (send, on the device, in GroupHalo's
    //  order) to its owner, x across them into halo (on the device): one send and one receive
    //  per neighbour, queued on the backend's stream after the work before them
    virtual void exchange(const GroupHalo& halo, const double* send, double* recv) = 0;

    //- values[0, count) (on the device) summed over the owners in place, queued on the
    //  backend's stream
    virtual void sum(double* values, int count) = 0;

    //- Where the exchange goes ("NCCL 2.x (libnccl.so.2)")
    virtual std::string describe() const = 0;
};

//- Why the owners cannot exchange on the device here (empty: they can): a build without CUDA or
//  without nccl.h, or no libnccl.so.2 to open
std::string deviceExchangeUnavailable();

//- The id of a new owners' communicator (made by one owner, handed to the others; its bytes)
std::vector<char> deviceExchangeId();

//- This owner's end of the owners' communicator on its current device: owners[k] is the mesh
//  rank of owner k (GroupHalo's neighbours are mesh ranks), me this one's k; collective among
//  the owners. Throws Error where NCCL refuses.
std::unique_ptr<DeviceExchange> openDeviceExchange
(
    const std::vector<char>& id,
    const std::vector<int>& owners,
    int me
);

} // namespace gpuLdu
