// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU's twins of the host backend's loops: one thread per index, and sums (and maxima) in a
// fixed order (block sums, then one block sums those), so that a sum is the same from run to
// run. Templates, defined in this header, so that every binary that instantiates the GPU
// algorithms has its own copy of the kernels.

#ifndef GPULDU_CUDAKERNELS_HPP
#define GPULDU_CUDAKERNELS_HPP

#include <cfloat>

namespace gpuLdu
{

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

//- The threads of one block as a team (forEachTeamKernel): lane, size, barrier, and the
//  block's shared memory as the team's scratch (the doubles asked for at the launch)
struct BlockTeam
{
    __device__ int lane() const { return int(threadIdx.x); }
    __device__ int size() const { return int(blockDim.x); }
    __device__ void sync() const { __syncthreads(); }
    __device__ double* scratch() const
    {
        extern __shared__ double teamScratch[];
        return teamScratch;
    }
};

//- One block per index, its threads a team: the GPU twin of CpuBackend::forEachTeam.
template<class F>
__global__ void forEachTeamKernel(int begin, F f)
{
    f(begin + int(blockIdx.x), BlockTeam());
}

//- The reductions of the kernels below: a sum, a maximum
struct SumOp
{
    static __device__ double identity() { return 0; }
    __device__ double operator()(double a, double b) const { return a + b; }
};

struct MaxOp
{
    static __device__ double identity() { return -DBL_MAX; }
    __device__ double operator()(double a, double b) const { return a < b ? b : a; }
};

//- Every thread's acc reduced by Op over the block, in a fixed tree order (the same bits every
//  run), returned to every thread; s: blockDim.x (a power of two) doubles of shared memory.
template<class Op = SumOp>
__device__ inline double blockReduce(double acc, double* s)
{
    const Op op;
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int w = blockDim.x/2; w > 0; w /= 2)
    {
        if (threadIdx.x < w)
        {
            s[threadIdx.x] = op(s[threadIdx.x], s[threadIdx.x + w]);
        }
        __syncthreads();
    }
    return s[0];
}

//- Block reductions (sums, maxima) of f(i), grid-stride: partials[blockIdx.x]. Fixed order,
//  so repeatable.
template<class F, class Op = SumOp>
__global__ void reduceBlocksKernel(int n, F f, double* partials)
{
    __shared__ double s[256];
    const Op op;
    double acc = Op::identity();
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += gridDim.x*blockDim.x)
    {
        acc = op(acc, f(i));
    }
    const double r = blockReduce<Op>(acc, s);
    if (threadIdx.x == 0)
    {
        partials[blockIdx.x] = r;
    }
}

// A system's sums part by part (GpuBackend::Workspace::sumParts), so that a sum is the same
// whichever system holds the parts: each part's rows in chunks of at most chunkRows rows from its
// first row, a chunk's sum one block's (sumChunksKernel), a part's the sum of its chunks' by one
// warp (partSum), the total the parts' sums in their slots, slot order (slotTotals): every step's
// order follows from the part's rows alone, not from the system's size or its other parts.

//- The sums of f(i) (and of g(i) where Pair) over chunk c = blockIdx.x's rows, [chunks[c].x,
//  chunks[c].y): thread t its rows begin + t, + blockDim.x, ... in order, then the block's tree;
//  partials[c] (and partials[nChunks + c])
template<bool Pair, class F, class G>
__global__ void sumChunksKernel(const int2* chunks, int nChunks, F f, G g, double* partials)
{
    __shared__ double s[256];
    const int2 chunk = chunks[blockIdx.x];
    double a = 0;
    double b = 0;
    for (int i = chunk.x + int(threadIdx.x); i < chunk.y; i += int(blockDim.x))
    {
        a += f(i);
        if (Pair)
        {
            b += g(i);
        }
    }
    const double sumA = blockReduce(a, s);
    if (threadIdx.x == 0)
    {
        partials[blockIdx.x] = sumA;
    }
    if (Pair)
    {
        // every thread has read the first sum before s holds the second
        __syncthreads();
        const double sumB = blockReduce(b, s);
        if (threadIdx.x == 0)
        {
            partials[nChunks + blockIdx.x] = sumB;
        }
    }
}

//- The sum of partials [begin, end) by one warp, returned to lane 0: lane l its values begin + l,
//  + 32, ... in order, then the warp's tree (the same bits for the same values)
__device__ inline double partSum(const double* partials, int begin, int end)
{
    const int lane = int(threadIdx.x) % 32;
    double acc = 0;
    for (int c = begin + lane; c < end; c += 32)
    {
        acc += partials[c];
    }
    for (int offset = 16; offset > 0; offset /= 2)
    {
        acc += __shfl_down_sync(0xffffffffu, acc, offset);
    }
    return acc;
}

//- One block of Block threads: the totals of count vectors of nSlots slot sums (vector j from
//  j*nSlots), slot order (thread t its slots t, t + Block, ... in order, then the block's tree),
//  into totals[j]. The slot sums were written by this block or by an earlier kernel.
template<int Block>
__device__ void slotTotals(const double* slotSums, int nSlots, int count, double* totals)
{
    __shared__ double s[Block];
    for (int j = 0; j < count; ++j)
    {
        double acc = 0;
        for (int i = int(threadIdx.x); i < nSlots; i += Block)
        {
            acc += slotSums[j*nSlots + i];
        }
        const double total = blockReduce(acc, s);
        if (threadIdx.x == 0)
        {
            totals[j] = total;
        }
        // every thread has read the total before s is used again
        __syncthreads();
    }
}

//- One block of Block threads: each slot's part sum (the part partOfSlot[i], its chunks
//  [partChunk[p], partChunk[p + 1]) of count chunk sum vectors of nChunks; 0 where the slot is
//  no part's) into slotSums, a warp a slot; where totals, then their totals (slotTotals)
template<int Block>
__global__ void slotSumsKernel(const int* partOfSlot, const int* partChunk, int nSlots, int nChunks, int count,
                               const double* partials, double* slotSums, double* totals)
{
    const int warp = int(threadIdx.x)/32;
    constexpr int nWarps = Block/32;
    for (int i = warp; i < nSlots; i += nWarps)
    {
        const int p = partOfSlot[i];
        for (int j = 0; j < count; ++j)
        {
            const double sum = p < 0 ? 0.0 : partSum(partials + j*nChunks, partChunk[p], partChunk[p + 1]);
            if (threadIdx.x % 32 == 0)
            {
                slotSums[j*nSlots + i] = sum;
            }
        }
    }
    if (totals)
    {
        // the block's writes to global memory are seen by the block after the barrier
        __syncthreads();
        slotTotals<Block>(slotSums, nSlots, count, totals);
    }
}

//- One block of Block threads: the totals of the slot sums (summed over the systems since
//  slotSumsKernel)
template<int Block>
__global__ void slotTotalsKernel(const double* slotSums, int nSlots, int count, double* totals)
{
    slotTotals<Block>(slotSums, nSlots, count, totals);
}

//- out[b] = partials[b*m, (b + 1)*m) reduced by Op (summed, or their maximum), one block of
//  Block threads per b.
template<int Block, class Op = SumOp>
__global__ void reducePartialsKernel(int m, const double* partials, double* out)
{
    __shared__ double s[Block];
    const Op op;
    partials += blockIdx.x*m;
    out += blockIdx.x;
    double acc = Op::identity();
    for (int i = threadIdx.x; i < m; i += Block)
    {
        acc = op(acc, partials[i]);
    }
    const double r = blockReduce<Op>(acc, s);
    if (threadIdx.x == 0)
    {
        *out = r;
    }
}

} // namespace gpuLdu

#endif
