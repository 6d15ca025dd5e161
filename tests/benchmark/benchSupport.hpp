// SPDX-License-Identifier: GPL-3.0-or-later
// What the benchmarks share: median timings with the device synchronised, the device copy
// bandwidth (the floor's denominator) and, in CUDA builds, cuSPARSE error checks.

#ifndef GPULDU_BENCHSUPPORT_HPP
#define GPULDU_BENCHSUPPORT_HPP

#include "problems.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

#ifdef __CUDACC__
#include <cusparse.h>

//- Turns a failed cuSPARSE call into gpuLdu::Error naming the call
#define CUSPARSE_CHECK(call)                                                                       \
    do                                                                                             \
    {                                                                                              \
        const cusparseStatus_t status_ = (call);                                                   \
        if (status_ != CUSPARSE_STATUS_SUCCESS)                                                    \
        {                                                                                          \
            throw gpuLdu::Error(std::string(#call) + ": " + cusparseGetErrorString(status_));      \
        }                                                                                          \
    } while (0)
#endif

namespace gpuLdu::bench
{

//- Milliseconds of f: the median of reps runs after one warm-up, each synchronised
template<class B, class F>
double medianMs(int reps, const F& f)
{
    f();
    B::synchronize();
    std::vector<double> t;
    for (int r = 0; r < reps; ++r)
    {
        const auto start = std::chrono::steady_clock::now();
        f();
        B::synchronize();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size()/2];
}

//- Device copy bandwidth in TB/s (read + write) of 1 GiB of doubles
template<class B>
double copyBandwidth()
{
    const std::size_t n = std::size_t(1) << 27;
    typename B::template Vector<double> a(n, 1.0);
    typename B::template Vector<double> b(n, 0.0);
    const double ms = medianMs<B>(5, [&]() { thrust::copy(B::policy(), a.begin(), a.end(), b.begin()); });
    return 2.0*n*sizeof(double)/(ms*1e-3)/1e12;
}

} // namespace gpuLdu::bench

#endif
