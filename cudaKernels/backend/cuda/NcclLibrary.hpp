// SPDX-License-Identifier: GPL-3.0-or-later
// NCCL's functions from libnccl.so.2, opened at run time (the CUDA toolkit's, or on
// LD_LIBRARY_PATH's), so that a host without it still runs: the owners' exchange
// (NcclExchange.cu) and the exchange benchmark (tests/benchmark/exchangeBench.cu). Needs the
// toolkit's nccl.h for its types.

#pragma once

#include <nccl.h>

#include <dlfcn.h>

#include <string>

namespace gpuLdu
{

struct NcclLibrary
{
    decltype(&ncclGetUniqueId) getUniqueId = nullptr;
    decltype(&ncclCommInitRank) commInitRank = nullptr;
    decltype(&ncclCommDestroy) commDestroy = nullptr;
    decltype(&ncclSend) send = nullptr;
    decltype(&ncclRecv) recv = nullptr;
    decltype(&ncclAllReduce) allReduce = nullptr;
    decltype(&ncclGroupStart) groupStart = nullptr;
    decltype(&ncclGroupEnd) groupEnd = nullptr;
    decltype(&ncclGetErrorString) errorString = nullptr;
    //- The library opened (empty: none), or why none
    std::string from;
    std::string why;

    NcclLibrary()
    {
        for (const char* name :
            {"libnccl.so.2", "/usr/local/cuda/lib/libnccl.so.2", "/usr/local/cuda/lib64/libnccl.so.2"})
        {
            void* lib = dlopen(name, RTLD_NOW | RTLD_GLOBAL);
            if (!lib)
            {
                continue;
            }
            const auto at = [lib](const char* f) { return dlsym(lib, f); };
            getUniqueId = reinterpret_cast<decltype(getUniqueId)>(at("ncclGetUniqueId"));
            commInitRank = reinterpret_cast<decltype(commInitRank)>(at("ncclCommInitRank"));
            commDestroy = reinterpret_cast<decltype(commDestroy)>(at("ncclCommDestroy"));
            send = reinterpret_cast<decltype(send)>(at("ncclSend"));
            recv = reinterpret_cast<decltype(recv)>(at("ncclRecv"));
            allReduce = reinterpret_cast<decltype(allReduce)>(at("ncclAllReduce"));
            groupStart = reinterpret_cast<decltype(groupStart)>(at("ncclGroupStart"));
            groupEnd = reinterpret_cast<decltype(groupEnd)>(at("ncclGroupEnd"));
            errorString = reinterpret_cast<decltype(errorString)>(at("ncclGetErrorString"));
            if (getUniqueId && commInitRank && commDestroy && send && recv && allReduce && groupStart
             && groupEnd && errorString)
            {
                from = name;
                return;
            }
        }
        why = "libnccl.so.2 not found (or without the functions used)";
    }
};

//- The library, opened on the first call
inline const NcclLibrary& ncclLibrary()
{
    static const NcclLibrary library;
    return library;
}

} // namespace gpuLdu
