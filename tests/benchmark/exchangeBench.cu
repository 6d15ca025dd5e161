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
// NCCL is opened at run time (libnccl.so.2: the CUDA toolkit's, or LD_LIBRARY_PATH's); where
// it is not found its lines say so. Each figure is the median of 5 repetitions of K exchanges,
// in microseconds per exchange.
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
    check(cudaMemset(send, 0, maxN*sizeof(double)), "cudaMemset");
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
    if (rank == 0)
    {
        cudaDeviceProp prop;
        check(cudaGetDeviceProperties(&prop, device), "cudaGetDeviceProperties");
        int peerAccess = 0;
        if (nDevices > 1) cudaDeviceCanAccessPeer(&peerAccess, 0, 1);
        std::printf("gpuLduExchangeBench: 2 ranks on %d device(s) (%s), peer access %s; NCCL %s; "
            "%d exchanges a timing, median of 5, us per exchange\n",
            std::min(nDevices, 2), prop.name, peerAccess ? "yes" : "no",
            comm ? nccl.from.c_str() : "not available", k);
        std::printf("%-10s %10s %12s\n", "transport", "doubles", "us each");
    }

    for (const int n : {1, 64, 1024, 8192, 65536})
    {
        const std::size_t bytes = n*sizeof(double);
        const double host = medianMicroseconds(k, [&]()
        {
            for (int i = 0; i < k; ++i)
            {
                check(cudaMemcpy(hostSend, send, bytes, cudaMemcpyDeviceToHost), "download");
                MPI_Sendrecv(hostSend, n, MPI_DOUBLE, peer, 7, hostRecv, n, MPI_DOUBLE, peer, 7,
                    MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                check(cudaMemcpy(recv, hostRecv, bytes, cudaMemcpyHostToDevice), "upload");
            }
        });
        if (rank == 0) std::printf("%-10s %10d %12.1f\n", "host", n, host);
        if (comm)
        {
            const double viaNccl = medianMicroseconds(k, [&]()
            {
                for (int i = 0; i < k; ++i)
                {
                    nccl.groupStart();
                    nccl.send(send, n, ncclDouble, peer, comm, stream);
                    nccl.recv(recv, n, ncclDouble, peer, comm, stream);
                    nccl.groupEnd();
                    touch<<<(n + 255)/256, 256, 0, stream>>>(recv, n);
                }
                check(cudaStreamSynchronize(stream), "nccl exchanges");
            });
            if (rank == 0) std::printf("%-10s %10d %12.1f\n", "nccl", n, viaNccl);
        }
    }

    const double hostSum = medianMicroseconds(k, [&]()
    {
        for (int i = 0; i < k; ++i)
        {
            check(cudaMemcpy(hostSend, send, sizeof(double), cudaMemcpyDeviceToHost), "download");
            MPI_Allreduce(hostSend, hostRecv, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            check(cudaMemcpy(recv, hostRecv, sizeof(double), cudaMemcpyHostToDevice), "upload");
        }
    });
    if (rank == 0) std::printf("%-10s %10d %12.1f\n", "hostSum", 1, hostSum);
    if (comm)
    {
        const double sumViaNccl = medianMicroseconds(k, [&]()
        {
            for (int i = 0; i < k; ++i)
            {
                nccl.allReduce(send, recv, 1, ncclDouble, ncclSum, comm, stream);
                touch<<<1, 32, 0, stream>>>(recv, 1);
            }
            check(cudaStreamSynchronize(stream), "nccl sums");
        });
        if (rank == 0) std::printf("%-10s %10d %12.1f\n", "ncclSum", 1, sumViaNccl);
        nccl.commDestroy(comm);
    }

    cudaFreeHost(hostSend);
    cudaFreeHost(hostRecv);
    cudaFree(send);
    cudaFree(recv);
    MPI_Finalize();
    return 0;
}
