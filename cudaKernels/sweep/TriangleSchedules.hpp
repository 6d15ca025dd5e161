// SPDX-License-Identifier: GPL-3.0-or-later
// A system's two level schedules (LevelSchedule.hpp): of its lower triangle (forward sweeps, the
// factors) and of its upper one (backward sweeps), built from its CSR pattern on first use and
// kept with the system (LduSystemImpl): whatever sweeps its rows level by level takes them from
// here, the triangular preconditioners (Preconditioners.hpp) and GAMG's Gauss-Seidel smoothers
// alike. A system that never sweeps (a GAMG level under a Jacobi-like smoother) never builds them.

#ifndef GPULDU_TRIANGLESCHEDULES_HPP
#define GPULDU_TRIANGLESCHEDULES_HPP

#include "sweep/LevelSchedule.hpp"

#include <memory>

namespace gpuLdu
{

template<class B>
class TriangleSchedules
{
    struct Both
    {
        LevelSchedule<B> lower;
        LevelSchedule<B> upper;

        explicit Both(const CsrMatrix<B>& A)
        :
            lower(A, false),
            upper(A, true)
        {}
    };

    const CsrMatrix<B>& A_;
    //- Built in place on first use: the sweeps' users hold references
    mutable std::unique_ptr<Both> both_;
    int oneLaunchBlocks_ = -1;

    const Both& both() const
    {
        if (!both_)
        {
            both_ = std::make_unique<Both>(A_);
            both_->lower.setOneLaunchBlocks(oneLaunchBlocks_);
            both_->upper.setOneLaunchBlocks(oneLaunchBlocks_);
        }
        return *both_;
    }

public:
    explicit TriangleSchedules(const CsrMatrix<B>& A)
    :
        A_(A)
    {}

    const LevelSchedule<B>& lower() const
    {
        return both().lower;
    }

    const LevelSchedule<B>& upper() const
    {
        return both().upper;
    }

    //- How the GPU sweeps (LevelSchedule::setOneLaunchBlocks), for both schedules
    void setOneLaunchBlocks(int blocks)
    {
        oneLaunchBlocks_ = blocks;
        if (both_)
        {
            both_->lower.setOneLaunchBlocks(blocks);
            both_->upper.setOneLaunchBlocks(blocks);
        }
    }
};

} // namespace gpuLdu

#endif
