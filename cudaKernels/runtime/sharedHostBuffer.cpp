// SPDX-License-Identifier: GPL-3.0-or-later
// SharedHostBuffer (gpuLdu/devices.hpp): doubles shared by the processes of one host through an
// anonymous file (memfd), mapped by the others through /proc/<pid>/fd/<fd>; and large lists on
// transparent huge pages (adviseHugePages).

#include "gpuLdu/gpuLdu.hpp"

#ifdef GPULDU_WITH_CUDA
#include "backend/cuda/CudaDevices.hpp"
#endif

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <utility>

namespace gpuLdu
{

namespace
{

//- "what: strerror(errno)" as an Error
Error systemError(const std::string& what, int error)
{
    return Error(what + ": " + std::strerror(error));
}

//- n doubles of the file fd mapped shared (at least one page's worth of address)
double* mapShared(int fd, std::size_t n)
{
    void* p = mmap
    (
        nullptr, std::max<std::size_t>(n, 1)*sizeof(double), PROT_READ | PROT_WRITE, MAP_SHARED,
        fd, 0
    );
    return p == MAP_FAILED ? nullptr : static_cast<double*>(p);
}

} // namespace


SharedHostBuffer::SharedHostBuffer(Executor executor, std::size_t n, int threads)
:
    size_(n)
{
    const std::size_t bytes = std::max<std::size_t>(n, 1)*sizeof(double);
    fd_ = memfd_create("gpuLduSharedHostBuffer", MFD_CLOEXEC);
    if (fd_ < 0)
    {
        throw systemError("cannot make a shared host buffer (memfd_create)", errno);
    }
    // posix_fallocate returns the error; every page reserved now, so that a host short of memory
    // says so here rather than by SIGBUS at a rank's first write
    const int reserved = posix_fallocate(fd_, 0, off_t(bytes));
    if (reserved != 0)
    {
        close(fd_);
        fd_ = -1;
        throw systemError
        (
            "cannot reserve " + std::to_string(bytes >> 20) + " MiB of host memory for the values"
            " a rank group shares",
            reserved
        );
    }
    data_ = mapShared(fd_, n);
    if (!data_)
    {
        const int error = errno;
        close(fd_);
        fd_ = -1;
        throw systemError("cannot map a shared host buffer", error);
    }
#ifdef GPULDU_WITH_CUDA
    if (executor == Executor::gpu)
    {
        // every page mapped, a range of pages a thread (a write of the zero it holds): the
        // page-locking then finds them mapped
        const std::size_t pageBytes = std::size_t(sysconf(_SC_PAGESIZE));
        const std::size_t nPages = (bytes + pageBytes - 1)/pageBytes;
        const std::size_t perPart = std::size_t(1) << 12;
        const int nParts = int((nPages + perPart - 1)/perPart);
        volatile char* const first = reinterpret_cast<volatile char*>(data_);
        onHostThreads(nParts, threads, [&](int part)
        {
            const std::size_t end = std::min(nPages, (std::size_t(part) + 1)*perPart);
            for (std::size_t page = std::size_t(part)*perPart; page < end; ++page)
            {
                first[page*pageBytes] = 0;
            }
        });
        cudaPinnedRegister(data_, n);
        registered_ = true;
    }
#else
    (void)executor;
#endif
}


SharedHostBuffer::SharedHostBuffer(const std::string& handle, std::size_t n)
:
    size_(n)
{
    const int fd = open(handle.c_str(), O_RDWR | O_CLOEXEC);
    if (fd < 0)
    {
        throw systemError
        (
            "cannot open the shared host buffer " + handle + " of the rank group's owner (the"
            " ranks that share a device must run on one host and see each other's /proc)",
            errno
        );
    }
    data_ = mapShared(fd, n);
    const int error = errno;
    // the mapping keeps the file
    close(fd);
    if (!data_)
    {
        throw systemError("cannot map the shared host buffer " + handle, error);
    }
}


SharedHostBuffer::~SharedHostBuffer()
{
    if (!data_)
    {
        return;
    }
#ifdef GPULDU_WITH_CUDA
    if (registered_)
    {
        cudaPinnedUnregister(data_);
    }
#endif
    munmap(data_, std::max<std::size_t>(size_, 1)*sizeof(double));
    if (fd_ >= 0)
    {
        close(fd_);
    }
}


SharedHostBuffer::SharedHostBuffer(SharedHostBuffer&& other) noexcept
{
    *this = std::move(other);
}


SharedHostBuffer& SharedHostBuffer::operator=(SharedHostBuffer&& other) noexcept
{
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(fd_, other.fd_);
    std::swap(registered_, other.registered_);
    return *this;
}


std::string SharedHostBuffer::handle() const
{
    return fd_ < 0
      ? std::string()
      : "/proc/" + std::to_string(getpid()) + "/fd/" + std::to_string(fd_);
}

void adviseHugePages(void* p, std::size_t bytes)
{
#ifdef MADV_HUGEPAGE
    // the whole huge pages inside [p, p + bytes): madvise takes page-aligned ranges, and only
    // aligned 2 MiB extents can be huge pages
    constexpr std::uintptr_t huge = std::uintptr_t(2) << 20;
    const std::uintptr_t begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
    const std::uintptr_t end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
    if (p && end > begin)
    {
        // advice: where the kernel declines it (THP off) the pages stay 4 KiB, nothing else
        // changes, so its result is not an error
        (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
    }
#else
    (void)p;
    (void)bytes;
#endif
}

} // namespace gpuLdu
