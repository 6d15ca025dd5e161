// SPDX-License-Identifier: GPL-3.0-or-later
// Executor and device selection: the system on the host or, where a CUDA device is usable, on
// the GPU; which of a node's devices a rank uses.

#include "gpuLdu/gpuLdu.hpp"

#include <algorithm>
#include <utility>

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeCpuSystem(const LduAddressingView& addr);
std::unique_ptr<GamgSystem> makeCpuGamgSystem(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels);
template<class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> makeCpuLdltSolver(const SymmetricPattern& lower, LdltOrdering ordering);

#ifdef GPULDU_WITH_CUDA
std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr);
std::unique_ptr<GamgSystem> makeGpuGamgSystem(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels);
template<class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> makeGpuLdltSolver(const SymmetricPattern& lower, LdltOrdering ordering);
std::string cudaUnavailableReason();
int cudaVisibleDevices();
std::string cudaUseDevice(int device);
double* cudaPinnedAllocate(std::size_t n);
void cudaPinnedFree(double* p);
#endif

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

bool builtWithCuda()
{
#ifdef GPULDU_WITH_CUDA
    return true;
#else
    return false;
#endif
}

std::string gpuUnavailableReason()
{
#ifdef GPULDU_WITH_CUDA
    return cudaUnavailableReason();
#else
    return "this build of gpuLduSolvers has no CUDA backend (it was built without nvcc or with GPULDU_CUDA=OFF)";
#endif
}

int visibleDevices()
{
#ifdef GPULDU_WITH_CUDA
    return gpuUnavailableReason().empty() ? cudaVisibleDevices() : 0;
#else
    return 0;
#endif
}

std::string useDevice(int device)
{
    const int n = visibleDevices();
    if (device < 0 || device >= n)
    {
        throw Error("gpuLdu: device " + std::to_string(device) + " asked for, but this process sees "
                    + std::to_string(n) + " CUDA device(s) (CUDA_VISIBLE_DEVICES respected)");
    }
#ifdef GPULDU_WITH_CUDA
    return cudaUseDevice(device);
#else
    return "";
#endif
}

std::vector<int> deviceOfLocalRanks(int nLocal, int nDevices)
{
    std::vector<int> device(std::max(nLocal, 0), 0);
    const int nGroups = std::max(1, std::min(nDevices, nLocal));
    // groups of `size` ranks, the first `larger` of them one rank more
    const int size = nLocal/nGroups;
    const int larger = nLocal % nGroups;
    int rank = 0;
    for (int g = 0; g < nGroups && rank < nLocal; ++g)
    {
        for (int k = 0; k < size + (g < larger ? 1 : 0); ++k)
        {
            device[rank++] = g;
        }
    }
    return device;
}

std::unique_ptr<LduSystem> makeLduSystem(Executor executor, const LduAddressingView& addr)
{
    if (executor == Executor::cpu)
    {
        return makeCpuSystem(addr);
    }
    const std::string reason = gpuUnavailableReason();
    if (!reason.empty())
    {
        throw Error("executor gpu is not usable: " + reason);
    }
#ifdef GPULDU_WITH_CUDA
    return makeGpuSystem(addr);
#else
    return nullptr;
#endif
}

std::unique_ptr<GamgSystem> makeGamgSystem(
    Executor executor,
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
)
{
    if (executor == Executor::cpu)
    {
        return makeCpuGamgSystem(fine, levels);
    }
    const std::string reason = gpuUnavailableReason();
    if (!reason.empty())
    {
        throw Error("executor gpu is not usable: " + reason);
    }
#ifdef GPULDU_WITH_CUDA
    return makeGpuGamgSystem(fine, levels);
#else
    return nullptr;
#endif
}

namespace
{

template<class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> makeLdlt(Executor executor, const SymmetricPattern& lower, LdltOrdering ordering)
{
    if (executor == Executor::cpu)
    {
        return makeCpuLdltSolver<Scalar>(lower, ordering);
    }
    const std::string reason = gpuUnavailableReason();
    if (!reason.empty())
    {
        throw Error("executor gpu is not usable: " + reason);
    }
#ifdef GPULDU_WITH_CUDA
    return makeGpuLdltSolver<Scalar>(lower, ordering);
#else
    return nullptr;
#endif
}

} // namespace

std::unique_ptr<LdltSolver> makeLdltSolver(Executor executor, const SymmetricPattern& lower, LdltOrdering ordering)
{
    return makeLdlt<double>(executor, lower, ordering);
}

std::unique_ptr<ComplexLdltSolver> makeComplexLdltSolver(
    Executor executor,
    const SymmetricPattern& lower,
    LdltOrdering ordering
)
{
    return makeLdlt<std::complex<double>>(executor, lower, ordering);
}

} // namespace gpuLdu
