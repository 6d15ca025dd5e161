// SPDX-License-Identifier: GPL-3.0-or-later
// A whole level-scheduled sweep in one kernel launch (GpuBackend::sweep). A sweep's levels are
// a chain of dependent steps (about 3n for an n^3 mesh); a launch or a grid-wide barrier per
// level costs several microseconds, so the levels run inside one launch and rows wait for the
// rows they depend on. Warps (or blocks) take work by ticket in level order, so they only ever
// wait for work taken before theirs: no deadlock, whatever the number of resident blocks.
//   valueWaitSweepKernel   row functors that wait on the values they read (sweep/WaitProtocol.hpp):
//                          no flag and no barrier anywhere (the DIC/DILU preconditioner sweeps)
//   persistentSweepKernel  any row functor: a chunk waits on per-chunk epoch flags of the chunks
//                          it depends on (the DIC/DILU and ILU0 factorisations, the ILU0 sweeps)
// Their reference twin is LevelSchedule::sweepByLevel (one parallel step per level).

#ifndef GPULDU_SWEEPKERNELS_HPP
#define GPULDU_SWEEPKERNELS_HPP

#include "backend/MemoryOrder.hpp"

#include <type_traits>
#include <utility>

namespace gpuLdu
{

//- Whether a sweep's row functor splits into prefetch(k) (loads that do not depend on the
//  sweep) and finish(terms) (the rest); then the one-launch sweep prefetches before it waits.
template<class F, class = void>
struct HasPrefetch : std::false_type {};

//- The type prefetch returns, or int for a functor without one (declarations for decltype only)
template<class F>
GPULDU_HD auto prefetchOf(const F& f, int k) -> decltype(f.prefetch(k));

template<class F>
GPULDU_HD int prefetchOf(const F&, long);

template<class F>
struct HasPrefetch<F, std::void_t<decltype(std::declval<const F&>().prefetch(0))>> : std::true_type {};

//- Whether a sweep's row functor waits for the values it reads (waitReady), so that the sweep
//  needs no other synchronisation (F::waitsOnValues)
template<class F, class = void>
struct WaitsOnValues : std::false_type {};

template<class F>
struct WaitsOnValues<F, std::enable_if_t<F::waitsOnValues>> : std::true_type {};

//- A whole level-scheduled sweep in one launch, for row functors that wait on the values they
//  read. Each warp takes a ticket for 32 positions of a chunk, in level order, so a warp only
//  ever waits for rows of warps that took their tickets before it (running, or done): no
//  deadlock, and no barrier or flag anywhere. A thread reads its row's values, then reads the
//  late ones again until all are there, and finishes its row in that pass (finishTerms): it
//  does not wait for the other threads of its warp. Each ticket also asks L2 for the packed
//  terms of positions about two rounds of the grid ahead, so that a row's first, dependent loads
//  (its terms, then the values) find them near.
template<int Chunk, class F>
__global__ void __launch_bounds__(Chunk) valueWaitSweepKernel(
    int nChunks,
    const int* chunkBegin,
    int* ticket,
    F f
)
{
    constexpr int ticketsPerChunk = Chunk/32;
    const int lane = int(threadIdx.x) % 32;
    for (;;)
    {
        int t = 0;
        if (lane == 0)
        {
            t = atomicAdd(ticket, 1);
        }
        t = __shfl_sync(0xffffffffu, t, 0);
        const int c = t/ticketsPerChunk;
        if (c >= nChunks)
        {
            return;
        }
        const int k = chunkBegin[c] + 32*(t % ticketsPerChunk) + lane;
        // the positions about two rounds of the grid ahead, into L2 (one lane per 32-byte sector
        // of the 8-byte arrays)
        if (lane % 4 == 0)
        {
            f.prefetchL2(k + 2*int(gridDim.x*blockDim.x));
        }
        if (k < chunkBegin[c + 1])
        {
            f(k);
        }
    }
}

//- A whole level-scheduled sweep in one launch. The schedule's positions are cut into chunks
//  (one thread each position), in level order. Blocks take chunks by ticket, so a chunk only
//  ever waits for chunks taken before it: no deadlock, whatever the number of resident blocks.
//  A chunk first loads what does not depend on the sweep (prefetch), then waits until the
//  chunks holding its rows' dependencies carry this sweep's epoch, then reads their values
//  through L2 (loadFresh), computes, and publishes its own epoch.
template<int Chunk, class F>
__global__ void __launch_bounds__(Chunk) persistentSweepKernel(
    int nChunks,
    const int* chunkBegin,
    const int* chunkDepStart,
    const int* chunkDeps,
    int* chunkDone,
    int epoch,
    int* ticket,
    F f
)
{
    __shared__ int chunk;
    for (;;)
    {
        if (threadIdx.x == 0)
        {
            chunk = atomicAdd(ticket, 1);
        }
        __syncthreads();
        const int c = chunk;
        if (c >= nChunks)
        {
            return;
        }
        const int k = chunkBegin[c] + int(threadIdx.x);
        const bool active = k < chunkBegin[c + 1];

        decltype(prefetchOf(f, 0)) terms{};
        if constexpr (HasPrefetch<F>::value)
        {
            if (active)
            {
                terms = f.prefetch(k);
            }
        }
        for (int d = chunkDepStart[c] + int(threadIdx.x); d < chunkDepStart[c + 1]; d += Chunk)
        {
            while (readEpoch(chunkDone + chunkDeps[d]) != epoch)
            {
            }
        }
        __syncthreads();
        if (active)
        {
            if constexpr (HasPrefetch<F>::value)
            {
                f.finish(terms);
            }
            else
            {
                f(k);
            }
        }
        // the block's results, ordered before thread 0's release by the barrier
        __syncthreads();
        if (threadIdx.x == 0)
        {
            publishEpoch(chunkDone + c, epoch);
        }
    }
}

} // namespace gpuLdu

#endif
