// SPDX-License-Identifier: GPL-3.0-or-later
// The Krylov solvers' system
// compiled for the host (g++, Thrust's sequential CPP system): executor cpu.

#include "backend/cpu/CpuBackend.hpp"
#include "instantiate/OnExecutor.hpp"
#include "krylov/LduSystemImpl.hpp"

namespace gpuLdu
{

// Every member here, once: GAMG's levels (gamgHierarchy.cpp) use this instantiation
template class LduSystemImpl<CpuBackend>;

template<>
std::unique_ptr<LduSystem> lduSystemOn<Executor::cpu>(const LduAddressingView& addr)
{
    auto system = std::make_unique<LduSystemImpl<CpuBackend>>(addr);
    CpuBackend::synchronize();
    return system;
}

} // namespace gpuLdu
