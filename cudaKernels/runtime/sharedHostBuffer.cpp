// SPDX-License-Identifier: GPL-3.0-or-later
// SharedHostBuffer (gpuLdu/devices.hpp): doubles shared by the processes of one host through
// anonymous files (memfd) side by side in one range, mapped by the others through
// /proc/<pid>/fd/<fd>,...; host memory allocated otherwise page-locked (PageLock); and large
// lists on transparent huge pages (adviseHugePages).

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
#include <vector>

namespace gpuLdu
{

namespace
{

//- "what: strerror(errno)" as an Error
Error systemError(const std::string& what, int error)
{
    return Error(what + ": " + std::strerror(error));
}

//- The bytes of each of the files that hold n doubles in nFiles parts: whole pages, so that each
//  maps at a page boundary of the range (the last may hold fewer of the n)
std::size_t partBytes(std::size_t n, std::size_t nFiles)
{
    const std::size_t page = std::size_t(sysconf(_SC_PAGESIZE));
    const std::size_t bytes = std::max<std::size_t>(n, 1)*sizeof(double);
    const std::size_t perFile = (bytes + nFiles - 1)/nFiles;
    return (perFile + page - 1)/page*page;
}

//- The files fds mapped shared one after the other, each of part bytes, into one range of
//  address reserved first (so that the parts lie side by side); nullptr with errno where not
double* mapShared(const std::vector<int>& fds, std::size_t part)
{
    const std::size_t spanned = part*fds.size();
    void* range = mmap(nullptr, spanned, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED)
    {
        return nullptr;
    }
    char* const first = static_cast<char*>(range);
    for (std::size_t k = 0; k < fds.size(); ++k)
    {
        void* p = mmap(first + k*part, part, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fds[k], 0);
        if (p == MAP_FAILED)
        {
            const int error = errno;
            munmap(range, spanned);
            errno = error;
            return nullptr;
        }
    }
    return static_cast<double*>(range);
}

//- Closes the files that are open (>= 0) of fds
void closeAll(const std::vector<int>& fds)
{
    for (int fd : fds)
    {
        if (fd >= 0)
        {
            close(fd);
        }
    }
}

//- The files a buffer takes: one a thread, each at least 16 MB, at most 16 (a handle's length)
std::size_t fileCount(std::size_t n, int threads)
{
    const std::size_t bytes = n*sizeof(double);
    const std::size_t bySize = std::max<std::size_t>(1, bytes/(std::size_t(16) << 20));
    return std::min<std::size_t>({bySize, std::size_t(std::max(threads, 1)), 16});
}

//- The paths of a handle, "/proc/<pid>/fd/<fd>,<fd>,...": one a file
std::vector<std::string> handlePaths(const std::string& handle)
{
    const std::size_t slash = handle.rfind('/');
    const std::string dir = slash == std::string::npos ? std::string() : handle.substr(0, slash + 1);
    std::vector<std::string> paths;
    std::size_t from = dir.size();
    while (true)
    {
        const std::size_t comma = handle.find(',', from);
        paths.push_back(dir + handle.substr(from, comma == std::string::npos ? comma : comma - from));
        if (comma == std::string::npos)
        {
            return paths;
        }
        from = comma + 1;
    }
}

} // namespace


SharedHostBuffer::SharedHostBuffer(Executor executor, std::size_t n, int threads)
:
    size_(n),
    files_(fileCount(n, threads), -1)
{
    const std::size_t part = partBytes(n, files_.size());
    try
    {
        // posix_fallocate returns the error; every page reserved now, so that a host short of
        // memory says so here rather than by SIGBUS at a rank's first write
        onHostThreads(int(files_.size()), threads, [&](int k)
        {
            const int fd = memfd_create("gpuLduSharedHostBuffer", MFD_CLOEXEC);
            if (fd < 0)
            {
                throw systemError("cannot make a shared host buffer (memfd_create)", errno);
            }
            files_[std::size_t(k)] = fd;
            const int reserved = posix_fallocate(fd, 0, off_t(part));
            if (reserved != 0)
            {
                throw systemError
                (
                    "cannot reserve " + std::to_string((part*files_.size()) >> 20) + " MiB of host"
                    " memory for the values a rank group shares",
                    reserved
                );
            }
        });
        data_ = mapShared(files_, part);
        if (!data_)
        {
            throw systemError("cannot map a shared host buffer", errno);
        }
        spanned_ = part*files_.size();
#ifdef GPULDU_WITH_CUDA
        if (executor == Executor::gpu)
        {
            // every page mapped, a range of pages a thread (a write of the zero it holds): the
            // page-locking then finds them mapped
            const std::size_t pageBytes = std::size_t(sysconf(_SC_PAGESIZE));
            const std::size_t nPages = spanned_/pageBytes;
            const std::size_t perPart = std::size_t(1) << 12;
            const int nParts = int((nPages + perPart - 1)/perPart);
            volatile char* const first = reinterpret_cast<volatile char*>(data_);
            onHostThreads(nParts, threads, [&](int range)
            {
                const std::size_t end = std::min(nPages, (std::size_t(range) + 1)*perPart);
                for (std::size_t page = std::size_t(range)*perPart; page < end; ++page)
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
    catch (...)
    {
        if (data_)
        {
            munmap(data_, spanned_);
        }
        closeAll(files_);
        throw;
    }
}


SharedHostBuffer::SharedHostBuffer(const std::string& handle, std::size_t n)
:
    size_(n)
{
    std::vector<int> fds;
    for (const std::string& path : handlePaths(handle))
    {
        const int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
        if (fd < 0)
        {
            const int error = errno;
            closeAll(fds);
            throw systemError
            (
                "cannot open the shared host buffer " + handle + " of the rank group's owner (the"
                " ranks that share a device must run on one host and see each other's /proc)",
                error
            );
        }
        fds.push_back(fd);
    }
    const std::size_t part = partBytes(n, fds.size());
    data_ = mapShared(fds, part);
    const int error = errno;
    // the mappings keep the files
    closeAll(fds);
    if (!data_)
    {
        throw systemError("cannot map the shared host buffer " + handle, error);
    }
    spanned_ = part*fds.size();
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
    munmap(data_, spanned_);
    closeAll(files_);
}


SharedHostBuffer::SharedHostBuffer(SharedHostBuffer&& other) noexcept
{
    *this = std::move(other);
}


SharedHostBuffer& SharedHostBuffer::operator=(SharedHostBuffer&& other) noexcept
{
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
    std::swap(spanned_, other.spanned_);
    std::swap(files_, other.files_);
    std::swap(registered_, other.registered_);
    return *this;
}


PageLock::PageLock(double* data, std::size_t n)
{
#ifdef GPULDU_WITH_CUDA
    if (data && n && gpuUnavailableReason().empty() && cudaTryPinnedRegister(data, n))
    {
        data_ = data;
    }
#else
    (void)data;
    (void)n;
#endif
}


PageLock::~PageLock()
{
#ifdef GPULDU_WITH_CUDA
    if (data_)
    {
        cudaPinnedUnregister(data_);
    }
#endif
}


std::string SharedHostBuffer::handle() const
{
    if (files_.empty())
    {
        return std::string();
    }
    std::string h = "/proc/" + std::to_string(getpid()) + "/fd/";
    for (std::size_t k = 0; k < files_.size(); ++k)
    {
        h += (k ? "," : "") + std::to_string(files_[k]);
    }
    return h;
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
