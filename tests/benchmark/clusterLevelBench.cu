// SPDX-License-Identifier: GPL-3.0-or-later
// clusterLevelBench: what one level step of a level-synchronous sweep costs inside one thread
// block cluster (Hopper), to decide whether a sweep kept within a cluster is worth building.
// Each level, every thread reads `Deps` values of the previous level from other blocks' shared
// memory (distributed shared memory), loads its row's terms from global memory (a stream,
// loaded one level ahead), writes its own value to its block's shared memory, and the cluster
// synchronises. Prints microseconds per level, and the stream's bandwidth, for cluster sizes
// 1..16 and 256..1024 threads per block. Then, for comparison, the least a level of the
// ticketed sweep can cost: one hand-over of a value from one multiprocessor to another through
// L2 (a token passed around a ring of blocks with the sweep's relaxed store and polling relaxed
// load). Usage: clusterLevelBench [levels] (default 300)

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                                \
    do                                                                                             \
    {                                                                                              \
        const cudaError_t e = (call);                                                              \
        if (e != cudaSuccess)                                                                      \
        {                                                                                          \
            std::printf("%s failed: %s\n", #call, cudaGetErrorString(e));                          \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

constexpr int maxBlock = 1024;
constexpr int deps = 3;

//- levels steps; terms: the global stream, `termsPerLevel` doubles per thread and level
__global__ void clusterLevels(int levels, const double* terms, int termsPerLevel, double* out)
{
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ double own[2][maxBlock];
    const int rank = int(cluster.block_rank());
    const int nBlocks = int(cluster.num_blocks());
    const int t = int(threadIdx.x);
    const int threads = int(blockDim.x)*nBlocks;
    const int me = rank*int(blockDim.x) + t;
    own[0][t] = t;
    own[1][t] = 0;
    cluster.sync();
    // this thread's terms of level l: terms[(l*termsPerLevel + m)*threads + me]
    double next[4] = {0, 0, 0, 0};
    const auto load = [&](int l)
    {
        for (int m = 0; m < termsPerLevel && m < 4; ++m)
        {
            next[m] = terms[(std::size_t(l)*termsPerLevel + m)*threads + me];
        }
    };
    if (termsPerLevel > 0)
    {
        load(0);
    }
    for (int l = 0; l < levels; ++l)
    {
        const int cur = (l + 1) & 1;
        const int prev = l & 1;
        double v = next[0] + next[1] + next[2] + next[3];
        if (termsPerLevel > 0 && l + 1 < levels)
        {
            load(l + 1);
        }
        for (int d = 0; d < deps; ++d)
        {
            const int r = nBlocks > 1 ? (rank + 1 + d) % nBlocks : 0;
            const double* remote = cluster.map_shared_rank(&own[prev][0], r);
            v += 0.5*remote[(t + 37*d) % int(blockDim.x)];
        }
        own[cur][t] = v;
        cluster.sync();
    }
    out[me] = own[levels & 1][t];
}

//- A token passed `rounds` times around a ring of blocks (thread 0 of each): block b waits until
//  its slot holds the token it expects, polling with ld.relaxed.gpu as the ticketed sweep polls
//  its values, then writes the next token to the next block's slot with st.relaxed.gpu, as the
//  sweep writes a row's value. Slots are 128 bytes apart and start at -1.
__global__ void tokenRing(int rounds, double* slots)
{
    if (threadIdx.x != 0)
    {
        return;
    }
    const int n = int(gridDim.x);
    const int b = int(blockIdx.x);
    const double* mine = slots + 16*b;
    double* next = slots + 16*((b + 1) % n);
    for (int r = 0; r < rounds; ++r)
    {
        const double want = double(r)*n + b;
        if (r > 0 || b > 0)
        {
            double v;
            do
            {
                asm volatile("ld.relaxed.gpu.global.f64 %0, [%1];" : "=d"(v) : "l"(mine));
            } while (v != want);
        }
        asm volatile("st.relaxed.gpu.global.f64 [%0], %1;" :: "l"(next), "d"(want + 1) : "memory");
    }
}

//- The shortest of five timed launches in ms, prepare() before each, untimed; -1 where launch()
//  says the device cannot launch it
template<class Prepare, class Launch>
float bestOfFiveMs(const Prepare& prepare, const Launch& launch)
{
    cudaEvent_t start;
    cudaEvent_t stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    float best = 1e30f;
    for (int rep = 0; rep < 5; ++rep)
    {
        prepare();
        CHECK(cudaEventRecord(start));
        if (!launch())
        {
            best = -1;
            break;
        }
        CHECK(cudaEventRecord(stop));
        CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, stop));
        best = ms < best ? ms : best;
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return best;
}

//- ms of one launch of tokenRing (best of 5)
float timeRing(int rounds, int blocks, double* slots)
{
    // every byte 0xff: a NaN, which no token equals
    const auto prepare = [&]() { CHECK(cudaMemset(slots, 0xff, 16*std::size_t(blocks)*sizeof(double))); };
    return bestOfFiveMs(prepare, [&]()
    {
        tokenRing<<<blocks, 32>>>(rounds, slots);
        CHECK(cudaGetLastError());
        return true;
    });
}

//- ms of one launch of `levels` steps, one cluster of `blocks` blocks of `block` threads (-1: the
//  device cannot launch that cluster)
float timeLevels(int levels, int blocks, int block, const double* terms, int termsPerLevel, double* out)
{
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(block);
    cudaLaunchAttribute attribute[1];
    attribute[0].id = cudaLaunchAttributeClusterDimension;
    attribute[0].val.clusterDim.x = blocks;
    attribute[0].val.clusterDim.y = 1;
    attribute[0].val.clusterDim.z = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
    return bestOfFiveMs([]() {}, [&]()
    {
        if (cudaLaunchKernelEx(&config, clusterLevels, levels, terms, termsPerLevel, out) != cudaSuccess)
        {
            (void)cudaGetLastError();
            return false;
        }
        return true;
    });
}

int main(int argc, char** argv)
{
    const int levels = argc > 1 ? std::atoi(argv[1]) : 300;
    CHECK(cudaFuncSetAttribute(clusterLevels, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const std::size_t maxTerms = std::size_t(levels)*4*16*maxBlock;
    double* terms = nullptr;
    double* out = nullptr;
    CHECK(cudaMalloc(&terms, maxTerms*sizeof(double)));
    CHECK(cudaMalloc(&out, 16*maxBlock*sizeof(double)));
    CHECK(cudaMemset(terms, 0, maxTerms*sizeof(double)));
    std::printf("one cluster, %d levels, %d shared-memory reads from other blocks per thread and level\n", levels, deps);
    std::printf("%8s %8s %8s %14s %14s %12s\n", "blocks", "threads", "terms", "us per level", "stream GB/s", "rows/level");
    for (int termsPerLevel : {0, 4})
    {
        for (int blocks : {1, 2, 4, 8, 16})
        {
            for (int block : {256, 512, 1024})
            {
                const float ms = timeLevels(levels, blocks, block, terms, termsPerLevel, out);
                const float ms0 = timeLevels(1, blocks, block, terms, termsPerLevel, out);
                if (ms < 0 || ms0 < 0)
                {
                    std::printf("%8d %8d %8d %14s\n", blocks, block, termsPerLevel, "cannot launch");
                    continue;
                }
                const double perLevel = 1e3*(ms - ms0)/(levels - 1);
                const double bytes = 8.0*termsPerLevel*blocks*block*levels;
                std::printf("%8d %8d %8d %14.3f %14.1f %12d\n", blocks, block, termsPerLevel, perLevel,
                            bytes/(ms*1e-3)/1e9, blocks*block);
            }
        }
    }
    int device = 0;
    int sms = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    std::printf("\nhand-over through L2: a token around a ring of blocks (one thread each)\n");
    std::printf("%8s %10s %14s\n", "blocks", "hops", "us per hop");
    for (int blocks : {2, 8, 32, sms})
    {
        const int rounds = 20000/blocks + 2;
        const float ms = timeRing(rounds, blocks, out);
        const float ms1 = timeRing(1, blocks, out);
        std::printf("%8d %10d %14.3f\n", blocks, rounds*blocks, 1e3*(ms - ms1)/(double(rounds - 1)*blocks));
    }
    CHECK(cudaFree(terms));
    CHECK(cudaFree(out));
    return 0;
}
