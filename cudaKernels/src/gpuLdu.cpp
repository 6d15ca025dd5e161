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

const std::pair<MatrixFormat, const char*> formatNames[] =
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
    for (const auto& [f, name] : formatNames)
    {
        if (f == format)
        {
            return name;
        }
    }
    return "unknown";
}

MatrixFormat formatFromName(const std::string& name)
{
    std::string valid;
    for (const auto& [f, word] : formatNames)
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
    // Provisional: near-constant rows (every OpenFOAM mesh) in slices of 32, the rest split
    if (s.maxLength <= 2*s.meanLength() + 1)
    {
        return MatrixFormat::blockedEll;
    }
    return MatrixFormat::hec;
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
