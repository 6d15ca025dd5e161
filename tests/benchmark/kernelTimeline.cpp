// SPDX-License-Identifier: GPL-3.0-or-later
// Where a solve's device time goes, kernel by kernel: a CUDA injection library
// (CUDA_INJECTION64_PATH=libgpuLduKernelTimeline.so) that asks CUPTI's activity API for every
// kernel, copy and memset the process runs (graph nodes included) and, at exit, writes them in
// the order they ran to $GPULDU_TIMELINE_DIR/timeline.<pid>.tsv: kind, start and end (ns, the
// device's clock), grid and block size, graph id (0 outside a graph), stream, name's number
// (each name on a line "n number name" before its first use). A
// process that runs nothing on the device writes nothing. tests/benchmark/kernelTimeline.py
// sums a file up (busy time against the span, gaps between nodes, by kernel and by grid size).
// Nothing of the plugin is changed: the same solve runs with and without it.

#include <cupti.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace
{

struct Record
{
    char kind;  // k kernel, c copy, s memset
    std::uint64_t start;
    std::uint64_t end;
    std::int64_t grid;
    std::int32_t block;
    std::uint32_t graph;
    std::uint32_t stream;
    std::string name;
};

std::mutex recordsMutex;
std::vector<Record> records;

constexpr std::size_t bufferBytes = 8u << 20;

void CUPTIAPI bufferRequested(std::uint8_t** buffer, std::size_t* size, std::size_t* maxRecords)
{
    *buffer = static_cast<std::uint8_t*>(std::aligned_alloc(8, bufferBytes));
    *size = bufferBytes;
    *maxRecords = 0;
}

void keep(const CUpti_Activity* a)
{
    Record r{};
    if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL)
    {
        const auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(a);
        r = Record{'k', k->start, k->end, std::int64_t(k->gridX)*k->gridY*k->gridZ, k->blockX*k->blockY*k->blockZ,
                   k->graphId, k->streamId, k->name ? k->name : "?"};
    }
    else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
    {
        const auto* c = reinterpret_cast<const CUpti_ActivityMemcpy6*>(a);
        r = Record{'c', c->start, c->end, std::int64_t(c->bytes), c->copyKind, c->graphId, c->streamId, "copy"};
    }
    else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET)
    {
        const auto* s = reinterpret_cast<const CUpti_ActivityMemset4*>(a);
        r = Record{'s', s->start, s->end, std::int64_t(s->bytes), 0, s->graphId, s->streamId, "memset"};
    }
    else
    {
        return;
    }
    std::lock_guard<std::mutex> lock(recordsMutex);
    records.push_back(std::move(r));
}

void CUPTIAPI bufferCompleted(CUcontext, std::uint32_t, std::uint8_t* buffer, std::size_t, std::size_t valid)
{
    CUpti_Activity* a = nullptr;
    while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS)
    {
        keep(a);
    }
    std::free(buffer);
}

void writeRecords()
{
    cuptiActivityFlushAll(1);
    std::lock_guard<std::mutex> lock(recordsMutex);
    if (records.empty())
    {
        return;
    }
    std::sort(records.begin(), records.end(), [](const Record& a, const Record& b) { return a.start < b.start; });
    const char* dir = std::getenv("GPULDU_TIMELINE_DIR");
    const std::string path = std::string(dir ? dir : ".") + "/timeline." + std::to_string(getpid()) + ".tsv";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
    {
        std::fprintf(stderr, "kernelTimeline: cannot write %s\n", path.c_str());
        return;
    }
    // each name once (a thrust kernel's is hundreds of characters): "n", its number, the name
    std::map<std::string, int> numbers;
    for (const Record& r : records)
    {
        if (numbers.emplace(r.name, int(numbers.size())).second)
        {
            std::fprintf(f, "n\t%d\t%s\n", numbers[r.name], r.name.c_str());
        }
        std::fprintf(f, "%c\t%llu\t%llu\t%lld\t%d\t%u\t%u\t%d\n", r.kind, (unsigned long long)r.start,
                     (unsigned long long)r.end, (long long)r.grid, r.block, r.graph, r.stream, numbers[r.name]);
    }
    std::fclose(f);
}

} // namespace

//- Called by the CUDA driver at its initialisation (CUDA_INJECTION64_PATH)
extern "C" int InitializeInjection()
{
    cuptiActivityRegisterCallbacks(bufferRequested, bufferCompleted);
    for (CUpti_ActivityKind kind : {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET})
    {
        if (cuptiActivityEnable(kind) != CUPTI_SUCCESS)
        {
            std::fprintf(stderr, "kernelTimeline: CUPTI refused activity kind %d\n", int(kind));
        }
    }
    std::atexit(writeRecords);
    return 1;
}
