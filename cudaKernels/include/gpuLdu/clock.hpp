// SPDX-License-Identifier: GPL-3.0-or-later
// The one clock of every timing the plugin and its tools take: the steady clock, which the
// processes of a node share (a rank's message may carry a moment that its group's owner reads).

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

} // namespace gpuLdu

#endif
