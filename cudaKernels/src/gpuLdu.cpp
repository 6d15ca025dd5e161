// SPDX-License-Identifier: GPL-3.0-or-later
// Executor selection.

#include "gpuLdu/gpuLdu.hpp"

#include <utility>

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeCpuSystem(const LduAddressingView& addr);

#ifdef GPULDU_WITH_CUDA
std::unique_ptr<LduSystem> makeGpuSystem(const LduAddressingView& addr);
std::string cudaUnavailableReason();
#endif

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

namespace
{

const std::pair<MatrixFormat, const char*> formatTable[] =
{
    {MatrixFormat::csr, "csr"},
    {MatrixFormat::ell, "ell"},
    {MatrixFormat::blockedEll, "blockedEll"},
    {MatrixFormat::hyb, "hyb"},
    {MatrixFormat::hec, "hec"},
    {MatrixFormat::automatic, "auto"}
};

} // namespace

std::string formatName(MatrixFormat format)
{
    for (const auto& [f, name] : formatTable)
    {
        if (f == format)
        {
            return name;
        }
    }
    return "unknown";
}

std::vector<std::string> formatNames()
{
    std::vector<std::string> names;
    for (const auto& entry : formatTable)
    {
        names.push_back(entry.second);
    }
    return names;
}

MatrixFormat formatFromName(const std::string& name)
{
    std::string valid;
    for (const auto& [f, word] : formatTable)
    {
        if (name == word)
        {
            return f;
        }
        valid += std::string(valid.empty() ? "" : " ") + word;
    }
    throw Error("Unknown matrixFormat " + name + "; valid matrixFormats are : " + valid);
}

MatrixFormat chooseFormat(const RowLengthStats& s)
{
    // Measured (docs/performance.md, "Sparse formats"): every format sums a row in one thread,
    // in a fixed order, so the formats differ only in memory layout. ELLPACK's coalesced slots
    // pay off once the matrix is beyond L2 and its rows are even: OpenFOAM's 8M-cell pressure
    // matrix 1.6x faster than csr on the H100 (3% slower on the H200), 1M cells 2-4% faster,
    // 19- and 27-point stencils 2-3.3x. On uneven rows padding costs more than it saves, and in
    // L2 csr is as fast or faster.
    const bool evenRows = s.maxLength <= 1.5*s.meanLength();
    const bool beyondL2 = s.nnz >= 4000000;
    return evenRows && beyondL2 ? MatrixFormat::ell : MatrixFormat::csr;
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

} // namespace gpuLdu
