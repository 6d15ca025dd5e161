// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's side of backend/MemoryOrder.hpp, in the PTX memory model's terms: loads and stores
// of values that other thread blocks of the same launch write or read (the one-launch sweeps,
// sweep/WaitProtocol.hpp and sweepKernels.hpp), an L2 prefetch, and the epoch flags of the
// chunked sweeps (sweepKernels.hpp). Forced inline: each is one instruction at its call site.

#ifndef GPULDU_CUDA_MEMORYORDER_HPP
#define GPULDU_CUDA_MEMORYORDER_HPP

#ifdef __CUDACC__

namespace gpuLdu
{
namespace ptx
{

//- Read through L2, the coherent level, never from a possibly stale L1 line
__device__ __forceinline__ double loadFresh(const double* p)
{
    return __ldcg(p);
}

//- A relaxed load at device scope (coherent, never cached in L1, no ordering cost)
__device__ __forceinline__ double loadRelaxed(const double* p)
{
    double v;
    asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
}

//- A relaxed store at device scope
__device__ __forceinline__ void storeRelaxed(double* p, double v)
{
    asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
}

//- Asks L2 for the line of p, ahead of its load
__device__ __forceinline__ void prefetchL2(const void* p)
{
    asm volatile("prefetch.global.L2 [%0];" :: "l"(p));
}

} // namespace ptx

//- A flag as a release/acquire pair at device scope: the release store orders every write that
//  happens before it (the block's, through its barrier) before the flag; a thread that reads the
//  flag with the acquire load sees those writes.
__device__ inline void publishEpoch(int* flag, int epoch)
{
    asm volatile("st.release.gpu.global.s32 [%0], %1;" :: "l"(flag), "r"(epoch) : "memory");
}

__device__ inline int readEpoch(const int* flag)
{
    int epoch;
    asm volatile("ld.acquire.gpu.global.s32 %0, [%1];" : "=r"(epoch) : "l"(flag) : "memory");
    return epoch;
}

} // namespace gpuLdu

#endif

#endif
