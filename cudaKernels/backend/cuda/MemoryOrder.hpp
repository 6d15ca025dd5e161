// SPDX-License-Identifier: GPL-3.0-or-later
// Loads and stores of values that other thread blocks of the same launch write or read (the
// one-launch sweeps, sweep/WaitProtocol.hpp and cuda/sweepKernels.hpp), in the PTX memory
// model's terms. Each has its host twin: on the host a sweep runs level by level, so a plain
// load or store is all it needs.

#ifndef GPULDU_MEMORYORDER_HPP
#define GPULDU_MEMORYORDER_HPP

#include "backend/Backend.hpp"

namespace gpuLdu
{

//- A value that another thread block may have written during the same launch: read through
//  L2, the coherent level, never from a possibly stale L1 line.
GPULDU_HD inline double loadFresh(const double* p)
{
#ifdef __CUDA_ARCH__
    return __ldcg(p);
#else
    return *p;
#endif
}

//- A value of the sweep in progress, polled until its row is written: a relaxed load at device
//  scope (coherent, never cached in L1, no ordering cost)
GPULDU_HD inline double loadRelaxed(const double* p)
{
#ifdef __CUDA_ARCH__
    double v;
    asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(p));
    return v;
#else
    return *p;
#endif
}

//- A sweep's result, where warps of the same launch poll for it (loadRelaxed)
GPULDU_HD inline void storeRelaxed(double* p, double v)
{
#ifdef __CUDA_ARCH__
    asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
#else
    *p = v;
#endif
}

#ifdef __CUDACC__

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

#endif

} // namespace gpuLdu

#endif
