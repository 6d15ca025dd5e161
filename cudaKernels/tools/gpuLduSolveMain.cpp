// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolveMain: gpuLduSolve's command line read, the file solved, and every error turned into
// its message on stderr ("gpuLduSolve: ...") and its exit status.

#include "gpuLduSolve.hpp"
#include "solveRun.hpp"

#include <cstdio>
#include <new>

using namespace gpuLduSolve;

namespace
{

//- The file read and solved by the path the options and the matrix choose
ExitStatus solveFile(const Options& o)
{
    const LduMatrixData m = readMatrixMarket(o.file);
    if (m.nDuplicates > 0)
    {
        std::fprintf(stderr, "gpuLduSolve: warning: %s:%ld: %ld entr%s a row and column of an earlier entry,"
                     " summed into it (the first here)\n", o.file.c_str(), m.firstDuplicateLine, m.nDuplicates,
                     m.nDuplicates == 1 ? "y repeats" : "ies repeat");
    }
    if (o.ldlt)
    {
        // CUDA is asked only when the executor is not given: -executor cpu never starts it
        const std::string reason = o.executor ? "" : gpuUnavailableReason();
        return runLdlt(o, m, o.executor.value_or(reason.empty() ? Executor::gpu : Executor::cpu), reason);
    }
    if (m.complexValues)
    {
        throw Error(o.file + " is complex: only -solver LDLT takes complex (symmetric) matrices");
    }
    return runKrylov(o, m);
}

} // namespace

int gpuLduSolveMain(int argc, char* argv[])
{
    Options options;
    try
    {
        options = parseOptions(argc, argv);
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "gpuLduSolve: %s\n\n%s", e.what(), usage().c_str());
        return exitError;
    }
    if (options.help)
    {
        std::printf("%s", usage().c_str());
        return 0;
    }
    try
    {
        return solveFile(options);
    }
    catch (const Failure& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return e.status;
    }
    catch (const SingularMatrixError& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return exitSingular;
    }
    catch (const Error& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: %s\n", e.what());
        return exitError;
    }
    catch (const std::bad_alloc& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: out of memory (%s): %s is too large for the memory of this machine\n",
                     e.what(), options.file.c_str());
        return exitError;
    }
    catch (const std::exception& e)
    {
        std::fflush(stdout);
        std::fprintf(stderr, "gpuLduSolve: unexpected error: %s\n", e.what());
        return exitError;
    }
}
