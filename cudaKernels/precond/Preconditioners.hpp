// SPDX-License-Identifier: GPL-3.0-or-later
// The preconditioners of one system (precond/PreconditionerList.hpp), each built on first use
// (the triangular ones on the system's level schedules, sweep/TriangleSchedules.hpp), so that a
// system that never takes one (e.g. a GAMG level under a Jacobi-like smoother) never pays for
// it. Set up per solve from the matrix values; each has setup, apply (OpenFOAM's precondition)
// and applyT (preconditionT); this class forwards to the one chosen at setup (a host-side
// dispatch generated from the list).

#ifndef GPULDU_PRECONDITIONERS_HPP
#define GPULDU_PRECONDITIONERS_HPP

#include "precond/PreconditionerList.hpp"
#include "sweep/TriangleSchedules.hpp"

#include <memory>
#include <string>
#include <tuple>

namespace gpuLdu
{

template<class B>
class Preconditioners
{
    template<class List>
    struct Instances;

    //- One lazily built instance per entry of the list
    template<class... Entries>
    struct Instances<TypeList<Entries...>>
    {
        using type = std::tuple<std::unique_ptr<typename Entries::template Type<B>>...>;
    };

    const CsrMatrix<B>& A_;
    const TriangleSchedules<B>& schedules_;

    mutable typename Instances<PreconditionerList>::type instances_;
    Preconditioner type_;

    //- f(the preconditioner of self.type_), const where self is
    template<class Self, class F>
    static void withChosen(Self& self, const F& f)
    {
        PreconditionerRegistry::visit(self.type_.id(), [&](auto entry) { f(self.template instance<decltype(entry)>()); });
    }

public:
    //- For a system's matrix and its level schedules
    Preconditioners(const CsrMatrix<B>& A, const TriangleSchedules<B>& schedules)
    :
        A_(A),
        schedules_(schedules)
    {}

    //- The preconditioner of an entry of the list, built on first use (on the level schedules
    //  where the entry needsSchedules)
    template<class Entry>
    typename Entry::template Type<B>& instance() const
    {
        auto& p = std::get<PreconditionerRegistry::indexOf<Entry>()>(instances_);
        if (!p)
        {
            using Type = typename Entry::template Type<B>;
            if constexpr (Entry::needsSchedules)
            {
                p = std::make_unique<Type>(A_, schedules_.lower(), schedules_.upper());
            }
            else
            {
                p = std::make_unique<Type>(A_);
            }
        }
        return *p;
    }

    //- The numeric part of type, from the current matrix values. Throws ValueError naming
    //  the preconditioner at its first zero or non-finite pivot (diagonal: the diagonal).
    void setup(Preconditioner type)
    {
        type_ = type;
        const std::string name = preconditionerName(type);
        withChosen(*this, [&](auto& M) { M.setup(name.c_str()); });
    }

    //- w = M^-1 r  (OpenFOAM's precondition)
    void apply(double* w, const double* r) const
    {
        withChosen(*this, [&](const auto& M) { M.apply(w, r); });
    }

    //- w = M^-T r  (OpenFOAM's preconditionT)
    void applyT(double* w, const double* r) const
    {
        withChosen(*this, [&](const auto& M) { M.applyT(w, r); });
    }
};

} // namespace gpuLdu

#endif
