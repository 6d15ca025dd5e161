// SPDX-License-Identifier: GPL-3.0-or-later
// The two backends the one algorithm source is compiled for. An algorithm is a template on a
// Backend B and uses only: B::Vector<T>, B::policy(), and the helpers below.

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

#include <cstring>
#include <string>

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

struct GpuBackend
{
    template<class T>
    using Vector = thrust::device_vector<T>;

    static constexpr Executor executor = Executor::gpu;

    static auto policy()
    {
        return thrust::cuda::par_nosync;
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

//- Sum of f(i) over i in [0, n), in double.
template<class B, class F>
double sumOf(int n, const F& f)
{
    return thrust::transform_reduce(
        B::policy(),
        thrust::counting_iterator<int>(0),
        thrust::counting_iterator<int>(n),
        f,
        0.0,
        thrust::plus<double>()
    );
}

} // namespace gpuLdu

#endif
