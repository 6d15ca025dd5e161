// SPDX-License-Identifier: GPL-3.0-or-later
// What the CUDA backend tells and does about the devices and the host's page-locked memory
// (GpuBackend.cu), in plain C++ types: for the device selection (runtime/devices.cpp) and
// SharedHostBuffer (runtime/sharedHostBuffer.cpp), compiled by g++ in a build with CUDA.

#ifndef GPULDU_CUDADEVICES_HPP
#define GPULDU_CUDADEVICES_HPP

#include <cstddef>
#include <string>

namespace gpuLdu
{

//- An empty string if a CUDA device is usable, else the reason it is not: the driver's answer,
//  asked by gpuUnavailableReason (runtime/devices.cpp) once a process; nothing else calls it
std::string cudaUnavailableReason();

//- The CUDA devices this process sees
int cudaVisibleDevices();

//- The PCI bus id of the device (cudaDeviceGetPCIBusId: no context made)
std::string cudaDeviceBusId(int device);

//- cudaSetDevice(device); the device's name and PCI bus id
std::string cudaUseDevice(int device);

//- Page-locks n doubles of host memory allocated otherwise (cudaHostRegister), and undoes it
void cudaPinnedRegister(double* p, std::size_t n);
void cudaPinnedUnregister(double* p);

//- cudaPinnedRegister where CUDA can (else false, the error cleared: pages another
//  registration holds, too little page-lockable memory)
bool cudaTryPinnedRegister(double* p, std::size_t n);

} // namespace gpuLdu

#endif
