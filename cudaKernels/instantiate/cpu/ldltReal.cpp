// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver of real symmetric matrices
// compiled for the host (g++, Thrust's sequential CPP system): executor cpu.

#include "backend/cpu/CpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "instantiate/OnExecutor.hpp"

namespace gpuLdu
{

// Every member here, once: GAMG's coarsest level (gamgHierarchy.cpp) uses this instantiation
template class LdltSolverImpl<CpuBackend, double>;

template<>
std::unique_ptr<LdltSolver> ldltSolverOn<Executor::cpu, double>(const SymmetricPattern& lower, LdltOrdering ordering)
{
    return std::make_unique<LdltSolverImpl<CpuBackend, double>>(lower, ordering);
}

} // namespace gpuLdu
