// SPDX-License-Identifier: GPL-3.0-or-later
// The two backends the one algorithm source is compiled for. An algorithm is a template on a
// Backend B and uses only: B::Vector<T>, B::policy(), B::forEach, B::upload/download (set-up
// transfers), B::synchronize, and a B::Workspace for what a solve repeats: sums and value
// transfers.

#ifndef GPULDU_BACKENDS_HPP
#define GPULDU_BACKENDS_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <thrust/copy.h>
#include <thrust/for_each.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/system/cpp/execution_policy.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <string>
#include <type_traits>
#include <utility>

#ifdef __CUDACC__
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/system/cuda/execution_policy.h>
#define GPULDU_HD __host__ __device__
#else
#define GPULDU_HD
#endif

namespace gpuLdu
{

//- A value that another thread block may have written during the same launch (the one-launch
//  sweeps): read through L2, the coherent level, never from a possibly stale L1 line.
GPULDU_HD inline double loadFresh(const double* p)
{
#ifdef __CUDA_ARCH__
    return __ldcg(p);
#else
    return *p;
#endif
}

//- What an output of the value-waiting sweeps holds until its row is written: a signalling NaN
//  with a payload of its own. Arithmetic never produces it (its NaNs are quiet).
constexpr unsigned long long notReadyBits = 0x7ff4'0000'dead'beefULL;

GPULDU_HD inline double notReady()
{
#ifdef __CUDA_ARCH__
    return __longlong_as_double(static_cast<long long>(notReadyBits));
#else
    double v;
    std::memcpy(&v, &notReadyBits, sizeof v);
    return v;
#endif
}

GPULDU_HD inline bool isReady(double v)
{
#ifdef __CUDA_ARCH__
    return static_cast<unsigned long long>(__double_as_longlong(v)) != notReadyBits;
#else
    unsigned long long bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits != notReadyBits;
#endif
}

//- A value of the sweep in progress, as loadFresh, for waitReady below
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

//- v, loaded from p, once it is ready: on the GPU another warp may still be computing that row
//  (of an earlier level), so p is read again until it no longer holds notReady. On the host rows
//  run in level order and v is returned as it is (a bug would show as a NaN, never a hang).
GPULDU_HD inline double waitReady(const double* p, double v)
{
#ifdef __CUDA_ARCH__
    while (!isReady(v))
    {
        v = loadRelaxed(p);
    }
#else
    (void)p;
#endif
    return v;
}

//- A sweep's result, where warps of the same launch wait for it (waitReady)
GPULDU_HD inline void storeRelaxed(double* p, double v)
{
#ifdef __CUDA_ARCH__
    asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" :: "l"(p), "d"(v) : "memory");
#else
    *p = v;
#endif
}

//- Host execution through Thrust's sequential CPP system: sums are taken in index order, like
//  OpenFOAM's own loops.
struct CpuBackend
{
    template<class T>
    using Vector = thrust::host_vector<T>;

    static constexpr Executor executor = Executor::cpu;

    static auto policy()
    {
        return thrust::cpp::par;
    }

    //- f(i) for i in [begin, end), in order
    template<class F>
    static void forEach(int begin, int end, const F& f)
    {
        thrust::for_each(
            policy(),
            thrust::counting_iterator<int>(begin),
            thrust::counting_iterator<int>(end),
            f
        );
    }

    //- A level-scheduled sweep: f(k) for the positions k of each level, level after level
    template<class Schedule, class F>
    static void sweep(const Schedule& s, const F& f)
    {
        s.sweepByLevel(f);
    }

    template<class T>
    static void upload(T* device, const T* host, std::size_t n)
    {
        if (n)
        {
            std::memcpy(device, host, n*sizeof(T));
        }
    }

    template<class T>
    static void download(T* host, const T* device, std::size_t n)
    {
        if (n)
        {
            std::memcpy(host, device, n*sizeof(T));
        }
    }

    static void synchronize()
    {}

    //- Per-system state for the repeated work of a solve: the scalar slots of sumInto.
    class Workspace
    {
    public:
        static constexpr int nScalars = 8;

    private:
        double scalars_[nScalars] = {};

    public:
        //- sum(n, f) into scalar slot `slot`, left where the next steps read it (scalars())
        template<class F>
        void sumInto(int n, const F& f, int slot)
        {
            scalars_[slot] = sum(n, f);
        }

        const double* scalars() const
        {
            return scalars_;
        }

        //- Slots [first, first + count) to the host
        void fetch(int first, int count, double* host) const
        {
            std::memcpy(host, scalars_ + first, count*sizeof(double));
        }

        void store(int slot, double v)
        {
            scalars_[slot] = v;
        }

        //- Sum of f(i) over i in [0, n), in index order like OpenFOAM's loops.
        template<class F>
        double sum(int n, const F& f)
        {
            return thrust::transform_reduce(
                policy(),
                thrust::counting_iterator<int>(0),
                thrust::counting_iterator<int>(n),
                f,
                0.0,
                thrust::plus<double>()
            );
        }

        //- Host arrays (pointer, size), one after another, into device memory from device on.
        void upload(double* device, std::initializer_list<std::pair<const double*, std::size_t>> parts)
        {
            for (const auto& [host, n] : parts)
            {
                CpuBackend::upload(device, host, n);
                device += n;
            }
        }

        void download(double* host, const double* device, std::size_t n)
        {
            CpuBackend::download(host, device, n);
        }
    };
};

#ifdef __CUDACC__

//- Turns a failed CUDA call into gpuLdu::Error with the call, file, line and CUDA's message.
#define GPULDU_CUDA_CHECK(call)                                                                    \
    ::gpuLdu::cudaCheck((call), #call, __FILE__, __LINE__)

void cudaCheck(cudaError_t status, const char* call, const char* file, int line);

//- One thread per index: the GPU twin of CpuBackend::forEach.
template<class F>
__global__ void forEachKernel(int begin, int end, F f)
{
    const int i = begin + int(blockIdx.x*blockDim.x + threadIdx.x);
    if (i < end)
    {
        f(i);
    }
}

//- The epoch flags of the one-launch sweeps, as a release/acquire pair at device scope: the
//  release store orders every write that happens before it (the block's, through its barrier)
//  before the flag; a thread that reads the flag with the acquire load sees those writes.
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
//  terms of positions about two rounds of the grid ahead. Measured slower (docs/performance.md):
//  2 or 4 rows per thread (waited for in turn, or polled together), two tickets per warp, a
//  fixed round-robin of positions over the warps instead of tickets, a sleep between polls.
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

//- A whole level-scheduled sweep in one launch, a block per slab (a range of consecutive rows,
//  LevelSchedule::Slabs), for row functors that wait on the values they read. Blocks take the
//  slabs by ticket, in the sweep's direction, so a block only waits for rows of slabs taken
//  before its own (running, or done): no deadlock, whatever the number of resident blocks. A
//  block walks its slab's chunks (its rows of one level each) in level order with one barrier
//  per chunk, so a hop between rows of one slab costs a barrier, not a poll of another
//  multiprocessor's write: with slot (slabSlots), the values of the slab's last Depth chunks
//  are read from shared memory. The loads that do not depend on the sweep run ahead: the rows
//  and their term counts two chunks ahead, the terms one chunk ahead, and L2 is asked for the
//  terms `ahead` chunks ahead.
template<int Block, int Depth, class F>
__global__ void __launch_bounds__(Block, 1) slabSweepKernel(
    int nSlabs,
    const int* slabChunkStart,
    const int* chunkBegin,
    const int* chunkFirst,
    const int* slot,
    int* ticket,
    F f
)
{
    constexpr int ahead = 4;
    __shared__ int taken;
    __shared__ double own[Depth*Block];
    const int t = int(threadIdx.x);
    for (;;)
    {
        if (t == 0)
        {
            taken = atomicAdd(ticket, 1);
        }
        __syncthreads();
        const int slab = taken;
        __syncthreads();
        if (slab >= nSlabs)
        {
            return;
        }
        const int cEnd = slabChunkStart[slab + 1];
        // this thread's first position in chunk c, or -1
        auto position = [=](int c)
        {
            return c < cEnd && t < chunkBegin[c + 1] - chunkBegin[c] ? chunkFirst[c] + t : -1;
        };
        int c = slabChunkStart[slab];
        int k = position(c);
        int kNext = position(c + 1);
        auto headNext = kNext >= 0 ? f.head(kNext) : decltype(f.head(0)){};
        using Terms = decltype(prefetchOf(f, 0));
        // the shared-memory slots of a position's terms (-1: read from memory)
        const auto slotsOf = [=](int kk, const Terms& tt, int (&at)[Terms::maxTerms])
        {
#pragma unroll
            for (int m = 0; m < Terms::maxTerms; ++m)
            {
                at[m] = slot && kk >= 0 && m < tt.nTerms ? slot[m*f.n + kk] : -1;
            }
        };
        Terms terms{};
        if (k >= 0)
        {
            terms = f.prefetch(k);
        }
        int at[Terms::maxTerms];
        slotsOf(k, terms, at);
        for (; c < cEnd; ++c)
        {
            const int kAfter = position(c + 2);
            const auto headAfter = kAfter >= 0 ? f.head(kAfter) : decltype(f.head(0)){};
            Terms next{};
            if (kNext >= 0)
            {
                next = f.prefetch(kNext, headNext);
            }
            int atNext[Terms::maxTerms];
            slotsOf(kNext, next, atNext);
            if (c + ahead < cEnd && t % 4 == 0)
            {
                const int size = chunkBegin[c + ahead + 1] - chunkBegin[c + ahead];
                for (int m = t; m < size; m += Block)
                {
                    f.prefetchL2(chunkFirst[c + ahead] + m);
                }
            }
            if (k >= 0)
            {
                readTerms(terms, f.out, at, own);
                double* mine = own + (c % Depth)*Block + t;
                f.finishRead(terms, [mine](double v) { *mine = v; });
            }
            // the rows of a chunk wider than the block
            const int size = chunkBegin[c + 1] - chunkBegin[c];
            for (int m = t + Block; m < size; m += Block)
            {
                f(chunkFirst[c] + m);
            }
            __syncthreads();
            k = kNext;
            kNext = kAfter;
            headNext = headAfter;
            terms = next;
#pragma unroll
            for (int m = 0; m < Terms::maxTerms; ++m)
            {
                at[m] = atNext[m];
            }
        }
    }
}

//- A whole sweep in one launch by chains (LevelSchedule::Chains), for row functors that wait on
//  the values they read and read no terms from the CSR matrix (allPacked). A warp takes a group
//  of 32 chains by ticket and each lane runs its chain in order. The lanes do not wait for each
//  other: in each pass a lane reads its row's late values again, and finishes the row once all
//  are there, so a lane may run ahead of its warp. The rows and their counts are loaded two rows
//  ahead, the terms one row ahead, and L2 is asked for the terms `ahead` rows ahead. A chain may
//  wait on any chain whose rows are at lower levels, not only on groups taken before it:
//  launched only where all groups fit on the device at once. Measured slower than the ticketed
//  sweep (docs/performance.md, "Row functors of 3 terms, chain sweep, cluster microbenchmark"):
//  selectable, for that work.
template<int Block, class F>
__global__ void __launch_bounds__(Block) chainSweepKernel(int nGroups, const int* groupStart, int* ticket, F f)
{
    constexpr int ahead = 4;
    using Terms = decltype(prefetchOf(f, 0));
    using Head = decltype(f.head(0));
    const int lane = int(threadIdx.x) % 32;
    for (;;)
    {
        int g = 0;
        if (lane == 0)
        {
            g = atomicAdd(ticket, 1);
        }
        g = __shfl_sync(0xffffffffu, g, 0);
        if (g >= nGroups)
        {
            return;
        }
        const int end = groupStart[g + 1];
        const auto headAt = [&](int k) { return k < end ? f.head(k) : Head{-1, 0}; };
        const auto termsAt = [&](int k, const Head& h)
        {
            Terms t{};
            if (h.i >= 0)
            {
                t = f.prefetch(k, h);
            }
            unread(t);
            return t;
        };
        // this lane's chain: its rows at slots k, k + 32, ... (row -1: the chain has ended)
        int k = groupStart[g] + lane;
        Head h = headAt(k);
        Head hNext = headAt(k + 32);
        Head hAfter = headAt(k + 64);
        Terms terms = termsAt(k, h);
        Terms next = termsAt(k + 32, hNext);
        while (__any_sync(0xffffffffu, h.i >= 0))
        {
            if (h.i < 0)
            {
                continue;
            }
            rereadTerms(terms, f.out);
            if (terms.ready)
            {
                f.finishRead(terms, [](double) {});
                k += 32;
                h = hNext;
                hNext = hAfter;
                hAfter = headAt(k + 64);
                terms = next;
                next = termsAt(k + 32, hNext);
                if (lane % 4 == 0)
                {
                    f.prefetchL2(k + 32*ahead);
                }
            }
        }
    }
}

//- Block sums of f(i), grid-stride: partials[blockIdx.x]. Fixed order, so repeatable.
template<class F>
__global__ void sumBlocksKernel(int n, F f, double* partials)
{
    __shared__ double s[256];
    double acc = 0;
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += gridDim.x*blockDim.x)
    {
        acc += f(i);
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x/2; w > 0; w /= 2)
    {
        if (threadIdx.x < w)
        {
            s[threadIdx.x] += s[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
    {
        partials[blockIdx.x] = s[0];
    }
}

//- *out = sum of partials[0, m), one block of Block threads. (A template, defined here, so that
//  every binary that instantiates the GPU algorithms has its own copy of the kernel.)
template<int Block>
__global__ void sumPartialsKernel(int m, const double* partials, double* out)
{
    __shared__ double s[Block];
    double acc = 0;
    for (int i = threadIdx.x; i < m; i += Block)
    {
        acc += partials[i];
    }
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = Block/2; w > 0; w /= 2)
    {
        if (threadIdx.x < w)
        {
            s[threadIdx.x] += s[threadIdx.x + w];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
    {
        *out = s[0];
    }
}

struct GpuBackend
{
    template<class T>
    using Vector = thrust::device_vector<T>;

    static constexpr Executor executor = Executor::gpu;

    static auto policy()
    {
        return thrust::cuda::par_nosync;
    }

    //- A level-scheduled sweep: all levels in one launch, by chains (chainSweepKernel) or slabs
    //  where the schedule has them and the row functor waits on values, else by tickets
    //  (valueWaitSweepKernel, persistentSweepKernel) of the schedule's number of blocks
    //  (default: see below); or one launch per level when the schedule asks for 0 blocks
    template<class Schedule, class F>
    static void sweep(const Schedule& s, const F& f)
    {
        constexpr int chunk = Schedule::chunk;
        if (s.nChunks() == 0)
        {
            return;
        }
        if constexpr (WaitsOnValues<F>::value)
        {
            if (const auto* c = s.chains(); c && f.allPacked && s.oneLaunchBlocks() < 0)
            {
                constexpr int block = Schedule::chainBlock;
                const auto kernel = chainSweepKernel<block, F>;
                const int blocks = (32*c->nGroups + block - 1)/block;
                if (blocks <= residentBlocks(kernel, block))
                {
                    GPULDU_CUDA_CHECK(cudaMemsetAsync(s.ticket(), 0, sizeof(int)));
                    kernel<<<blocks, block>>>(c->nGroups, thrust::raw_pointer_cast(c->groupStart.data()), s.ticket(), f);
                    GPULDU_CUDA_CHECK(cudaGetLastError());
                    return;
                }
            }
            if (const auto* p = s.slabs())
            {
                constexpr int block = Schedule::slabBlock;
                const auto kernel = slabSweepKernel<block, Schedule::slabDepth, F>;
                const int blocks = std::min(p->nSlabs, residentBlocks(kernel, block));
                auto raw = [](auto& v) { return thrust::raw_pointer_cast(v.data()); };
                GPULDU_CUDA_CHECK(cudaMemsetAsync(s.ticket(), 0, sizeof(int)));
                kernel<<<blocks, block>>>(p->nSlabs, raw(p->slabChunkStart), raw(p->chunkBegin),
                                          raw(p->chunkFirst), p->slot.empty() ? nullptr : raw(p->slot),
                                          s.ticket(), f);
                GPULDU_CUDA_CHECK(cudaGetLastError());
                return;
            }
        }
        if (s.oneLaunchBlocks() == 0)
        {
            s.sweepByLevel(f);
            return;
        }
        GPULDU_CUDA_CHECK(cudaMemsetAsync(s.ticket(), 0, sizeof(int)));
        // default: about 4 levels' worth of chunks in flight, between one and two blocks per
        // multiprocessor (measured best: 132 blocks at 27 chunks per level, 264 at 105)
        const int sms = multiprocessors();
        const int wanted = s.oneLaunchBlocks() > 0
            ? s.oneLaunchBlocks()
            : std::clamp(4*s.nChunks()/std::max(1, s.nLevels()), sms, 2*sms);
        if constexpr (WaitsOnValues<F>::value)
        {
            if (s.valueWaits())
            {
                const auto kernel = valueWaitSweepKernel<chunk, F>;
                const int blocks = std::min({s.nChunks(), wanted, residentBlocks(kernel, chunk)});
                kernel<<<blocks, chunk>>>(s.nChunks(), s.chunkBegin(), s.ticket(), f);
                GPULDU_CUDA_CHECK(cudaGetLastError());
                return;
            }
        }
        const int blocks = std::min(
            {s.nChunks(), wanted, residentBlocks(persistentSweepKernel<chunk, F>, chunk)});
        persistentSweepKernel<chunk><<<blocks, chunk>>>(
            s.nChunks(), s.chunkBegin(), s.chunkDepStart(), s.chunkDeps(), s.chunkDone(),
            s.nextEpoch(), s.ticket(), f);
        GPULDU_CUDA_CHECK(cudaGetLastError());
    }

    static int multiprocessors()
    {
        int device = 0;
        int sms = 0;
        GPULDU_CUDA_CHECK(cudaGetDevice(&device));
        GPULDU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms;
    }

    //- How many blocks of a kernel fit on the device at once
    template<class Kernel>
    static int residentBlocks(Kernel kernel, int blockSize)
    {
        int perSm = 0;
        GPULDU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, blockSize, 0));
        return std::max(1, multiprocessors()*perSm);
    }

    //- f(i) for i in [begin, end), one launch (cheaper than thrust::for_each for the many
    //  small launches of the level-scheduled sweeps)
    template<class F>
    static void forEach(int begin, int end, const F& f)
    {
        constexpr int block = 256;
        const int blocks = (end - begin + block - 1)/block;
        forEachKernel<<<blocks, block>>>(begin, end, f);
        GPULDU_CUDA_CHECK(cudaGetLastError());
    }

    template<class T>
    static void upload(T* device, const T* host, std::size_t n)
    {
        if (n)
        {
            GPULDU_CUDA_CHECK(cudaMemcpy(device, host, n*sizeof(T), cudaMemcpyHostToDevice));
        }
    }

    template<class T>
    static void download(T* host, const T* device, std::size_t n)
    {
        if (n)
        {
            GPULDU_CUDA_CHECK(cudaMemcpy(host, device, n*sizeof(T), cudaMemcpyDeviceToHost));
        }
    }

    static void synchronize()
    {
        GPULDU_CUDA_CHECK(cudaDeviceSynchronize());
    }

    //- Per-system state for the repeated work of a solve: the partial sums of the reductions,
    //  the scalar slots of sumInto (after the partials), and a pinned host buffer through which
    //  values travel (one DMA per transfer).
    class Workspace
    {
    public:
        static constexpr int nScalars = 8;

    private:
        static constexpr int block_ = 256;
        static constexpr int maxBlocks_ = 1024;
        double* partials_ = nullptr;
        double* pinned_ = nullptr;
        std::size_t pinnedSize_ = 0;

        double* pinned(std::size_t n);

        //- *out (device memory) = sum of f(i) over i in [0, n): block sums, then one block sums
        //  those
        template<class F>
        void sumTo(int n, const F& f, double* out)
        {
            const int blocks = std::max(1, std::min(maxBlocks_, (n + block_ - 1)/block_));
            sumBlocksKernel<<<blocks, block_>>>(n, f, partials_);
            GPULDU_CUDA_CHECK(cudaGetLastError());
            sumPartialsKernel<block_><<<1, block_>>>(blocks, partials_, out);
            GPULDU_CUDA_CHECK(cudaGetLastError());
        }

    public:
        Workspace();
        ~Workspace();
        Workspace(const Workspace&) = delete;
        Workspace& operator=(const Workspace&) = delete;

        //- Sum of f(i) over i in [0, n)
        template<class F>
        double sum(int n, const F& f)
        {
            sumTo(n, f, partials_);
            double result;
            GPULDU_CUDA_CHECK(cudaMemcpy(pinned(1), partials_, sizeof(double), cudaMemcpyDeviceToHost));
            result = *pinned_;
            return result;
        }

        //- The sum into scalar slot `slot`, left on the device where the next kernels read it
        //  (scalars()): no transfer, no wait
        template<class F>
        void sumInto(int n, const F& f, int slot)
        {
            sumTo(n, f, partials_ + maxBlocks_ + slot);
        }

        const double* scalars() const
        {
            return partials_ + maxBlocks_;
        }

        //- Slots [first, first + count) to the host (one transfer)
        void fetch(int first, int count, double* host)
        {
            download(host, scalars() + first, count);
        }

        void store(int slot, double v)
        {
            upload(partials_ + maxBlocks_ + slot, {{&v, 1}});
        }

        void upload(double* device, std::initializer_list<std::pair<const double*, std::size_t>> parts);

        void download(double* host, const double* device, std::size_t n);
    };
};

#endif

template<class T, class Alloc>
T* ptr(thrust::host_vector<T, Alloc>& v)
{
    return thrust::raw_pointer_cast(v.data());
}

template<class T, class Alloc>
const T* ptr(const thrust::host_vector<T, Alloc>& v)
{
    return thrust::raw_pointer_cast(v.data());
}

#ifdef __CUDACC__
template<class T, class Alloc>
T* ptr(thrust::device_vector<T, Alloc>& v)
{
    return thrust::raw_pointer_cast(v.data());
}

template<class T, class Alloc>
const T* ptr(const thrust::device_vector<T, Alloc>& v)
{
    return thrust::raw_pointer_cast(v.data());
}
#endif

//- f(i) for i in [begin, end): one parallel step.
template<class B, class F>
void forEach(int begin, int end, const F& f)
{
    if (end > begin)
    {
        B::forEach(begin, end, f);
    }
}

} // namespace gpuLdu

#endif
