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

//- Block sums of f(i) per part: part p = blockIdx.x/blocksPerPart sums i in [starts[p],
//  starts[p+1]) with its blocksPerPart blocks, grid-stride; partials[blockIdx.x]. Fixed order.
template<class F>
__global__ void sumPartBlocksKernel(const int* starts, int blocksPerPart, F f, double* partials)
{
    __shared__ double s[256];
    const int part = blockIdx.x/blocksPerPart;
    const int stride = blocksPerPart*blockDim.x;
    const int end = starts[part + 1];
    double acc = 0;
    for (int i = starts[part] + (blockIdx.x % blocksPerPart)*blockDim.x + threadIdx.x; i < end; i += stride)
    {
        acc += f(i);
    }
    const double sum = blockReduce(acc, s);
    if (threadIdx.x == 0)
    {
        partials[blockIdx.x] = sum;
    }
}

//- Block sums of f(i) and of g(i) in one pass, grid-stride: partials[blockIdx.x] and
//  partials[gridDim.x + blockIdx.x]. Fixed order, so repeatable.
template<class F, class G>
__global__ void sumPairBlocksKernel(int n, F f, G g, double* partials)
{
    __shared__ double s[256];
    double a = 0;
    double b = 0;
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += gridDim.x*blockDim.x)
    {
        a += f(i);
        b += g(i);
    }
    const double sumA = blockReduce(a, s);
    // every thread has read the first sum before s holds the second
    __syncthreads();
    const double sumB = blockReduce(b, s);
    if (threadIdx.x == 0)
    {
        partials[blockIdx.x] = sumA;
        partials[gridDim.x + blockIdx.x] = sumB;
    }
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
