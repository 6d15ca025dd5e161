// SPDX-License-Identifier: GPL-3.0-or-later
// The backend concept: what an algorithm of the core may use. Every algorithm is a template on a
// backend B and is written once against
//   B::Vector<T>          an array on the backend (thrust::host_vector / thrust::device_vector)
//   B::executor           Executor::cpu or Executor::gpu
//   B::policy()           the Thrust execution policy of the backend
//   B::forEach(b, e, f)   f(i) for i in [b, e), one parallel step (here: forEach<B>)
//   B::forEachTeam(b, e, t, f)  f(i, team) for i in [b, e), each index a team of t threads on the
//                         GPU (one block; team.lane(), team.size(), team.sync()), of one on the host
//   B::sweep(s, f)        a level-scheduled sweep: f(k) for the positions of each level, level
//                         after level (sweep/LevelSchedule.hpp)
//   B::upload, download   set-up transfers between host and backend arrays
//   B::subtractProductNT, solveUnitLowerTransposedRight, solveUnitLowerVector,
//   subtractMatrixVector  dense blocks of the direct solver (cuBLAS / the host's BLAS), real and
//                         complex (Complex: transposes, never conjugates: complex symmetric)
//   B::availableMemory()  what an allocation may take (checked before the direct solver's)
//   B::synchronize()      wait for the backend's queue
//   B::WorkGraph          stream work recorded once and replayed (a CUDA graph; on the host
//                         the work itself each time): run(record, f)
//   B::Workspace          what a solve repeats: sums (kept on the backend or brought to the
//                         host), maxima and value transfers, without allocating
// and __host__ __device__ functors (GPULDU_HD) that hold raw pointers (ptr()) to backend arrays.
// The backends: cpu/CpuBackend.hpp (g++, Thrust's sequential CPP system) and
// cuda/GpuBackend.hpp (nvcc, Thrust's CUDA system plus the kernels of cuda/).

#ifndef GPULDU_BACKEND_HPP
#define GPULDU_BACKEND_HPP

#include "gpuLdu/clock.hpp"
#include "gpuLdu/gpuLdu.hpp"

#include <thrust/binary_search.h>
#include <thrust/complex.h>
#include <thrust/find.h>
#include <thrust/functional.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/host_vector.h>
#include <thrust/transform_reduce.h>

#ifdef __CUDACC__
#include <thrust/device_vector.h>
#define GPULDU_HD __host__ __device__
#else
#define GPULDU_HD
#endif

// GPULDU_DEVICE_PASS: defined where the code being compiled runs on the GPU (nvcc's device
// pass), for the few places where a function's GPU and host twins part (a sweep's row waits on
// the GPU, throws on the host; the memory orders of MemoryOrder.hpp). GPULDU_UNROLL: the loop
// that follows unrolled on the GPU (its arrays then stay in registers, not local memory).
#ifdef __CUDA_ARCH__
#define GPULDU_DEVICE_PASS 1
#define GPULDU_UNROLL _Pragma("unroll")
#else
#define GPULDU_UNROLL
#endif

namespace gpuLdu
{

//- The complex scalar of the kernels (complex symmetric LDL^T): std::complex<double>'s layout,
//  with host and device arithmetic
using Complex = thrust::complex<double>;

//- The raw pointer of a backend array, for the functors
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

namespace detail
{

//- to = from, element-wise
struct Copy
{
    const double* from;
    double* to;

    GPULDU_HD void operator()(int i) const
    {
        to[i] = from[i];
    }
};

//- to[k] = from[index[k]] (Index: int, or long for arrays over 2^31 entries)
template<class T, class Index = int>
struct Gather
{
    const Index* index;
    const T* from;
    T* to;

    GPULDU_HD void operator()(int k) const
    {
        to[k] = from[index[k]];
    }
};

//- to[index[k]] = from[k]
template<class T, class Index = int>
struct Scatter
{
    const Index* index;
    const T* from;
    T* to;

    GPULDU_HD void operator()(int k) const
    {
        to[index[k]] = from[k];
    }
};

} // namespace detail

//- f(i) for i in [begin, end): one parallel step.
template<class B, class F>
void forEach(int begin, int end, const F& f)
{
    if (end > begin)
    {
        B::forEach(begin, end, f);
    }
}

//- The starts of groups 0 .. nGroups-1 in keys sorted ascending, CSR-style: start[g] the first
//  position whose key is >= g (start[nGroups]: how many keys are below nGroups)
template<class B, class Keys, class Starts>
void groupStarts(const Keys& sortedKeys, int nGroups, Starts& start)
{
    start.resize(nGroups + 1);
    thrust::lower_bound(B::policy(), sortedKeys.begin(), sortedKeys.end(), thrust::counting_iterator<int>(0),
                        thrust::counting_iterator<int>(nGroups + 1), start.begin());
}

//- The first i in [0, n) where pred(i) holds, n where none does
template<class B, class Pred>
int firstWhere(int n, const Pred& pred)
{
    const thrust::counting_iterator<int> begin(0);
    return int(thrust::find_if(B::policy(), begin, begin + n, pred) - begin);
}

//- The least f(i) over i in [0, n), none where n is 0
template<class B, class F>
int leastOf(int n, const F& f, int none)
{
    const thrust::counting_iterator<int> begin(0);
    return thrust::transform_reduce(B::policy(), begin, begin + n, f, none, thrust::minimum<int>());
}

//- A stopwatch's seconds once the backend's queue has done its work
template<class B>
double queueSeconds(const Stopwatch& watch)
{
    B::synchronize();
    return watch.seconds();
}

//- A stopwatch's lap once the backend's queue has done its work
template<class B>
double queueLap(Stopwatch& watch)
{
    B::synchronize();
    return watch.lap();
}

} // namespace gpuLdu

#endif
