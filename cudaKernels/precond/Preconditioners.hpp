// SPDX-License-Identifier: GPL-3.0-or-later
// The preconditioners of one system (precond/PreconditionerList.hpp), each built on first use:
// the level schedules the triangular ones (and GAMG's Gauss-Seidel smoothers) share, and each
// preconditioner's own state, so that a system that never takes one (e.g. a GAMG level under a
// Jacobi-like smoother) never pays for it. Set up per solve from the matrix values; each has
// setup, apply (OpenFOAM's precondition) and applyT (preconditionT); this class forwards to the
// one chosen at setup (a host-side dispatch generated from the list).

#ifndef GPULDU_PRECONDITIONERS_HPP
#define GPULDU_PRECONDITIONERS_HPP

#include "precond/PreconditionerList.hpp"

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

    //- The lower and upper triangles' level schedules, from the CSR pattern on the backend
    //  (built in place: the preconditioners that use them hold references)
    struct Schedules
    {
        LevelSchedule<B> lower;
        LevelSchedule<B> upper;

        explicit Schedules(const CsrMatrix<B>& A)
        :
            lower(A, false),
            upper(A, true)
        {}
    };

    const CsrMatrix<B>& A_;
    mutable std::unique_ptr<Schedules> schedules_;
    int oneLaunchBlocks_ = -1;

    mutable typename Instances<PreconditionerList>::type instances_;
    Preconditioner type_;

    const Schedules& schedules() const
    {
        if (!schedules_)
        {
            schedules_ = std::make_unique<Schedules>(A_);
            schedules_->lower.setOneLaunchBlocks(oneLaunchBlocks_);
            schedules_->upper.setOneLaunchBlocks(oneLaunchBlocks_);
        }
        return *schedules_;
    }

    //- f(the preconditioner of self.type_), const where self is
    template<class Self, class F>
    static void withChosen(Self& self, const F& f)
    {
        PreconditionerRegistry::visit(self.type_.id(), [&](auto entry) { f(self.template instance<decltype(entry)>()); });
    }

public:
    explicit Preconditioners(const CsrMatrix<B>& A)
    :
        A_(A)
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
                p = std::make_unique<Type>(A_, schedules().lower, schedules().upper);
            }
            else
            {
                p = std::make_unique<Type>(A_);
            }
        }
        return *p;
    }

    //- The level schedules of the lower (forward sweep, factors) and upper (backward sweep)
    //  triangles
    const LevelSchedule<B>& lowerSchedule() const
    {
        return schedules().lower;
    }

    const LevelSchedule<B>& upperSchedule() const
    {
        return schedules().upper;
    }

    //- How the GPU sweeps (LevelSchedule::setOneLaunchBlocks), for both schedules
    void setOneLaunchBlocks(int blocks)
    {
        oneLaunchBlocks_ = blocks;
        if (schedules_)
        {
            schedules_->lower.setOneLaunchBlocks(blocks);
            schedules_->upper.setOneLaunchBlocks(blocks);
        }
    }

    DicDiluPreconditioner<B>& dicDilu() const
    {
        return instance<preconditioners::DicDilu>();
    }

    //- rD of diagonal, DIC or DILU (valid after setup)
    const typename B::template Vector<double>& rD() const
    {
        return PreconditionerRegistry::is<preconditioners::Diagonal>(type_.id()) ? instance<preconditioners::Diagonal>().rD()
                                                                              : dicDilu().rD();
    }

    //- The ILU0 factors (valid after setup with ILU0)
    const typename B::template Vector<double>& lu() const
    {
        return instance<preconditioners::Ilu0>().lu();
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
