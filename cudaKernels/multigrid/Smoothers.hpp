// SPDX-License-Identifier: GPL-3.0-or-later
// The smoothers of one GAMG level (multigrid/SmootherList.hpp), each built on first use and set
// up per solve; this class forwards to the one chosen (a host-side dispatch generated from the
// list, once per set-up and per smoothing).

#ifndef GPULDU_SMOOTHERS_HPP
#define GPULDU_SMOOTHERS_HPP

#include "multigrid/SmootherList.hpp"

#include <memory>
#include <tuple>

namespace gpuLdu
{

template<class B>
class Smoothers
{
    template<class List>
    struct Instances;

    template<class... Entries>
    struct Instances<TypeList<Entries...>>
    {
        using type = std::tuple<std::unique_ptr<typename Entries::template Type<B>>...>;
    };

    typename Instances<SmootherList>::type instances_;

    template<class Entry>
    typename Entry::template Type<B>& instance()
    {
        auto& s = std::get<SmootherRegistry::indexOf<Entry>()>(instances_);
        if (!s)
        {
            s = std::make_unique<typename Entry::template Type<B>>();
        }
        return *s;
    }

public:
    //- Whether the V-cycle divides by a level's diagonal where this smoother smooths it
    static bool dividesByDiagonal(GamgSmoother smoother)
    {
        bool divides = true;
        SmootherRegistry::visit(smoother.id(), [&](auto entry) { divides = decltype(entry)::dividesByDiagonal; });
        return divides;
    }

    //- The smoother's numeric set-up on the level (a zero or non-finite pivot: ValueError)
    void setup(GamgSmoother smoother, const SmootherLevel<B>& level)
    {
        SmootherRegistry::visit(smoother.id(), [&](auto entry) { instance<decltype(entry)>().setup(level); });
    }

    //- nSweeps of the smoother (after its setup) of psi towards A psi = b
    void smooth(GamgSmoother smoother, const SmootherLevel<B>& level, double* psi, const double* b, int nSweeps)
    {
        SmootherRegistry::visit(smoother.id(), [&](auto entry)
        {
            instance<decltype(entry)>().smooth(level, psi, b, nSweeps);
        });
    }
};

} // namespace gpuLdu

#endif
