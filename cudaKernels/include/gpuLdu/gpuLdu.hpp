// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolvers core: the plain C++ interface between the OpenFOAM layer (src/) and the
// algorithms (cudaKernels/). No Thrust, CUDA or OpenFOAM types cross this boundary. One header
// per concept; this one includes them all.

#ifndef GPULDU_GPULDU_HPP
#define GPULDU_GPULDU_HPP

#include "gpuLdu/errors.hpp"
#include "gpuLdu/choices.hpp"
#include "gpuLdu/lduSystem.hpp"
#include "gpuLdu/gamg.hpp"
#include "gpuLdu/ldlt.hpp"
#include "gpuLdu/devices.hpp"

#endif
