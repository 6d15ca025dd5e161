// SPDX-License-Identifier: GPL-3.0-or-later
// The preconditioners of one system, built for the pattern once (the level schedules the
// triangular ones share, their packed patterns) and set up per solve from the matrix values:
// none and diagonal (Diagonal.hpp), DIC/DILU (DicDilu.hpp), ILU0 (Ilu0.hpp). Each has setup,
// apply (OpenFOAM's precondition) and applyT (preconditionT); this class forwards to the one
// chosen at setup.

#ifndef GPULDU_PRECONDITIONERS_HPP
#define GPULDU_PRECONDITIONERS_HPP

#include "precond/DicDilu.hpp"
#include "precond/Diagonal.hpp"
#include "precond/Ilu0.hpp"

namespace gpuLdu
{

template<class B>
class Preconditioners
{
    LevelSchedule<B> lower_;
    LevelSchedule<B> upper_;
    NoPreconditioner<B> none_;
    DiagonalPreconditioner<B> diagonal_;
    DicDiluPreconditioner<B> dicDilu_;
    Ilu0Preconditioner<B> ilu0_;
    Preconditioner type_ = Preconditioner::none;

    //- f(the preconditioner of self.type_), const where self is
    template<class Self, class F>
    static void withChosen(Self& self, const F& f)
    {
        switch (self.type_)
        {
            case Preconditioner::none:
                f(self.none_);
                break;
            case Preconditioner::diagonal:
                f(self.diagonal_);
                break;
            case Preconditioner::DIC:
            case Preconditioner::DILU:
                f(self.dicDilu_);
                break;
            case Preconditioner::ILU0:
                f(self.ilu0_);
                break;
        }
    }

public:
    Preconditioners(const CsrMatrix<B>& A, const LduAddressingView& addr)
    :
        lower_(lowerLevelSchedule(addr)),
        upper_(upperLevelSchedule(addr)),
        none_(A.nRows),
        diagonal_(A),
        dicDilu_(A, lower_, upper_),
        ilu0_(A, lower_, upper_)
    {}

    //- The level schedules of the lower (forward sweep, factors) and upper (backward sweep)
    //  triangles
    const LevelSchedule<B>& lowerSchedule() const
    {
        return lower_;
    }

    const LevelSchedule<B>& upperSchedule() const
    {
        return upper_;
    }

    //- How the GPU sweeps (LevelSchedule::setOneLaunchBlocks), for both schedules
    void setOneLaunchBlocks(int blocks)
    {
        lower_.setOneLaunchBlocks(blocks);
        upper_.setOneLaunchBlocks(blocks);
    }

    DicDiluPreconditioner<B>& dicDilu()
    {
        return dicDilu_;
    }

    const DicDiluPreconditioner<B>& dicDilu() const
    {
        return dicDilu_;
    }

    //- rD of diagonal, DIC or DILU (valid after setup)
    const typename B::template Vector<double>& rD() const
    {
        return type_ == Preconditioner::diagonal ? diagonal_.rD() : dicDilu_.rD();
    }

    //- The ILU0 factors (valid after setup with ILU0)
    const typename B::template Vector<double>& lu() const
    {
        return ilu0_.lu();
    }

    //- The numeric part of type, from the current matrix values
    void setup(Preconditioner type)
    {
        type_ = type;
        withChosen(*this, [](auto& M) { M.setup(); });
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
