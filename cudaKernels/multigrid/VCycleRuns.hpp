// SPDX-License-Identifier: GPL-3.0-or-later
// How the parts of a GAMG solve's V-cycles run (GamgHierarchyImpl.hpp): launched one by one, each
// timed where the solve is timed (the device waited for after each: gpuLduSolver 2), or, where a
// solve's V-cycles may be recorded and it is not timed, its two legs (down to the coarsest level,
// back up) recorded at the first V-cycle and replayed at the others (B::WorkGraph).

#ifndef GPULDU_VCYCLERUNS_HPP
#define GPULDU_VCYCLERUNS_HPP

#include "krylov/LduSystemImpl.hpp"


namespace gpuLdu
{

template<class B>
class VCycleRuns
{
    typename B::WorkGraph legs_[2];
    bool timed_ = false;
    //- Whether this solve's V-cycles are recorded, and whether a recording may update the last
    //  in place (not where the legs hold exchanges between groups: NCCL's nodes)
    bool recording_ = false;
    bool updatable_ = true;

public:
    void setTimed(bool timed)
    {
        timed_ = timed;
    }

    //- At a solve's start: whether its V-cycles are recorded: where the solve allows it and is
    //  not timed (a timing waits for the device, which a recording may not); exchanges: whether
    //  the legs exchange halos between groups
    void startSolve(bool recordable, bool exchanges)
    {
        recording_ = recordable && !timed_;
        updatable_ = !exchanges;
    }

    //- f(), its seconds added to `into` where the solve is timed
    template<class F>
    void timed(double& into, const F& f) const
    {
        if (!timed_)
        {
            f();
            return;
        }
        const Stopwatch watch;
        f();
        into += queueSeconds<B>(watch);
    }

    //- Leg `leg` (0 down, 1 up) of a V-cycle: f, launched part by part, or its recording (made
    //  afresh where record: the solve's first V-cycle) replayed
    template<class F>
    void leg(int leg, bool record, const F& f)
    {
        if (recording_)
        {
            legs_[leg].run(record, f, updatable_);
        }
        else
        {
            f();
        }
    }
};

} // namespace gpuLdu

#endif
