// SPDX-License-Identifier: GPL-3.0-or-later
// The objects each executor's backend makes, and the choice between them. Every algorithm of the
// core is a template on a backend (backend/Backend.hpp); it is compiled for a backend only in
// that backend's folder here, one translation unit per concept (so that they build in parallel):
//     instantiate/cpu/   g++, Thrust's sequential CPP system: executor cpu
//     instantiate/cuda/  nvcc, Thrust's CUDA system and backend/cuda/'s kernels: executor gpu
// each file holding the specialisation below of its concept for its executor. These are the only
// files that name a backend; the public factories (makeSystems.cpp) choose by executor.

#ifndef GPULDU_ONEXECUTOR_HPP
#define GPULDU_ONEXECUTOR_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <complex>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace gpuLdu
{

//- The Krylov solvers' system (krylov/LduSystemImpl.hpp) on executor E
template<Executor E>
std::unique_ptr<LduSystem> lduSystemOn(const LduAddressingView& addr);

//- GAMG's hierarchy (multigrid/GamgHierarchyImpl.hpp) on executor E
template<Executor E>
std::unique_ptr<GamgHierarchy> gamgHierarchyOn(const LduAddressingView& fine, const std::vector<GamgLevelView>& levels);

//- The sparse LDL^T solver (direct/LdltImpl.hpp) on executor E, for double or
//  std::complex<double> values
template<Executor E, class Scalar>
std::unique_ptr<BasicLdltSolver<Scalar>> ldltSolverOn(const SymmetricPattern& lower, LdltOrdering ordering);

// The specialisations: instantiate/cpu/ and (where the build has CUDA) instantiate/cuda/
template<>
std::unique_ptr<LduSystem> lduSystemOn<Executor::cpu>(const LduAddressingView&);
template<>
std::unique_ptr<GamgHierarchy> gamgHierarchyOn<Executor::cpu>(const LduAddressingView&, const std::vector<GamgLevelView>&);
template<>
std::unique_ptr<LdltSolver> ldltSolverOn<Executor::cpu, double>(const SymmetricPattern&, LdltOrdering);
template<>
std::unique_ptr<ComplexLdltSolver> ldltSolverOn<Executor::cpu, std::complex<double>>(
    const SymmetricPattern&,
    LdltOrdering
);

template<>
std::unique_ptr<LduSystem> lduSystemOn<Executor::gpu>(const LduAddressingView&);
template<>
std::unique_ptr<GamgHierarchy> gamgHierarchyOn<Executor::gpu>(const LduAddressingView&, const std::vector<GamgLevelView>&);
template<>
std::unique_ptr<LdltSolver> ldltSolverOn<Executor::gpu, double>(const SymmetricPattern&, LdltOrdering);
template<>
std::unique_ptr<ComplexLdltSolver> ldltSolverOn<Executor::gpu, std::complex<double>>(
    const SymmetricPattern&,
    LdltOrdering
);

//- make(ExecutorConstant<E>()) for the executor asked for: E = cpu, or E = gpu where a CUDA
//  device is usable (else an Error saying why not; a build without CUDA never makes one)
template<Executor E>
using ExecutorConstant = std::integral_constant<Executor, E>;

template<class Make>
auto onExecutor(Executor executor, const Make& make)
{
    if (executor == Executor::gpu)
    {
        const std::string reason = gpuUnavailableReason();
        if (!reason.empty())
        {
            throw Error("executor gpu is not usable: " + reason);
        }
#ifdef GPULDU_WITH_CUDA
        return make(ExecutorConstant<Executor::gpu>());
#endif
    }
    return make(ExecutorConstant<Executor::cpu>());
}

} // namespace gpuLdu

#endif
