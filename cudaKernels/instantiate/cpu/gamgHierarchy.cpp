// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's hierarchy
// compiled for the host (g++, Thrust's sequential CPP system): executor cpu.

#include "backend/cpu/CpuBackend.hpp"
#include "instantiate/OnExecutor.hpp"
#include "multigrid/GamgHierarchyImpl.hpp"

namespace gpuLdu
{

// Its levels' system and its coarsest level's LDL^T are instantiated in their own translation
// units (krylovSystem.cpp, ldltReal.cpp): what this one does not inline of them (their
// vtables and the members reached through them) is taken from there, not compiled again
extern template class LduSystemImpl<CpuBackend>;
extern template class LdltSolverImpl<CpuBackend, double>;

template<>
std::unique_ptr<GamgHierarchy> gamgHierarchyOn<Executor::cpu>(
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
)
{
    auto hierarchy = std::make_unique<GamgHierarchyImpl<CpuBackend>>(fine, levels);
    CpuBackend::synchronize();
    return hierarchy;
}

} // namespace gpuLdu
