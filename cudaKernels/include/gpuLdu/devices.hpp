// SPDX-License-Identifier: GPL-3.0-or-later
// The devices: whether the build has the GPU backend, which device a process and a node's ranks
// use, and host memory: for values on their way to a device that the processes of one host share
// (SharedHostBuffer), and for the set-up's large lists (reserveOnHugePages); the host's threads for
// a set-up's independent parts (onHostThreads). Part of the core's
// interface: gpuLdu.hpp includes every part.

#ifndef GPULDU_DEVICES_HPP
#define GPULDU_DEVICES_HPP

#include "gpuLdu/choices.hpp"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gpuLdu
{

//- Doubles that the processes of one host share: the memory of anonymous files (memfd_create,
//  not bounded by /dev/shm's size), mapped one after the other into one range, that one process
//  makes and the others map through its handle(), "/proc/<pid>/fd/<fd>,<fd>,..." (the maker keeps
//  the files open). A rank group's ranks write their values into the owner's buffer and read psi
//  back from it, in parallel, with no copy by MPI; the maker's buffer is page-locked for executor
//  gpu (cudaHostRegister) so that its system copies straight to and from it. Every page is
//  reserved when made (posix_fallocate): too little memory is an Error then, not a bus error
//  later. Failures throw Error.
class SharedHostBuffer
{
    double* data_ = nullptr;
    std::size_t size_ = 0;
    //- The bytes of address the files' mappings span from data_
    std::size_t spanned_ = 0;
    //- The maker's files, one a part of the range (none for a mapped buffer)
    std::vector<int> files_;
    bool registered_ = false;

public:
    SharedHostBuffer() = default;

    //- Makes n doubles (zero), page-locked for executor gpu, on up to threads threads
    //  (onHostThreads): a file a thread, each reserved by its own (posix_fallocate zeroes the
    //  pages of one file on one core, 5 GB/s: 115 ms for 600 MB; 16 files on 16 threads 14-24
    //  ms), then every page mapped, a range of pages a thread, before they are page-locked (one
    //  page fault a 4 KiB page, the shared memory takes no huge pages: 0.15-0.23 s of page-locking
    //  600 MB on one thread; the pages once mapped, 20-30 ms)
    SharedHostBuffer(Executor executor, std::size_t n, int threads = 1);

    //- Maps the n doubles of another process's buffer by its handle
    SharedHostBuffer(const std::string& handle, std::size_t n);

    ~SharedHostBuffer();
    SharedHostBuffer(const SharedHostBuffer&) = delete;
    SharedHostBuffer& operator=(const SharedHostBuffer&) = delete;
    SharedHostBuffer(SharedHostBuffer&& other) noexcept;
    SharedHostBuffer& operator=(SharedHostBuffer&& other) noexcept;

    //- What another process of the host maps this buffer by (empty for a mapped one)
    std::string handle() const;

    double* data() { return data_; }
    const double* data() const { return data_; }
    std::size_t size() const { return size_; }
};

//- Host memory allocated otherwise (a std::vector's storage) page-locked while this lives, where
//  a CUDA device is usable (cudaHostRegister): a system's uploads from it then go straight to the
//  device instead of through a host copy (a rank group owner's interface coefficients: 17 MB an
//  8M-cell GAMG solve, copied at about 5 GB/s, 3-5 ms, H200). The memory must neither move nor
//  be freed while this lives. Where it cannot be page-locked (no device, pages that another
//  registration holds) it stays as it is, and uploads from it are staged as before.
class PageLock
{
    double* data_ = nullptr;

public:
    PageLock() = default;
    PageLock(double* data, std::size_t n);
    ~PageLock();
    PageLock(const PageLock&) = delete;
    PageLock& operator=(const PageLock&) = delete;
    PageLock(PageLock&& other) noexcept : data_(other.data_) { other.data_ = nullptr; }
    PageLock& operator=(PageLock&& other) noexcept
    {
        std::swap(data_, other.data_);
        return *this;
    }

    bool locked() const { return data_ != nullptr; }
};

//- Asks the kernel to back the whole 2 MiB pages of [p, p + bytes) with transparent huge pages
//  (madvise MADV_HUGEPAGE) where there are any (nothing where not, or where the kernel has them
//  off): memory not yet touched then comes in 2 MiB pages at its first write, not in 4 KiB ones.
//  A rank group's set-up writes fresh lists of hundreds of MB once (its messages, the ranks' levels
//  combined); their first touch costs ~0.48 ms a MB in 4 KiB pages against ~0.14 ms in 2 MiB
//  ones (one H100 host, THP "madvise", docs/performance.md).
void adviseHugePages(void* p, std::size_t bytes);

//- v.reserve(n), its storage advised onto huge pages (adviseHugePages) where it is new: call it
//  before the writes that fill v (resize, assign, insert up to n)
template<class T>
void reserveOnHugePages(std::vector<T>& v, std::size_t n)
{
    if (n > v.capacity())
    {
        v.reserve(n);
        adviseHugePages(v.data(), n*sizeof(T));
    }
}

//- f(i) for every i in [0, n), on up to maxThreads threads (the calling one among them, none
//  more than the host's cores), each taking the next i when it is free. For the independent
//  parts of a rank group's set-up on its owner while the group's other ranks wait without
//  spinning, their cores free: each rank's message unpacked, each level combined. An exception
//  of f is rethrown here once every thread is done: that of the least i that threw.
template<class F>
void onHostThreads(int n, int maxThreads, const F& f)
{
    const int cores = std::max(1, int(std::thread::hardware_concurrency()));
    const int nThreads = std::max(1, std::min(std::min(n, maxThreads), cores));
    std::atomic<int> next(0);
    std::vector<std::exception_ptr> errors(std::size_t(std::max(n, 0)));
    const auto work = [&]()
    {
        for (int i = next++; i < n; i = next++)
        {
            try
            {
                f(i);
            }
            catch (...)
            {
                errors[std::size_t(i)] = std::current_exception();
            }
        }
    };
    std::vector<std::thread> threads;
    for (int t = 1; t < nThreads; ++t)
    {
        threads.emplace_back(work);
    }
    work();
    for (std::thread& thread : threads)
    {
        thread.join();
    }
    for (const std::exception_ptr& error : errors)
    {
        if (error)
        {
            std::rethrow_exception(error);
        }
    }
}

//- Whether this build contains the GPU backend.
bool builtWithCuda();

//- The CUDA devices this process sees (CUDA_VISIBLE_DEVICES respected); 0 where none is usable.
int visibleDevices();

//- Device `device` (of visibleDevices()) for this process's GPU systems from now on: call it
//  before the first makeLduSystem with executor gpu. Returns the device's name and PCI bus id
//  (what tells two devices apart in a log); throws Error if it is out of range.
std::string useDevice(int device);

//- The PCI bus id of device `device` (of visibleDevices()): what tells a node's devices apart
//  whatever CUDA_VISIBLE_DEVICES each process was given (a site's wrapper may show each rank
//  its own device as device 0). Makes no CUDA context. Empty where the device is not usable.
std::string deviceBusId(int device);

//- The device of each node-local rank when nLocal ranks of one node share nDevices devices:
//  the ranks split into min(nDevices, nLocal) groups of neighbouring ranks, as even as possible
//  (the first nLocal % nGroups groups one rank larger), group g on device g. A rank's device
//  follows from its rank among the ranks of its own node, never from its global rank.
std::vector<int> deviceOfLocalRanks(int nLocal, int nDevices);

//- An empty string if a CUDA device is usable, else the reason it is not: the one check of the
//  GPU's availability (the driver asked once a process), which the executor's choice
//  (OnExecutor), the tools and the plugin (gpuLduDevices) all take.
std::string gpuUnavailableReason();

} // namespace gpuLdu

#endif
