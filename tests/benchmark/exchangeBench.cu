// SPDX-License-Identifier: GPL-3.0-or-later
// What one exchange between two GPUs costs, by each transport a group's owner could use for the
// processor faces between groups (issue 45): two MPI ranks, rank r on device r % nDevices, each
// sending n doubles from its device to the other's and receiving as many, for n in 1 .. 65536:
//   host      cudaMemcpy to page-locked host memory, MPI_Sendrecv, cudaMemcpy back (what a
//             round trip through the host costs; the plugin's path today adds the ranks' requests)
//   nccl      ncclSend/ncclRecv in one group on a stream, K exchanges queued back to back with a
//             small kernel between each (the stream order a V-cycle would keep: no host wait
//             between exchanges), the stream waited for once
//   hostSum   one double: cudaMemcpy down, MPI_Allreduce, cudaMemcpy up (a sum reduced by MPI)
//   ncclSum   one double: ncclAllReduce on the stream, K back to back, waited for once
//   peer      one kernel an exchange through CUDA IPC: each rank has mapped the other's receive
//             buffers (two, alternating) and flag once; the kernel's blocks write this rank's
//             values into the peer's buffer, the last of them raises the peer's flag to the
//             exchange's number (after a system-wide fence), then every block waits for its own
//             flag and copies its part of what the peer wrote (what a device-resident halo
//             exchange without NCCL would cost; stream-ordered like nccl, a kernel between)
//   peerSum   one double: one single-thread kernel writes its value into the peer's slot, raises
//             the peer's flag, waits for its own, and adds the two in rank order (both ranks
//             get the same bits)
// NCCL is opened at run time (libnccl.so.2: the CUDA toolkit's, or LD_LIBRARY_PATH's); where
// it is not found its lines say so. Each figure is the median of 5 repetitions of K exchanges,
// in microseconds per exchange.
// The received values are checked against what the other rank sent (every transport, every n).
// Usage: mpirun -np 2 gpuLduExchangeBench [K]   (default 200)

#include <cuda_runtime.h>
#include <mpi.h>
#include "backend/cuda/NcclLibrary.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace
{

void check(cudaError_t e, const char* what)
{
    if (e != cudaSuccess)
    {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

//- What a V-cycle does between two exchanges: a kernel on the received values
__global__ void touch(double* x, int n)
{
    const int i = blockIdx.x*blockDim.x + threadIdx.x;
    if (i < n)
    {
        x[i] += 1e-300;
    }
}

//- The median of 5 timings of f (seconds for k exchanges), in microseconds per exchange
template<class F>
double medianMicroseconds(int k, const F& f)
{
    std::vector<double> t;
    f();  // warm-up
    for (int rep = 0; rep < 5; ++rep)
    {
        MPI_Barrier(MPI_COMM_WORLD);
        const double start = MPI_Wtime();
        f();
        t.push_back((MPI_Wtime() - start)/k*1e6);
    }
    std::sort(t.begin(), t.end());
    double median = t[2];
    MPI_Allreduce(MPI_IN_PLACE, &median, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return median;
}

//- Spin until *flag reaches epoch; a peer that never comes (10 s) traps rather than hangs
__device__ void waitFor(const volatile unsigned long long* flag, unsigned long long epoch)
{
    unsigned long long start;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*flag < epoch)
    {
        __nanosleep(64);
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (now - start > 10000000000ull)
        {
            printf("gpuLduExchangeBench: the peer's exchange %llu never came\n", epoch);
            __trap();
        }
    }
}

//- One exchange by peer writes: this rank's n values into the peer's buffer, the peer's flag
//  raised by the last block to finish writing; then every block waits for this rank's flag and
//  copies its share of its own buffer into recv. The grid fits on the device at once (every
//  block resident), so a block that waits never keeps the last writer from running.
//  The exchange's number is this rank's count of its exchanges and sums (on the device, so that
//  a recorded graph replays with new numbers): read by every block before any block counts
//  itself done, stored by the last one. Two buffers alternate by the number's parity.
__global__ void peerExchange(const double* send, double* peerBuffers, unsigned long long* peerFlag,
                             const double* ownBuffers, const unsigned long long* ownFlag,
                             unsigned int* blocksDone, unsigned long long* sequence, int maxN,
                             double* recv, int n)
{
    __shared__ unsigned long long epoch;
    if (threadIdx.x == 0)
    {
        epoch = *(volatile unsigned long long*)sequence + 1;
    }
    __syncthreads();
    const std::size_t half = std::size_t(epoch % 2)*maxN;
    const int stride = gridDim.x*blockDim.x;
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += stride)
    {
        peerBuffers[half + i] = send[i];
    }
    __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
    {
        if (atomicAdd(blocksDone, 1u) == gridDim.x - 1)
        {
            *blocksDone = 0;
            *sequence = epoch;
            __threadfence_system();
            atomicExch_system(peerFlag, epoch);
        }
        waitFor(ownFlag, epoch);
        __threadfence();
    }
    __syncthreads();
    for (int i = blockIdx.x*blockDim.x + threadIdx.x; i < n; i += stride)
    {
        recv[i] = __ldcg(ownBuffers + half + i);
    }
}

//- One sum of a double over the two ranks by peer writes, added in rank order
__global__ void peerSum(const double* value, double* peerSlots, unsigned long long* peerFlag,
                        const double* ownSlots, const unsigned long long* ownFlag,
                        unsigned long long* sequence, int rank, double* sum)
{
    const unsigned long long epoch = *sequence + 1;
    *sequence = epoch;
    double* peerSlot = peerSlots + epoch % 2;
    const double* ownSlot = ownSlots + epoch % 2;
    *peerSlot = *value;
    __threadfence_system();
    atomicExch_system(peerFlag, epoch);
    waitFor(ownFlag, epoch);
    __threadfence();
    const double other = __ldcg(ownSlot);
    *sum = rank == 0 ? *value + other : other + *value;
}

//- This rank's receive area (two buffers of maxN doubles, a sum's two slots, the flag, the
//  writers' block count) and the peer's, mapped through CUDA IPC
struct PeerArea
{
    double* buffers = nullptr;
    unsigned long long* flag = nullptr;
    unsigned int* blocksDone = nullptr;
    unsigned long long* sequence = nullptr;
    double* peerBuffers = nullptr;
    unsigned long long* peerFlag = nullptr;
    int maxN = 0;
    int blocks = 1;

    PeerArea(int maxN, int peer)
    :
        maxN(maxN)
    {
        const std::size_t bytes = (2*std::size_t(maxN) + 2)*sizeof(double) + sizeof(unsigned long long);
        char* area = nullptr;
        check(cudaMalloc(&area, bytes), "cudaMalloc (peer area)");
        check(cudaMemset(area, 0, bytes), "cudaMemset (peer area)");
        buffers = reinterpret_cast<double*>(area);
        flag = reinterpret_cast<unsigned long long*>(buffers + 2*maxN + 2);
        check(cudaMalloc(&blocksDone, sizeof(unsigned int)), "cudaMalloc");
        check(cudaMemset(blocksDone, 0, sizeof(unsigned int)), "cudaMemset");
        check(cudaMalloc(&sequence, sizeof(unsigned long long)), "cudaMalloc");
        check(cudaMemset(sequence, 0, sizeof(unsigned long long)), "cudaMemset");
        cudaIpcMemHandle_t mine, theirs;
        check(cudaIpcGetMemHandle(&mine, area), "cudaIpcGetMemHandle");
        MPI_Sendrecv(&mine, sizeof(mine), MPI_BYTE, peer, 9, &theirs, sizeof(theirs), MPI_BYTE, peer, 9,
            MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        void* mapped = nullptr;
        check(cudaIpcOpenMemHandle(&mapped, theirs, cudaIpcMemLazyEnablePeerAccess), "cudaIpcOpenMemHandle");
        peerBuffers = static_cast<double*>(mapped);
        peerFlag = reinterpret_cast<unsigned long long*>(peerBuffers + 2*maxN + 2);
        int device = 0, sms = 1;
        check(cudaGetDevice(&device), "cudaGetDevice");
        check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "multiprocessors");
        blocks = sms;
    }

    void exchange(const double* send, double* recv, int n, cudaStream_t stream)
    {
        const int grid = std::max(1, std::min(blocks, (n + 255)/256));
        peerExchange<<<grid, 256, 0, stream>>>(send, peerBuffers, peerFlag, buffers, flag, blocksDone, sequence,
                                               maxN, recv, n);
    }

    void sum(const double* value, double* result, int rank, cudaStream_t stream)
    {
        const std::size_t slots = 2*std::size_t(maxN);
        peerSum<<<1, 1, 0, stream>>>(value, peerBuffers + slots, peerFlag, buffers + slots, flag, sequence, rank,
                                     result);
    }
};

//- Whether recv holds what the peer sent (send's values are 1 + rank + j/1000), on both ranks
bool received(const double* recv, int n, int peer)
{
    std::vector<double> got(n);
    check(cudaMemcpy(got.data(), recv, n*sizeof(double), cudaMemcpyDeviceToHost), "check");
    int bad = 0;
    for (int j = 0; j < n; ++j)
    {
        if (got[j] != 1.0 + peer + j/1000.0) ++bad;
    }
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return bad == 0;
}

//- As medianMicroseconds, of k exchanges recorded once as a CUDA graph (record: enqueue them on
//  the stream) and replayed: what a V-cycle's recorded leg pays an exchange
template<class F>
double graphMicroseconds(int k, cudaStream_t stream, const F& record)
{
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    check(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    record();
    check(cudaStreamEndCapture(stream, &graph), "cudaStreamEndCapture");
    check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
    const double t = medianMicroseconds(k, [&]()
    {
        check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
        check(cudaStreamSynchronize(stream), "graph");
    });
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    return t;
}

//- What the two ranks exchange with: their buffers (device send/recv, page-locked host copies),
//  stream and transports (NCCL's communicator, the peer area: null where not available)
struct Transports
{
    int k;
    int rank;
    int peer;
    cudaStream_t stream;
    double* send;
    double* recv;
    double* hostSend;
    double* hostRecv;
    const gpuLdu::NcclLibrary& nccl;
    ncclComm_t comm;
    PeerArea* area;

    //- One line of the table: a timing and whether both ranks received what the other sent
    void row(const char* transport, int n, double us, bool ok) const
    {
        if (rank == 0) std::printf("%-10s %10d %12.1f %9s\n", transport, n, us, ok ? "yes" : "NO");
    }

    //- A stream-ordered transport's k exchanges (enqueue: one, and the kernel after it), timed on
    //  the stream and then recorded once as a graph and replayed, each checked by verify()
    template<class Enqueue, class Verify>
    void onStreamAndGraph(const char* transport, const char* inGraph, int n, const Enqueue& enqueue,
                          const Verify& verify) const
    {
        auto exchanges = [&]() { for (int i = 0; i < k; ++i) enqueue(); };
        const double onStream = medianMicroseconds(k, [&]()
        {
            exchanges();
            check(cudaStreamSynchronize(stream), transport);
        });
        row(transport, n, onStream, verify());
        const double replayed = graphMicroseconds(k, stream, exchanges);
        row(inGraph, n, replayed, verify());
    }
};

//- The exchanges of n doubles each way, n from 1 to 65536, by every transport available
void exchangeRows(const Transports& t)
{
    for (const int n : {1, 64, 1024, 8192, 65536})
    {
        const std::size_t bytes = n*sizeof(double);
        auto exchanged = [&]() { return received(t.recv, n, t.peer); };
        const double host = medianMicroseconds(t.k, [&]()
        {
            for (int i = 0; i < t.k; ++i)
            {
                check(cudaMemcpy(t.hostSend, t.send, bytes, cudaMemcpyDeviceToHost), "download");
                MPI_Sendrecv(t.hostSend, n, MPI_DOUBLE, t.peer, 7, t.hostRecv, n, MPI_DOUBLE, t.peer, 7,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                check(cudaMemcpy(t.recv, t.hostRecv, bytes, cudaMemcpyHostToDevice), "upload");
            }
        });
        t.row("host", n, host, exchanged());
        if (t.comm)
        {
            t.onStreamAndGraph("nccl", "ncclGraph", n, [&]()
            {
                t.nccl.groupStart();
                t.nccl.send(t.send, n, ncclDouble, t.peer, t.comm, t.stream);
                t.nccl.recv(t.recv, n, ncclDouble, t.peer, t.comm, t.stream);
                t.nccl.groupEnd();
                touch<<<(n + 255)/256, 256, 0, t.stream>>>(t.recv, n);
            }, exchanged);
        }
        if (t.area)
        {
            t.onStreamAndGraph("peer", "peerGraph", n, [&]()
            {
                t.area->exchange(t.send, t.recv, n, t.stream);
                touch<<<(n + 255)/256, 256, 0, t.stream>>>(t.recv, n);
            }, exchanged);
        }
    }
}

//- A one-double sum of the two ranks' values by every transport available
void sumRows(const Transports& t)
{
    //- Whether both ranks hold the sum of the two ranks' first values (1 and 2)
    auto summed = [&]()
    {
        double got = 0;
        check(cudaMemcpy(&got, t.recv, sizeof(double), cudaMemcpyDeviceToHost), "check");
        int bad = got != 1.0 + 2.0;
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        return bad == 0;
    };
    const double hostSum = medianMicroseconds(t.k, [&]()
    {
        for (int i = 0; i < t.k; ++i)
        {
            check(cudaMemcpy(t.hostSend, t.send, sizeof(double), cudaMemcpyDeviceToHost), "download");
            MPI_Allreduce(t.hostSend, t.hostRecv, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            check(cudaMemcpy(t.recv, t.hostRecv, sizeof(double), cudaMemcpyHostToDevice), "upload");
        }
    });
    t.row("hostSum", 1, hostSum, summed());
    if (t.comm)
    {
        t.onStreamAndGraph("ncclSum", "ncclSumGr", 1, [&]()
        {
            t.nccl.allReduce(t.send, t.recv, 1, ncclDouble, ncclSum, t.comm, t.stream);
            touch<<<1, 32, 0, t.stream>>>(t.recv, 1);
        }, summed);
    }
    if (t.area)
    {
        t.onStreamAndGraph("peerSum", "peerSumGr", 1, [&]()
        {
            t.area->sum(t.send, t.recv, t.rank, t.stream);
            touch<<<1, 32, 0, t.stream>>>(t.recv, 1);
        }, summed);
    }
}

} // namespace


int main(int argc, char** argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2)
    {
        if (rank == 0) std::fprintf(stderr, "gpuLduExchangeBench: run on 2 MPI ranks\n");
        MPI_Finalize();
        return 2;
    }
    const int k = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
    int nDevices = 0;
    check(cudaGetDeviceCount(&nDevices), "cudaGetDeviceCount");
    const int device = rank % nDevices;
    check(cudaSetDevice(device), "cudaSetDevice");
    const int peer = 1 - rank;
    const int maxN = 65536;
    double *send = nullptr, *recv = nullptr, *hostSend = nullptr, *hostRecv = nullptr;
    check(cudaMalloc(&send, maxN*sizeof(double)), "cudaMalloc");
    check(cudaMalloc(&recv, maxN*sizeof(double)), "cudaMalloc");
    {
        std::vector<double> values(maxN);
        for (int j = 0; j < maxN; ++j) values[j] = 1.0 + rank + j/1000.0;
        check(cudaMemcpy(send, values.data(), maxN*sizeof(double), cudaMemcpyHostToDevice), "cudaMemcpy");
    }
    check(cudaMallocHost(&hostSend, maxN*sizeof(double)), "cudaMallocHost");
    check(cudaMallocHost(&hostRecv, maxN*sizeof(double)), "cudaMallocHost");
    cudaStream_t stream;
    check(cudaStreamCreate(&stream), "cudaStreamCreate");

    const gpuLdu::NcclLibrary& nccl = gpuLdu::ncclLibrary();
    const bool haveNccl = !nccl.from.empty();
    ncclComm_t comm = nullptr;
    if (haveNccl)
    {
        ncclUniqueId id;
        if (rank == 0) nccl.getUniqueId(&id);
        MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
        if (nccl.commInitRank(&comm, 2, id, rank) != ncclSuccess) comm = nullptr;
    }
    int peerAccess = 0;
    if (nDevices > 1) check(cudaDeviceCanAccessPeer(&peerAccess, device, 1 - device), "cudaDeviceCanAccessPeer");
    if (rank == 0)
    {
        cudaDeviceProp prop;
        check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
        std::printf("gpuLduExchangeBench: 2 ranks on %d device(s) (%s), peer access %s; NCCL %s; "
            "%d exchanges a timing, median of 5, us per exchange\n",
            std::min(nDevices, 2), prop.name, peerAccess ? "yes" : "no",
            comm ? nccl.from.c_str() : "not available", k);
        std::printf("%-10s %10s %12s %9s\n", "transport", "doubles", "us each", "received");
    }
    PeerArea* area = peerAccess ? new PeerArea(maxN, peer) : nullptr;

    const Transports t{k, rank, peer, stream, send, recv, hostSend, hostRecv, nccl, comm, area};
    exchangeRows(t);
    sumRows(t);

    if (comm)
    {
        nccl.commDestroy(comm);
    }
    if (area)
    {
        cudaIpcCloseMemHandle(area->peerBuffers);
        delete area;
    }
    cudaFreeHost(hostSend);
    cudaFreeHost(hostRecv);
    cudaFree(send);
    cudaFree(recv);
    MPI_Finalize();
    return 0;
}
