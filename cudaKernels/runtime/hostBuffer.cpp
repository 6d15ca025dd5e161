// SPDX-License-Identifier: GPL-3.0-or-later
// HostBuffer (gpuLdu.hpp): page-locked host memory for the GPU executor, ordinary memory for the
// CPU executor.

#include "gpuLdu/gpuLdu.hpp"

#ifdef GPULDU_WITH_CUDA
#include "backend/cuda/CudaDevices.hpp"
#endif

#include <utility>

namespace gpuLdu
{

HostBuffer::HostBuffer(Executor executor, std::size_t n)
:
    size_(n)
{
#ifdef GPULDU_WITH_CUDA
    if (executor == Executor::gpu)
    {
        data_ = cudaPinnedAllocate(n);
        pinned_ = true;
        return;
    }
#else
    (void)executor;
#endif
    data_ = new double[n]();
}

HostBuffer::~HostBuffer()
{
#ifdef GPULDU_WITH_CUDA
    if (pinned_)
    {
        cudaPinnedFree(data_);
        return;
    }
#endif
    delete[] data_;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept
{
    *this = std::move(other);
}

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept
{
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(pinned_, other.pinned_);
    return *this;
}

} // namespace gpuLdu
