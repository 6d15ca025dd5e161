// SPDX-License-Identifier: GPL-3.0-or-later
// A double and its 64 bits, either way, without a floating-point operation (the value checks of
// matrix/ValueCheck.hpp, the quiet NaN of a bad pivot, the sweeps' notReady marker): the
// device's reinterpreting intrinsics on the GPU, a memcpy on the host.

#ifndef GPULDU_BITS_HPP
#define GPULDU_BITS_HPP

#include "backend/Backend.hpp"

#include <cstdint>
#include <cstring>

namespace gpuLdu
{

//- The bits of a double
GPULDU_HD inline std::uint64_t bitsOf(double v)
{
#ifdef GPULDU_DEVICE_PASS
    return static_cast<std::uint64_t>(__double_as_longlong(v));
#else
    std::uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return bits;
#endif
}

//- The double of these bits
GPULDU_HD inline double doubleOfBits(std::uint64_t bits)
{
#ifdef GPULDU_DEVICE_PASS
    return __longlong_as_double(static_cast<long long>(bits));
#else
    double v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
#endif
}

} // namespace gpuLdu

#endif
