// SPDX-License-Identifier: GPL-3.0-or-later
// The sparse LDL^T solver of complex symmetric matrices
// compiled for the host (g++, Thrust's sequential CPP system): executor cpu.

#include "backend/cpu/CpuBackend.hpp"
#include "direct/LdltImpl.hpp"
#include "instantiate/OnExecutor.hpp"

namespace gpuLdu
{

template class LdltSolverImpl<CpuBackend, Complex>;

template<>
std::unique_ptr<ComplexLdltSolver> ldltSolverOn<Executor::cpu, std::complex<double>>(
    const SymmetricPattern& lower,
    LdltOrdering ordering
)
{
    return std::make_unique<LdltSolverImpl<CpuBackend, Complex>>(lower, ordering);
}

} // namespace gpuLdu
