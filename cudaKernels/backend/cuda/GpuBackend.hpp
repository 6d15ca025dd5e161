// SPDX-License-Identifier: GPL-3.0-or-later
// The GPU backend: Thrust's CUDA system for sorts and scans, and the kernels of this folder for
// what runs on every iteration (element-wise steps, sums, the one-launch sweeps). Compiled by
// nvcc only (the executor gpu).

#ifndef GPULDU_GPUBACKEND_HPP
#define GPULDU_GPUBACKEND_HPP

#include "backend/cuda/CudaCheck.hpp"
#include "backend/cuda/kernels.hpp"
#include "backend/cuda/sweepKernels.hpp"

#include <thrust/system/cuda/execution_policy.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

namespace gpuLdu
{

struct GpuBackend
{
    template<class T>
    using Vector = thrust::device_vector<T>;

    static constexpr Executor executor = Executor::gpu;

    //- Thrust's temporary storage (a reduction's partial results, a sort's buffers), kept for
    //  the next algorithm on the same device and stream: Thrust's own takes a cudaMalloc and a
    //  cudaFree per call, and cudaFree waits for the device (about 50 us a reduction, 14 of
    //  them in a GAMG solve's set-up). Blocks over keptBytes (set-up sorts) go back at once.
    struct Temporaries
    {
        using value_type = char;
        static constexpr std::size_t keptBytes = std::size_t(16) << 20;
        char* allocate(std::ptrdiff_t n);
        void deallocate(char* p, std::size_t n);
    };
    static Temporaries& temporaries();

    //- Thrust's algorithms without a wait for the host, on the kernels' current stream, their
    //  temporaries kept (Temporaries)
    static auto policy()
    {
        return thrust::cuda::par_nosync(temporaries()).on(stream());
    }

    //- A level-scheduled sweep: all levels in one launch of the schedule's number of blocks
    //  (default: about 4 levels' worth of chunks in flight, between one and two blocks per
    //  multiprocessor), valueWaitSweepKernel for row functors that wait on the values they read,
    //  persistentSweepKernel for the others; or one launch per level when the schedule asks for
    //  0 blocks (LevelSchedule::setOneLaunchBlocks)
    template<class Schedule, class F>
    static void sweep(const Schedule& s, const F& f)
    {
        constexpr int chunk = Schedule::chunk;
        if (s.nChunks() == 0)
        {
            return;
        }
        if (s.oneLaunchBlocks() == 0)
        {
            s.sweepByLevel(f);
            return;
        }
        GPULDU_CUDA_CHECK(cudaMemsetAsync(s.ticket(), 0, sizeof(int), stream()));
        const int sms = multiprocessors();
        const int wanted = s.oneLaunchBlocks() > 0
            ? s.oneLaunchBlocks()
            : std::clamp(4*s.nChunks()/std::max(1, s.nLevels()), sms, 2*sms);
        if constexpr (WaitsOnValues<F>::value)
        {
            const auto kernel = valueWaitSweepKernel<chunk, F>;
            const int blocks = std::min({s.nChunks(), wanted, residentBlocks(kernel, chunk)});
            kernel<<<blocks, chunk, 0, stream()>>>(s.nChunks(), s.chunkBegin(), s.ticket(), f);
        }
        else
        {
            const auto kernel = persistentSweepKernel<chunk, F>;
            const int blocks = std::min({s.nChunks(), wanted, residentBlocks(kernel, chunk)});
            kernel<<<blocks, chunk, 0, stream()>>>(
                s.nChunks(), s.chunkBegin(), s.chunkDepStart(), s.chunkDeps(), s.chunkDone(),
                s.nextEpoch(), s.ticket(), f);
        }
        GPULDU_CUDA_CHECK(cudaGetLastError());
    }

    static int multiprocessors()
    {
        int device = 0;
        int sms = 0;
        GPULDU_CUDA_CHECK(cudaGetDevice(&device));
        GPULDU_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
        return sms;
    }

    //- How many blocks of a kernel fit on the device at once
    template<class Kernel>
    static int residentBlocks(Kernel kernel, int blockSize)
    {
        int perSm = 0;
        GPULDU_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, blockSize, 0));
        return std::max(1, multiprocessors()*perSm);
    }

    //- f(i) for i in [begin, end), one launch (cheaper than thrust::for_each for the many
    //  small launches of the level-scheduled sweeps)
    template<class F>
    static void forEach(int begin, int end, const F& f)
    {
        constexpr int block = 256;
        const int blocks = (end - begin + block - 1)/block;
        forEachKernel<<<blocks, block, 0, stream()>>>(begin, end, f);
        GPULDU_CUDA_CHECK(cudaGetLastError());
    }

    //- f(i, team) for i in [begin, end), each index one block of `team` threads (a team:
    //  lane(), size(), sync() a barrier of the block, scratch() scratchDoubles of its shared
    //  memory, at most teamScratchDoubles()). Past the 48 KiB a block gets without asking, the
    //  launch asks for its scratch first, here beside the launch: a kernel template instantiated
    //  in two binaries (the core and a test) is two kernels, and the attribute is one kernel's
    template<class F>
    static void forEachTeam(int begin, int end, int team, const F& f, int scratchDoubles = 0)
    {
        if (end > begin)
        {
            const std::size_t bytes = scratchDoubles*sizeof(double);
            if (bytes > 48*1024)
            {
                GPULDU_CUDA_CHECK(cudaFuncSetAttribute(forEachTeamKernel<F>,
                                                       cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)));
            }
            forEachTeamKernel<<<end - begin, team, bytes, stream()>>>(begin, f);
            GPULDU_CUDA_CHECK(cudaGetLastError());
        }
    }

    //- The scratch a team may ask for: the shared memory a block may opt in to (227 KiB on
    //  Hopper)
    static int teamScratchDoubles()
    {
        int device = 0;
        int bytes = 0;
        GPULDU_CUDA_CHECK(cudaGetDevice(&device));
        GPULDU_CUDA_CHECK(cudaDeviceGetAttribute(&bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
        return bytes/int(sizeof(double));
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

    static void synchronize()
    {
        GPULDU_CUDA_CHECK(cudaDeviceSynchronize());
    }

    //- The queue of forEach, forEachTeam and the dense blocks: the default (legacy) stream, or
    //  after useSideStream(i) side stream i (of sideStreams, blocking ones: their work may
    //  overlap one another's, the default stream's later work waits for all of it and it for
    //  the default stream's earlier work), until useDefaultStream()
    static constexpr int sideStreams = 8;
    static void useSideStream(int i);
    static void useDefaultStream();
    static cudaStream_t& stream();

    //- Stream work that repeats with the same arrays and sizes (a V-cycle's legs) as one CUDA
    //  graph: run(true, f) records what f launches (nothing runs while it records), then
    //  launches the recording; run(false, f) launches the last recording again without calling
    //  f. One launch instead of f's many: the host's cost per kernel (several microseconds, more
    //  than a small level's kernel takes) is paid once per recording. f may only launch work on
    //  stream() (no transfer, no wait, no allocation). A new recording updates the graph in
    //  place, or, where not updatable (it holds NCCL's exchanges, whose nodes NCCL does not
    //  let update), replaces it.
    class WorkGraph
    {
        cudaStream_t recording_ = nullptr;
        //- The kernels' stream before the recording (back after it)
        cudaStream_t before_ = nullptr;
        cudaGraphExec_t exec_ = nullptr;

        void beginRecording();
        void endRecording(bool keep, bool updatable);

    public:
        WorkGraph() = default;
        WorkGraph(const WorkGraph&) = delete;
        WorkGraph& operator=(const WorkGraph&) = delete;
        ~WorkGraph();

        template<class F>
        void run(bool record, const F& f, bool updatable = true)
        {
            if (record || !exec_)
            {
                beginRecording();
                try
                {
                    f();
                }
                catch (...)
                {
                    endRecording(false, updatable);
                    throw;
                }
                endRecording(true, updatable);
            }
            GPULDU_CUDA_CHECK(cudaGraphLaunch(exec_, stream()));
        }
    };

    //- Dense blocks (column-major, leading dimensions ld*), for the direct solver's fronts:
    //  C -= A B^T with C m x n, A m x k, B n x k; lowerOnly (m == n): only C's lower triangle
    //  is wanted (the rest may be left as it was or not)
    static void subtractProductNT(int m, int n, int k, const double* A, int lda, const double* B, int ldb,
                                  double* C, int ldc, bool lowerOnly);

    //- X = X L^-T with X m x n and L n x n unit lower triangular (its upper part not read)
    static void solveUnitLowerTransposedRight(int m, int n, const double* L, int ldl, double* X, int ldx);

    //- x = L^-1 x, or L^-T x (transposed), with L n x n unit lower triangular
    static void solveUnitLowerVector(int n, const double* L, int ldl, double* x, bool transposed);

    //- y -= A x with A m x n, or y -= A^T x (transposed: x of m, y of n)
    static void subtractMatrixVector(int m, int n, const double* A, int lda, const double* x, double* y,
                                     bool transposed);

    //- The same for complex values (transposes, not conjugates)
    static void subtractProductNT(int m, int n, int k, const Complex* A, int lda, const Complex* B, int ldb,
                                  Complex* C, int ldc, bool lowerOnly);
    static void solveUnitLowerTransposedRight(int m, int n, const Complex* L, int ldl, Complex* X, int ldx);
    static void solveUnitLowerVector(int n, const Complex* L, int ldl, Complex* x, bool transposed);
    static void subtractMatrixVector(int m, int n, const Complex* A, int lda, const Complex* x, Complex* y,
                                     bool transposed);

    //- The bytes an allocation may take now on this backend
    static double availableMemory();

    //- Per-system state for the repeated work of a solve: the sums part by part (setParts,
    //  sumParts: kernels.hpp), the block partials of maximum, the scalars that sums leave on
    //  the device, and a pinned host buffer through which values travel (one DMA per transfer).
    class Workspace
    {
    public:
        //- The scalars: the loops' (their slots: krylov/VectorOps.hpp), and the last a sum's
        //  on its way to the host
        static constexpr int nScalars = 9;
        static constexpr int hostScalar = nScalars - 1;

    private:
        static constexpr int block_ = 256;
        //- The slots' kernels: a warp a slot, 32 slots at once (each slot's sum waits on three
        //  loads, one after the other; 8 warps took four slots each in turn)
        static constexpr int slotBlock_ = 1024;
        static constexpr int maxBlocks_ = 1024;
        //- The rows a block sums of a part (its chunks from the part's first row)
        static constexpr int chunkRows_ = 2048;
        double* partials_ = nullptr;
        double* pinned_ = nullptr;
        std::size_t pinnedSize_ = 0;

        //- The parts (setParts): their chunks (first row, end) on the device, each part's first
        //  chunk (nParts + 1), each slot's part (-1: none), and per sum of a pass the chunks'
        //  sums and the slots' (two passes' worth)
        std::vector<int> slots_;
        std::vector<double> hostSlots_;
        int nChunks_ = 0;
        int nSlots_ = 0;
        int2* chunks_ = nullptr;
        int* partChunk_ = nullptr;
        int* partOfSlot_ = nullptr;
        double* chunkSums_ = nullptr;
        double* slotSums_ = nullptr;

        double* pinned(std::size_t n);
        void freeParts();

        //- *out (device memory) = f(i) over i in [0, n) reduced by Op (their maximum: MaxOp):
        //  block reductions, then one block reduces those
        template<class Op, class F>
        void reduceTo(int n, const F& f, double* out)
        {
            const int blocks = std::max(1, std::min(maxBlocks_, (n + block_ - 1)/block_));
            reduceBlocksKernel<F, Op><<<blocks, block_, 0, stream()>>>(n, f, partials_);
            GPULDU_CUDA_CHECK(cudaGetLastError());
            reducePartialsKernel<block_, Op><<<1, block_, 0, stream()>>>(blocks, partials_, out);
            GPULDU_CUDA_CHECK(cudaGetLastError());
        }

        //- One value of the device to the host (a wait for the stream)
        double fetchOne(const double* device)
        {
            GPULDU_CUDA_CHECK(cudaMemcpy(pinned(1), device, sizeof(double), cudaMemcpyDeviceToHost));
            return *pinned_;
        }

        //- The chunks' sums of f (and g where Pair), then the slots' (and their totals into
        //  scalars total, total + 1 where total >= 0)
        template<bool Pair, class F, class G>
        void sumChunks(const F& f, const G& g, int total)
        {
            if (nChunks_ > 0)
            {
                sumChunksKernel<Pair><<<nChunks_, block_, 0, stream()>>>(chunks_, nChunks_, f, g, chunkSums_);
                GPULDU_CUDA_CHECK(cudaGetLastError());
            }
            slotSumsKernel<slotBlock_><<<1, slotBlock_, 0, stream()>>>(partOfSlot_, partChunk_, nSlots_, nChunks_, Pair ? 2 : 1,
                chunkSums_, slotSums_, total >= 0 ? scalars() + total : nullptr);
            GPULDU_CUDA_CHECK(cudaGetLastError());
        }

    public:
        Workspace();
        ~Workspace();
        Workspace(const Workspace&) = delete;
        Workspace& operator=(const Workspace&) = delete;

        //- Maximum of f(i) over i in [0, n) (-DBL_MAX where n is 0): no allocation, one wait
        template<class F>
        double maximum(int n, const F& f)
        {
            reduceTo<MaxOp>(n, f, partials_);
            return fetchOne(partials_);
        }

        //- Rows [starts[p], starts[p+1]) are part p, whose sums go to slot slots[p] of nSlots
        //  (the parts of every system that sums with this one, each in one system: their sums
        //  are totalled in slot order)
        void setParts(const std::vector<int>& starts, const std::vector<int>& slots, int nSlots);

        //- The sums of f over each part into its slot (slotSums(), nSlots() values; 0 in the
        //  slots of no part of this system); where total >= 0 also their total into scalar
        //  total. No wait.
        template<class F>
        void sumParts(const F& f, int total)
        {
            sumChunks<false>(f, f, total);
        }

        //- The same for f and g in one pass over the rows: f's slot sums, then g's (2 nSlots()
        //  values); totals into scalars total and total + 1
        template<class F, class G>
        void sumParts(const F& f, const G& g, int total)
        {
            sumChunks<true>(f, g, total);
        }

        double* slotSums()
        {
            return slotSums_;
        }

        int nSlots() const
        {
            return nSlots_;
        }

        //- Scalars [total, total + count) = the totals of count vectors of slot sums (summed
        //  over the systems since sumParts), slot order
        void totalSlots(int count, int total)
        {
            slotTotalsKernel<slotBlock_><<<1, slotBlock_, 0, stream()>>>(slotSums_, nSlots_, count, scalars() + total);
            GPULDU_CUDA_CHECK(cudaGetLastError());
        }

        //- host[p] = the sum of f over part p, for every part (one transfer)
        template<class F>
        void partSums(const F& f, double* host)
        {
            sumParts(f, -1);
            download(hostSlots_.data(), slotSums_, hostSlots_.size());
            for (std::size_t p = 0; p < slots_.size(); ++p)
            {
                host[p] = hostSlots_[std::size_t(slots_[p])];
            }
        }

        const double* scalars() const
        {
            return partials_ + maxBlocks_;
        }

        double* scalars()
        {
            return partials_ + maxBlocks_;
        }

        //- Slots [first, first + count) to the host (one transfer)
        void fetch(int first, int count, double* host)
        {
            download(host, scalars() + first, count);
        }

        void store(int slot, double v)
        {
            upload(partials_ + maxBlocks_ + slot, {{&v, 1}});
        }

        //- The host parts one after the other into device (page-locked ones straight, the
        //  others through one staging copy and one transfer)
        using Part = std::pair<const double*, std::size_t>;
        void upload(double* device, std::initializer_list<Part> parts)
        {
            upload(device, parts.begin(), parts.size());
        }
        void upload(double* device, const std::vector<Part>& parts)
        {
            upload(device, parts.data(), parts.size());
        }
        void upload(double* device, const Part* parts, std::size_t nParts);

        //- n host values into device memory on the stream, not waited for where the host
        //  values are page-locked (the host goes on meanwhile; the stream's later work comes
        //  after the copy), else as upload
        void uploadAsync(double* device, const double* host, std::size_t n);

        void download(double* host, const double* device, std::size_t n);
    };
};

} // namespace gpuLdu

#endif
