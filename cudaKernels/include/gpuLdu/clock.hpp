// SPDX-License-Identifier: GPL-3.0-or-later
// The one clock of every timing the plugin and its tools take: the steady clock, which the
// processes of a node share (a rank's message may carry a moment that its group's owner reads),
// and the one stopwatch that reads it for a phase of work. What a solve's phases took goes into
// one record, gpuLdu::SolveTimes (lduSystem.hpp), printed by the OpenFOAM layer in one place.

#ifndef GPULDU_CLOCK_HPP
#define GPULDU_CLOCK_HPP

#include <chrono>

namespace gpuLdu
{

using Clock = std::chrono::steady_clock;

//- Wall-clock seconds since t
inline double secondsSince(Clock::time_point t)
{
    return std::chrono::duration<double>(Clock::now() - t).count();
}

//- The moment t as seconds on the clock (since its epoch, which the processes of a host share)
inline double clockSeconds(Clock::time_point t)
{
    return std::chrono::duration<double>(t.time_since_epoch()).count();
}

//- Wall-clock seconds of a phase of work: started when made, read by seconds() (still running)
//  or lap() (started again). Where the work is queued on a backend, queueSeconds / queueLap
//  (backend/Backend.hpp) wait for the queue first.
class Stopwatch
{
    Clock::time_point start_ = Clock::now();

public:
    //- Seconds since the start
    double seconds() const
    {
        return secondsSince(start_);
    }

    //- Seconds since the start, the stopwatch started again
    double lap()
    {
        const Clock::time_point now = Clock::now();
        const double s = std::chrono::duration<double>(now - start_).count();
        start_ = now;
        return s;
    }

    //- When it started (a moment a message may carry: clockSeconds)
    Clock::time_point started() const
    {
        return start_;
    }
};

} // namespace gpuLdu

#endif
