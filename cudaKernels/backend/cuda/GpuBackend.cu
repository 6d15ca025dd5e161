// SPDX-License-Identifier: GPL-3.0-or-later
// What the GPU backend does not inline: the CUDA check, the workspace's buffers and transfers,
// whether a device is usable, the dense blocks through cuBLAS.

#include "backend/cuda/CudaDevices.hpp"
#include "backend/cuda/GpuBackend.hpp"
#include "backend/PartSlots.hpp"

#include <cublas_v2.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gpuLdu
{

void cudaCheck(cudaError_t status, const char* call, const char* file, int line)
{
    if (status != cudaSuccess)
    {
        throw Error(
            std::string("CUDA error in ") + call + " at " + file + ":" + std::to_string(line)
          + ": " + cudaGetErrorName(status) + ": " + cudaGetErrorString(status)
        );
    }
}

namespace
{

void cublasCheck(cublasStatus_t status, const char* call)
{
    if (status != CUBLAS_STATUS_SUCCESS)
    {
        throw Error(std::string("cuBLAS error in ") + call + ": " + cublasGetStatusName(status) + ": "
                    + cublasGetStatusString(status));
    }
}

//- The thread's cuBLAS handle for the current device, on the kernels' current stream
cublasHandle_t blasHandle()
{
    thread_local std::vector<cublasHandle_t> handles;
    int device = 0;
    GPULDU_CUDA_CHECK(cudaGetDevice(&device));
    if (int(handles.size()) <= device)
    {
        handles.resize(device + 1, nullptr);
    }
    if (!handles[device])
    {
        cublasCheck(cublasCreate(&handles[device]), "cublasCreate");
    }
    cublasCheck(cublasSetStream(handles[device], GpuBackend::stream()), "cublasSetStream");
    return handles[device];
}

//- The thread's side streams of the current device (created on first use)
cudaStream_t sideStream(int i)
{
    thread_local std::vector<std::vector<cudaStream_t>> streams;
    int device = 0;
    GPULDU_CUDA_CHECK(cudaGetDevice(&device));
    if (int(streams.size()) <= device)
    {
        streams.resize(device + 1);
    }
    if (streams[device].empty())
    {
        streams[device].resize(GpuBackend::sideStreams);
        for (cudaStream_t& s : streams[device])
        {
            GPULDU_CUDA_CHECK(cudaStreamCreate(&s));
        }
    }
    return streams[device][i % GpuBackend::sideStreams];
}

} // namespace

namespace
{

//- A block of Thrust's temporaries: lent (to an algorithm running) or kept for the next one of
//  its device and stream (stream order: the next algorithm there runs after the last is done
//  with it; another stream's might not)
struct TemporaryBlock
{
    char* p;
    std::size_t n;
    int device;
    cudaStream_t stream;
};

struct TemporaryBlocks
{
    std::mutex mutex;
    std::vector<TemporaryBlock> kept;
    std::vector<TemporaryBlock> lent;
};

TemporaryBlocks& temporaryBlocks()
{
    // never destroyed: its blocks live as long as the process's CUDA context
    static TemporaryBlocks* blocks = new TemporaryBlocks;
    return *blocks;
}

} // namespace

GpuBackend::Temporaries& GpuBackend::temporaries()
{
    static Temporaries t;
    return t;
}

char* GpuBackend::Temporaries::allocate(std::ptrdiff_t n)
{
    int device = 0;
    GPULDU_CUDA_CHECK(cudaGetDevice(&device));
    const cudaStream_t s = stream();
    TemporaryBlocks& blocks = temporaryBlocks();
    std::lock_guard<std::mutex> lock(blocks.mutex);
    // the smallest kept block of this device and stream that holds n bytes
    auto best = blocks.kept.end();
    for (auto b = blocks.kept.begin(); b != blocks.kept.end(); ++b)
    {
        if (b->device == device && b->stream == s && b->n >= std::size_t(n) && (best == blocks.kept.end() || b->n < best->n))
        {
            best = b;
        }
    }
    TemporaryBlock block{nullptr, std::size_t(n), device, s};
    if (best != blocks.kept.end())
    {
        block = *best;
        blocks.kept.erase(best);
    }
    else
    {
        GPULDU_CUDA_CHECK(cudaMalloc(&block.p, std::max<std::size_t>(n, 1)));
    }
    blocks.lent.push_back(block);
    return block.p;
}

void GpuBackend::Temporaries::deallocate(char* p, std::size_t)
{
    TemporaryBlocks& blocks = temporaryBlocks();
    std::lock_guard<std::mutex> lock(blocks.mutex);
    const auto b = std::find_if(blocks.lent.begin(), blocks.lent.end(), [p](const TemporaryBlock& t) { return t.p == p; });
    if (b == blocks.lent.end())
    {
        return;
    }
    const TemporaryBlock block = *b;
    blocks.lent.erase(b);
    if (block.n <= keptBytes)
    {
        blocks.kept.push_back(block);
    }
    else
    {
        GPULDU_CUDA_CHECK(cudaFree(block.p));
    }
}

cudaStream_t& GpuBackend::stream()
{
    thread_local cudaStream_t current = nullptr;
    return current;
}

void GpuBackend::useSideStream(int i)
{
    stream() = sideStream(i);
}

void GpuBackend::useDefaultStream()
{
    stream() = nullptr;
}

GpuBackend::WorkGraph::~WorkGraph()
{
    if (exec_)
    {
        cudaGraphExecDestroy(exec_);
    }
    if (recording_)
    {
        cudaStreamDestroy(recording_);
    }
}

//- The kernels' stream switched to this graph's own (non-blocking: no implicit wait on the
//  legacy stream, which may not wait on a stream that records), recording on this thread;
//  the graph is launched on the stream before it, in order with its work
void GpuBackend::WorkGraph::beginRecording()
{
    if (!recording_)
    {
        GPULDU_CUDA_CHECK(cudaStreamCreateWithFlags(&recording_, cudaStreamNonBlocking));
    }
    GPULDU_CUDA_CHECK(cudaStreamBeginCapture(recording_, cudaStreamCaptureModeThreadLocal));
    before_ = stream();
    stream() = recording_;
}

//- The recording ended and the kernels' stream back to the one before; kept: the executable
//  graph updated in place (same kernels, new parameters: a cheap update) or, where that fails
//  or is not wanted (updatable false), made afresh
void GpuBackend::WorkGraph::endRecording(bool keep, bool updatable)
{
    stream() = before_;
    cudaGraph_t graph = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(recording_, &graph);
    if (!keep || ended != cudaSuccess)
    {
        if (graph)
        {
            cudaGraphDestroy(graph);
        }
        if (keep)
        {
            GPULDU_CUDA_CHECK(ended);
        }
        return;
    }
    if (exec_ && !updatable)
    {
        GPULDU_CUDA_CHECK(cudaGraphExecDestroy(exec_));
        exec_ = nullptr;
    }
    if (exec_)
    {
        cudaGraphExecUpdateResultInfo info;
        if (cudaGraphExecUpdate(exec_, graph, &info) != cudaSuccess)
        {
            (void)cudaGetLastError();
            GPULDU_CUDA_CHECK(cudaGraphExecDestroy(exec_));
            exec_ = nullptr;
        }
    }
    if (!exec_)
    {
        const cudaError_t made = cudaGraphInstantiate(&exec_, graph, 0);
        cudaGraphDestroy(graph);
        GPULDU_CUDA_CHECK(made);
        return;
    }
    GPULDU_CUDA_CHECK(cudaGraphDestroy(graph));
}

void GpuBackend::subtractProductNT(int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                                   double* C, int ldc, bool lowerOnly)
{
    const double minusOne = -1, one = 1;
    if (lowerOnly)
    {
        cublasCheck(cublasDsyrkx(blasHandle(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &minusOne, A, lda, B, ldb,
                                 &one, C, ldc), "cublasDsyrkx");
    }
    else
    {
        cublasCheck(cublasDgemm(blasHandle(), CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &minusOne, A, lda, B, ldb, &one,
                                C, ldc), "cublasDgemm");
    }
}

void GpuBackend::solveUnitLowerTransposedRight(int m, int n, const double* L, int ldl, double* X, int ldx)
{
    const double one = 1;
    cublasCheck(cublasDtrsm(blasHandle(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                            CUBLAS_DIAG_UNIT, m, n, &one, L, ldl, X, ldx), "cublasDtrsm");
}

void GpuBackend::solveUnitLowerVector(int n, const double* L, int ldl, double* x, bool transposed)
{
    cublasCheck(cublasDtrsv(blasHandle(), CUBLAS_FILL_MODE_LOWER, transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                            CUBLAS_DIAG_UNIT, n, L, ldl, x, 1), "cublasDtrsv");
}

void GpuBackend::subtractMatrixVector(int m, int n, const double* A, int lda, const double* x, double* y,
                                      bool transposed)
{
    const double minusOne = -1, one = 1;
    cublasCheck(cublasDgemv(blasHandle(), transposed ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, &minusOne, A, lda, x, 1,
                            &one, y, 1), "cublasDgemv");
}

// Complex: the Z routines with CUBLAS_OP_T (the transpose, not the conjugate transpose;
// Zsyrkx is the symmetric product, not the Hermitian one); Complex has cuDoubleComplex's layout
namespace
{

cuDoubleComplex* z(Complex* p)
{
    return reinterpret_cast<cuDoubleComplex*>(p);
}

const cuDoubleComplex* z(const Complex* p)
{
    return reinterpret_cast<const cuDoubleComplex*>(p);
}

const cuDoubleComplex minusOneZ{-1, 0}, oneZ{1, 0};

} // namespace

void GpuBackend::subtractProductNT(int m, int n, int k, const Complex* A, int lda, const Complex* B, int ldb,
                                   Complex* C, int ldc, bool lowerOnly)
{
    if (lowerOnly)
    {
        cublasCheck(cublasZsyrkx(blasHandle(), CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, n, k, &minusOneZ, z(A), lda,
                                 z(B), ldb, &oneZ, z(C), ldc), "cublasZsyrkx");
    }
    else
    {
        cublasCheck(cublasZgemm(blasHandle(), CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &minusOneZ, z(A), lda, z(B), ldb,
                                &oneZ, z(C), ldc), "cublasZgemm");
    }
}

void GpuBackend::solveUnitLowerTransposedRight(int m, int n, const Complex* L, int ldl, Complex* X, int ldx)
{
    cublasCheck(cublasZtrsm(blasHandle(), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_T,
                            CUBLAS_DIAG_UNIT, m, n, &oneZ, z(L), ldl, z(X), ldx), "cublasZtrsm");
}

void GpuBackend::solveUnitLowerVector(int n, const Complex* L, int ldl, Complex* x, bool transposed)
{
    cublasCheck(cublasZtrsv(blasHandle(), CUBLAS_FILL_MODE_LOWER, transposed ? CUBLAS_OP_T : CUBLAS_OP_N,
                            CUBLAS_DIAG_UNIT, n, z(L), ldl, z(x), 1), "cublasZtrsv");
}

void GpuBackend::subtractMatrixVector(int m, int n, const Complex* A, int lda, const Complex* x, Complex* y,
                                      bool transposed)
{
    cublasCheck(cublasZgemv(blasHandle(), transposed ? CUBLAS_OP_T : CUBLAS_OP_N, m, n, &minusOneZ, z(A), lda,
                            z(x), 1, &oneZ, z(y), 1), "cublasZgemv");
}

double GpuBackend::availableMemory()
{
    std::size_t free = 0, total = 0;
    GPULDU_CUDA_CHECK(cudaMemGetInfo(&free, &total));
    return double(free);
}

GpuBackend::Workspace::Workspace()
{
    GPULDU_CUDA_CHECK(cudaMalloc(&partials_, (maxBlocks_ + nScalars)*sizeof(double)));
}


GpuBackend::Workspace::~Workspace()
{
    // No throwing from a destructor: a failure here leaves nothing to recover
    cudaFree(partials_);
    freeParts();
    cudaFreeHost(pinned_);
}


void GpuBackend::Workspace::freeParts()
{
    cudaFree(chunks_);
    cudaFree(partChunk_);
    cudaFree(partOfSlot_);
    cudaFree(chunkSums_);
    cudaFree(slotSums_);
    chunks_ = nullptr;
    partChunk_ = nullptr;
    partOfSlot_ = nullptr;
    chunkSums_ = nullptr;
    slotSums_ = nullptr;
}


void GpuBackend::Workspace::setParts(const std::vector<int>& starts, const std::vector<int>& slots, int nSlots)
{
    const int nParts = int(starts.size()) - 1;
    const std::vector<int> partOfSlot = partOfSlots(starts, slots, nSlots);
    std::vector<int2> chunks;
    std::vector<int> partChunk;
    for (int p = 0; p < nParts; ++p)
    {
        partChunk.push_back(int(chunks.size()));
        for (int first = starts[p]; first < starts[p + 1]; first += chunkRows_)
        {
            chunks.push_back(make_int2(first, std::min(first + chunkRows_, starts[p + 1])));
        }
    }
    partChunk.push_back(int(chunks.size()));

    freeParts();
    nChunks_ = int(chunks.size());
    nSlots_ = nSlots;
    slots_ = slots;
    hostSlots_.assign(std::size_t(nSlots), 0.0);
    GPULDU_CUDA_CHECK(cudaMalloc(&chunks_, std::max<std::size_t>(1, chunks.size())*sizeof(int2)));
    GPULDU_CUDA_CHECK(cudaMalloc(&partChunk_, partChunk.size()*sizeof(int)));
    GPULDU_CUDA_CHECK(cudaMalloc(&partOfSlot_, partOfSlot.size()*sizeof(int)));
    GPULDU_CUDA_CHECK(cudaMalloc(&chunkSums_, 2*std::max<std::size_t>(1, chunks.size())*sizeof(double)));
    GPULDU_CUDA_CHECK(cudaMalloc(&slotSums_, 2*std::size_t(nSlots)*sizeof(double)));
    GpuBackend::upload(chunks_, chunks.data(), chunks.size());
    GpuBackend::upload(partChunk_, partChunk.data(), partChunk.size());
    GpuBackend::upload(partOfSlot_, partOfSlot.data(), partOfSlot.size());
}


double* GpuBackend::Workspace::pinned(std::size_t n)
{
    if (n > pinnedSize_)
    {
        GPULDU_CUDA_CHECK(cudaFreeHost(pinned_));
        pinned_ = nullptr;
        pinnedSize_ = 0;
        GPULDU_CUDA_CHECK(cudaMallocHost(&pinned_, n*sizeof(double)));
        pinnedSize_ = n;
    }
    return pinned_;
}


namespace
{

//- Whether host memory is page-locked (cudaMallocHost, cudaHostRegister): the device copies from
//  and to it directly
bool pageLocked(const void* host)
{
    cudaPointerAttributes a;
    if (cudaPointerGetAttributes(&a, host) != cudaSuccess)
    {
        cudaGetLastError();
        return false;
    }
    return a.type == cudaMemoryTypeHost;
}

//- Whether n values at host go straight to or from the device: page-locked, and enough of them
//  to be worth asking (scalars, stored every iteration, are simply staged)
bool direct(const double* host, std::size_t n)
{
    return n >= 4096 && pageLocked(host);
}

//- memcpy of n values between pageable and page-locked host memory. One core copies about
//  9 GB/s, a sixth of what the link to the device then carries from page-locked memory (H100:
//  256 MB copied in 28 ms, sent in 5 ms), so large copies are split over a few threads
//  (4 threads: 256 MB in 16 ms, copy and transfer together).
void hostCopy(double* to, const double* from, std::size_t n)
{
    constexpr std::size_t perThread = std::size_t(1) << 20;
    const std::size_t nThreads = std::min<std::size_t>({4, std::max(1u, std::thread::hardware_concurrency()),
                                                        std::max<std::size_t>(1, n/perThread)});
    std::vector<std::thread> threads;
    for (std::size_t t = 1; t < nThreads; ++t)
    {
        const std::size_t first = n*t/nThreads, last = n*(t + 1)/nThreads;
        threads.emplace_back([=] { std::memcpy(to + first, from + first, (last - first)*sizeof(double)); });
    }
    std::memcpy(to, from, (n/nThreads)*sizeof(double));
    for (std::thread& thread : threads)
    {
        thread.join();
    }
}

} // namespace


void GpuBackend::Workspace::upload(double* device, const Part* parts, std::size_t nParts)
{
    // page-locked parts go straight to the device; each run of the others (consecutive on the
    // device) through the staging copy in one transfer
    std::size_t staged = 0;
    for (std::size_t k = 0; k < nParts; ++k)
    {
        staged += direct(parts[k].first, parts[k].second) ? 0 : parts[k].second;
    }
    double* staging = staged ? pinned(staged) : nullptr;
    std::size_t offset = 0, runStart = 0, runStaged = 0, runLength = 0;
    const auto sendRun = [&]
    {
        if (runLength)
        {
            GPULDU_CUDA_CHECK(cudaMemcpy(device + runStart, staging + runStaged, runLength*sizeof(double),
                                         cudaMemcpyHostToDevice));
            runStaged += runLength;
            runLength = 0;
        }
    };
    for (std::size_t k = 0; k < nParts; ++k)
    {
        const auto& [host, n] = parts[k];
        if (direct(host, n))
        {
            sendRun();
            GPULDU_CUDA_CHECK(cudaMemcpy(device + offset, host, n*sizeof(double), cudaMemcpyHostToDevice));
        }
        else if (n)
        {
            if (!runLength)
            {
                runStart = offset;
            }
            hostCopy(staging + runStaged + runLength, host, n);
            runLength += n;
        }
        offset += n;
    }
    sendRun();
}


void GpuBackend::Workspace::uploadAsync(double* device, const double* host, std::size_t n)
{
    if (direct(host, n))
    {
        GPULDU_CUDA_CHECK(cudaMemcpyAsync(device, host, n*sizeof(double), cudaMemcpyHostToDevice,
                                          stream()));
    }
    else
    {
        upload(device, {{host, n}});
    }
}


void GpuBackend::Workspace::download(double* host, const double* device, std::size_t n)
{
    if (direct(host, n))
    {
        GPULDU_CUDA_CHECK(cudaMemcpy(host, device, n*sizeof(double), cudaMemcpyDeviceToHost));
    }
    else if (n)
    {
        GPULDU_CUDA_CHECK(cudaMemcpy(pinned(n), device, n*sizeof(double), cudaMemcpyDeviceToHost));
        hostCopy(host, pinned_, n);
    }
}


std::string cudaUnavailableReason()
{
    int count = 0;
    const cudaError_t status = cudaGetDeviceCount(&count);
    if (status != cudaSuccess)
    {
        return std::string("cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    }
    if (count == 0)
    {
        return "no CUDA device found";
    }
    return "";
}

int cudaVisibleDevices()
{
    int count = 0;
    GPULDU_CUDA_CHECK(cudaGetDeviceCount(&count));
    return count;
}

void cudaPinnedRegister(double* p, std::size_t n)
{
    GPULDU_CUDA_CHECK(cudaHostRegister(p, n*sizeof(double), cudaHostRegisterDefault));
}

void cudaPinnedUnregister(double* p)
{
    cudaHostUnregister(p);
}

bool cudaTryPinnedRegister(double* p, std::size_t n)
{
    if (cudaHostRegister(p, n*sizeof(double), cudaHostRegisterDefault) == cudaSuccess)
    {
        return true;
    }
    cudaGetLastError();
    return false;
}

std::string cudaDeviceBusId(int device)
{
    char busId[32] = {};
    GPULDU_CUDA_CHECK(cudaDeviceGetPCIBusId(busId, sizeof busId, device));
    return busId;
}

std::string cudaUseDevice(int device)
{
    GPULDU_CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp properties;
    GPULDU_CUDA_CHECK(cudaGetDeviceProperties(&properties, device));
    return std::string(properties.name) + ", PCI " + cudaDeviceBusId(device);
}

} // namespace gpuLdu
