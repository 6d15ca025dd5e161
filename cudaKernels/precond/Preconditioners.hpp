// SPDX-License-Identifier: GPL-3.0-or-later
// The preconditioners of one system, built for the pattern once (the level schedules the
// triangular ones share, their packed patterns: on first use, so that a system that never
// takes them, e.g. a GAMG level under a Jacobi-like smoother, never pays for them) and set up
// per solve from the matrix values:
// none and diagonal (Diagonal.hpp), DIC/DILU (DicDilu.hpp), ILU0 (Ilu0.hpp). Each has setup,
// apply (OpenFOAM's precondition) and applyT (preconditionT); this class forwards to the one
// chosen at setup.

#ifndef GPULDU_PRECONDITIONERS_HPP
#define GPULDU_PRECONDITIONERS_HPP

#include "precond/DicDilu.hpp"
#include "precond/Diagonal.hpp"
#include "precond/Ilu0.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gpuLdu
{

template<class B>
class Preconditioners
{
    //- What the triangular preconditioners (and GAMG's Gauss-Seidel smoothers) share: the level
    //  schedules, and the preconditioners that hold them (so it never moves: built in place)
    struct Triangular
    {
        LevelSchedule<B> lower;
        LevelSchedule<B> upper;
        DicDiluPreconditioner<B> dicDilu;
        Ilu0Preconditioner<B> ilu0;

        Triangular(const CsrMatrix<B>& A, const LduAddressingView& addr)
        :
            lower(lowerLevelSchedule(addr)),
            upper(upperLevelSchedule(addr)),
            dicDilu(A, lower, upper),
            ilu0(A, lower, upper)
        {}
    };

    const CsrMatrix<B>& A_;
    //- The addressing's faces, kept for the build on first use (the caller's arrays need not
    //  outlive the system)
    int nCells_;
    std::vector<int> lowerAddr_;
    std::vector<int> upperAddr_;
    mutable std::unique_ptr<Triangular> triangular_;
    int oneLaunchBlocks_ = -1;

    NoPreconditioner<B> none_;
    DiagonalPreconditioner<B> diagonal_;
    Preconditioner type_ = Preconditioner::none;

    Triangular& triangular() const
    {
        if (!triangular_)
        {
            const LduAddressingView addr{nCells_, int(lowerAddr_.size()), lowerAddr_.data(), upperAddr_.data()};
            triangular_ = std::make_unique<Triangular>(A_, addr);
            triangular_->lower.setOneLaunchBlocks(oneLaunchBlocks_);
            triangular_->upper.setOneLaunchBlocks(oneLaunchBlocks_);
        }
        return *triangular_;
    }

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
                f(self.triangular().dicDilu);
                break;
            case Preconditioner::ILU0:
                f(self.triangular().ilu0);
                break;
        }
    }

public:
    Preconditioners(const CsrMatrix<B>& A, const LduAddressingView& addr)
    :
        A_(A),
        nCells_(addr.nCells),
        lowerAddr_(addr.lower, addr.lower + addr.nFaces),
        upperAddr_(addr.upper, addr.upper + addr.nFaces),
        none_(A.nRows),
        diagonal_(A)
    {}

    //- The cells of face f: its lower and upper cell (the addressing kept for the build)
    std::pair<int, int> faceCells(int f) const
    {
        return {lowerAddr_[f], upperAddr_[f]};
    }

    //- The level schedules of the lower (forward sweep, factors) and upper (backward sweep)
    //  triangles
    const LevelSchedule<B>& lowerSchedule() const
    {
        return triangular().lower;
    }

    const LevelSchedule<B>& upperSchedule() const
    {
        return triangular().upper;
    }

    //- How the GPU sweeps (LevelSchedule::setOneLaunchBlocks), for both schedules
    void setOneLaunchBlocks(int blocks)
    {
        oneLaunchBlocks_ = blocks;
        if (triangular_)
        {
            triangular_->lower.setOneLaunchBlocks(blocks);
            triangular_->upper.setOneLaunchBlocks(blocks);
        }
    }

    DicDiluPreconditioner<B>& dicDilu()
    {
        return triangular().dicDilu;
    }

    const DicDiluPreconditioner<B>& dicDilu() const
    {
        return triangular().dicDilu;
    }

    //- rD of diagonal, DIC or DILU (valid after setup)
    const typename B::template Vector<double>& rD() const
    {
        return type_ == Preconditioner::diagonal ? diagonal_.rD() : triangular().dicDilu.rD();
    }

    //- The ILU0 factors (valid after setup with ILU0)
    const typename B::template Vector<double>& lu() const
    {
        return triangular().ilu0.lu();
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
