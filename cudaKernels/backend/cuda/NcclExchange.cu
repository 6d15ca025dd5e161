// SPDX-License-Identifier: GPL-3.0-or-later
// The owners' exchange by NCCL (gpuLdu/deviceExchange.hpp), opened at run time
// (NcclLibrary.hpp), so that a host without it runs the exchange through the host; its types come
// from the toolkit's nccl.h where the build has it.

#include "backend/cuda/NcclExchange.hpp"
#include "backend/cuda/GpuBackend.hpp"
#include "gpuLdu/errors.hpp"

#if __has_include(<nccl.h>)
#include "backend/cuda/NcclLibrary.hpp"
#define GPULDU_HAVE_NCCL_H 1
#endif

#include <fenv.h>

#include <cstring>

namespace gpuLdu
{

#ifdef GPULDU_HAVE_NCCL_H

namespace
{

//- The library, with its errors as Error
const NcclLibrary& nccl()
{
    return ncclLibrary();
}

void check(ncclResult_t result, const char* what)
{
    if (result != ncclSuccess)
    {
        throw Error(std::string("gpuLdu: NCCL ") + what + ": " + nccl().errorString(result));
    }
}

//- The host's floating-point traps off while NCCL runs: its set-up computes with values it never
//  uses (a division by a zero bandwidth) that an application trapping them (OpenFOAM's
//  FOAM_SIGFPE) would take for its own error; the flags it raised cleared before they are back
struct TrapsOff
{
    const int saved = fegetexcept();

    TrapsOff()
    {
        fedisableexcept(FE_ALL_EXCEPT);
    }

    ~TrapsOff()
    {
        feclearexcept(FE_ALL_EXCEPT);
        feenableexcept(saved);
    }
};

class NcclExchange : public DeviceExchange
{
    ncclComm_t comm_ = nullptr;
    std::vector<int> owners_;

    //- Owner k of a mesh rank (GroupHalo's neighbours)
    int peer(int meshRank) const
    {
        for (std::size_t k = 0; k < owners_.size(); ++k)
        {
            if (owners_[k] == meshRank)
            {
                return int(k);
            }
        }
        throw Error("gpuLdu: mesh rank " + std::to_string(meshRank) + " is no group's owner");
    }

public:
    NcclExchange(const std::vector<char>& id, const std::vector<int>& owners, int me)
    :
        owners_(owners)
    {
        ncclUniqueId unique;
        if (id.size() != sizeof(unique.internal))
        {
            throw Error("gpuLdu: an NCCL id of " + std::to_string(id.size()) + " bytes");
        }
        std::memcpy(unique.internal, id.data(), id.size());
        const TrapsOff off;
        check(nccl().commInitRank(&comm_, int(owners.size()), unique, me), "ncclCommInitRank");
        warmUp();
    }

    //- One sum over the owners, waited for: NCCL sets up a collective's connections at its
    //  first call, which may not happen while a V-cycle's leg is recorded (B::WorkGraph)
    void warmUp()
    {
        double* one = nullptr;
        GPULDU_CUDA_CHECK(cudaMalloc(&one, sizeof(double)));
        GPULDU_CUDA_CHECK(cudaMemsetAsync(one, 0, sizeof(double), GpuBackend::stream()));
        sum(one, 1);
        const cudaError_t done = cudaStreamSynchronize(GpuBackend::stream());
        cudaFree(one);
        GPULDU_CUDA_CHECK(done);
    }

    ~NcclExchange() override
    {
        if (comm_)
        {
            const TrapsOff off;
            nccl().commDestroy(comm_);
        }
    }

    void exchange(const GroupHalo& halo, const double* send, double* recv) override
    {
        const NcclLibrary& n = nccl();
        const TrapsOff off;
        cudaStream_t stream = GpuBackend::stream();
        check(n.groupStart(), "ncclGroupStart");
        for (std::size_t k = 0; k < halo.neighbours.size(); ++k)
        {
            const int p = peer(halo.neighbours[k]);
            check(n.send(send + halo.sendStart[k], std::size_t(halo.sendStart[k + 1] - halo.sendStart[k]),
                           ncclDouble, p, comm_, stream), "ncclSend");
            check(n.recv(recv + halo.recvStart[k], std::size_t(halo.recvStart[k + 1] - halo.recvStart[k]),
                           ncclDouble, p, comm_, stream), "ncclRecv");
        }
        check(n.groupEnd(), "ncclGroupEnd");
    }

    void sum(double* values, int count) override
    {
        const TrapsOff off;
        check(nccl().allReduce(values, values, std::size_t(count), ncclDouble, ncclSum, comm_, GpuBackend::stream()),
              "ncclAllReduce");
    }

    std::string describe() const override
    {
        return "NCCL (" + nccl().from + ")";
    }
};

} // namespace


std::string ncclUnavailable()
{
    return nccl().why;
}


std::vector<char> ncclId()
{
    ncclUniqueId unique;
    const TrapsOff off;
    check(nccl().getUniqueId(&unique), "ncclGetUniqueId");
    return std::vector<char>(unique.internal, unique.internal + sizeof(unique.internal));
}


std::unique_ptr<DeviceExchange> ncclOpen(const std::vector<char>& id, const std::vector<int>& owners, int me)
{
    return std::make_unique<NcclExchange>(id, owners, me);
}

#else

std::string ncclUnavailable()
{
    return "this build of gpuLduSolvers found no nccl.h";
}

std::vector<char> ncclId()
{
    throw Error("gpuLdu: " + ncclUnavailable());
}

std::unique_ptr<DeviceExchange> ncclOpen(const std::vector<char>&, const std::vector<int>&, int)
{
    throw Error("gpuLdu: " + ncclUnavailable());
}

#endif

} // namespace gpuLdu
