// SPDX-License-Identifier: GPL-3.0-or-later
// The algorithms compiled for the host (Thrust's sequential CPP system): executor cpu.

#include "backend/cpu/CpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "multigrid/GamgSystemImpl.hpp"
#include "system/LduSystemImpl.hpp"

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeCpuSystem(const LduAddressingView& addr)
{
    return std::make_unique<LduSystemImpl<CpuBackend>>(addr);
}

std::unique_ptr<GamgSystem> makeCpuGamgSystem(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels)
{
    auto system = std::make_unique<GamgSystemImpl<CpuBackend>>(fine, levels);
    CpuBackend::synchronize();
    return system;
}

template<class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> makeCpuLdltSolver(const SymmetricPattern& lower, LdltOrdering ordering)
{
    return std::make_unique<LdltSolverImpl<CpuBackend, detail::KernelScalar<Scalar>>>(lower, ordering);
}

template std::unique_ptr<LdltSolver> makeCpuLdltSolver<double>(const SymmetricPattern&, LdltOrdering);
template std::unique_ptr<ComplexLdltSolver> makeCpuLdltSolver<std::complex<double>>(
    const SymmetricPattern&,
    LdltOrdering
);

} // namespace gpuLdu
