// SPDX-License-Identifier: GPL-3.0-or-later
// The smoothers of one GAMG level (multigrid/SmootherList.hpp), each built on first use and set
// up per solve; this class forwards to the one chosen (a host-side dispatch generated from the
// list, once per set-up and per smoothing).

#ifndef GPULDU_SMOOTHERS_HPP
#define GPULDU_SMOOTHERS_HPP

#include "multigrid/SmootherList.hpp"

#include <memory>
#include <tuple>
#include <type_traits>

namespace gpuLdu
{

//- Entry::recordable where the entry says it, else false: whether the smoother's sweeps may be
//  recorded once and replayed (B::WorkGraph): only kernels on the stream, whose parameters stay
//  the same from one V-cycle of a solve to the next (not so for the level-scheduled sweeps,
//  whose launches count epochs on the host)
template<class Entry, class = void>
struct RecordableOf : std::false_type
{};

template<class Entry>
struct RecordableOf<Entry, std::void_t<decltype(Entry::recordable)>> : std::bool_constant<Entry::recordable>
{};

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

    //- Whether the smoother's sweeps may be recorded and replayed (RecordableOf)
    static bool recordable(GamgSmoother smoother)
    {
        bool recordable = false;
        SmootherRegistry::visit(smoother.id(), [&](auto entry) { recordable = RecordableOf<decltype(entry)>::value; });
        return recordable;
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
