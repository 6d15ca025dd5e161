// SPDX-License-Identifier: GPL-3.0-or-later
// The public factories of the core's solvers (gpuLdu.hpp): each one the object of its concept on
// the executor asked for (OnExecutor.hpp).

#include "instantiate/OnExecutor.hpp"

namespace gpuLdu
{

std::unique_ptr<LduSystem> makeLduSystem(Executor executor, const LduAddressingView& addr)
{
    return onExecutor(executor, [&](auto e) { return lduSystemOn<decltype(e)::value>(addr); });
}

std::unique_ptr<GamgHierarchy> makeGamgHierarchy(
    Executor executor,
    const LduAddressingView& fine,
    const std::vector<GamgLevelView>& levels
)
{
    return onExecutor(executor, [&](auto e) { return gamgHierarchyOn<decltype(e)::value>(fine, levels); });
}

std::unique_ptr<LdltSolver> makeLdltSolver(Executor executor, const SymmetricPattern& lower, LdltOrdering ordering)
{
    return onExecutor(executor, [&](auto e) { return ldltSolverOn<decltype(e)::value, double>(lower, ordering); });
}

std::unique_ptr<ComplexLdltSolver> makeComplexLdltSolver(
    Executor executor,
    const SymmetricPattern& lower,
    LdltOrdering ordering
)
{
    return onExecutor(executor, [&](auto e)
    {
        return ldltSolverOn<decltype(e)::value, std::complex<double>>(lower, ordering);
    });
}

} // namespace gpuLdu
