// SPDX-License-Identifier: GPL-3.0-or-later
// Loads and stores of values that other threads of the same parallel step write or read (the
// one-launch sweeps: sweep/WaitProtocol.hpp, precond/, multigrid/SmootherRows.hpp), as the
// algorithms name them. Each backend provides them: on the GPU the memory orders of
// cuda/MemoryOrder.hpp; on the host a sweep runs level by level, so a plain load or store is all
// it needs, and a prefetch is nothing.

#ifndef GPULDU_MEMORYORDER_HPP
#define GPULDU_MEMORYORDER_HPP

#include "backend/Backend.hpp"
#include "backend/cuda/MemoryOrder.hpp"

namespace gpuLdu
{

//- A value that another thread block may have written during the same step: never a stale copy
GPULDU_HD inline double loadFresh(const double* p)
{
#ifdef GPULDU_DEVICE_PASS
    return ptx::loadFresh(p);
#else
    return *p;
#endif
}

//- A value of the sweep in progress, polled until its row is written: coherent, no ordering cost
GPULDU_HD inline double loadRelaxed(const double* p)
{
#ifdef GPULDU_DEVICE_PASS
    return ptx::loadRelaxed(p);
#else
    return *p;
#endif
}

//- A sweep's result, where other threads of the same step poll for it (loadRelaxed)
GPULDU_HD inline void storeRelaxed(double* p, double v)
{
#ifdef GPULDU_DEVICE_PASS
    ptx::storeRelaxed(p, v);
#else
    *p = v;
#endif
}

//- *p += v, the value before returned, where other threads of the same step add too: an atomic
//  on the GPU; on the host a step runs one index at a time
GPULDU_HD inline int fetchAdd(int* p, int v)
{
#ifdef GPULDU_DEVICE_PASS
    return atomicAdd(p, v);
#else
    const int before = *p;
    *p += v;
    return before;
#endif
}

//- Asks the cache for what p points to, ahead of its load (a hint only: nothing on the host)
template<class T>
GPULDU_HD inline void prefetchLine(const T* p)
{
#ifdef GPULDU_DEVICE_PASS
    ptx::prefetchL2(p);
#else
    (void)p;
#endif
}

} // namespace gpuLdu

#endif
