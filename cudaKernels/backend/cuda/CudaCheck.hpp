// SPDX-License-Identifier: GPL-3.0-or-later
// The one check of every CUDA call: a failure becomes gpuLdu::Error with the call, file, line
// and CUDA's message (the OpenFOAM layer turns it into a FatalError).

#ifndef GPULDU_CUDACHECK_HPP
#define GPULDU_CUDACHECK_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <cuda_runtime.h>

#define GPULDU_CUDA_CHECK(call)                                                                    \
    ::gpuLdu::cudaCheck((call), #call, __FILE__, __LINE__)

namespace gpuLdu
{

void cudaCheck(cudaError_t status, const char* call, const char* file, int line);

} // namespace gpuLdu

#endif
