// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduFuzzRunner: runs gpuLduSolve on many cases with the libraries loaded once (for
// tests/integration/fuzz.sh). Starting gpuLduSolve costs the loading and relocation of its
// libraries, which in a CUDA build map cuBLAS (over 500 MB): seconds per case on a busy machine,
// for cases that take milliseconds. The runner loads them once and forks one child per case;
// each child runs gpuLduSolveMain (the whole of gpuLduSolve's main) as a process of its own, so
// a case is as isolated as before: its own address space, its own exit status, its output in
// its own file, and a crash, an abort or a sanitizer's report ends that case only.
//
// Usage: gpuLduFuzzRunner [-seconds S] [-memoryKiB K] < cases
//   One case a line, fields separated by tabs: <label> <log file> <argument>... ; the case runs
//   "gpuLduSolve <argument>..." with stdin /dev/null and stdout and stderr into <log file>.
//   After each case one line "<label><tab><status>" on stdout, <status> as a shell gives it:
//   the exit status, or 128 + the signal's number (137: killed at the time limit).
//   -seconds S     wall-clock limit of a case (default 20): the child is killed (SIGKILL)
//   -memoryKiB K   address-space limit of a case (RLIMIT_AS, as ulimit -v) on top of what the
//                  child has mapped when it starts (the loaded libraries); 0: no limit (default)
// On stderr first: "gpuLduFuzzRunner: <KiB> KiB mapped idle".

#include "gpuLduSolve.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fcntl.h>
#include <iostream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

// Built with AddressSanitizer (gcc defines __SANITIZE_ADDRESS__, clang has the feature)
#if defined(__SANITIZE_ADDRESS__)
#define GPULDU_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPULDU_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef GPULDU_ADDRESS_SANITIZER
#define GPULDU_ADDRESS_SANITIZER 0
#endif

namespace
{

//- One case: its label, its log file, gpuLduSolve's arguments
struct Case
{
    std::string label;
    std::string log;
    std::vector<std::string> arguments;
};

//- The fields of a line separated by tabs
std::vector<std::string> fields(const std::string& line)
{
    std::vector<std::string> result;
    std::size_t start = 0;
    for (std::size_t tab; (tab = line.find('\t', start)) != std::string::npos; start = tab + 1)
    {
        result.push_back(line.substr(start, tab - start));
    }
    result.push_back(line.substr(start));
    return result;
}

//- The cases of stdin, read to its end before any fork (no child shares an unread input buffer)
std::vector<Case> readCases()
{
    std::vector<Case> cases;
    std::string line;
    while (std::getline(std::cin, line))
    {
        if (line.empty())
        {
            continue;
        }
        std::vector<std::string> f = fields(line);
        if (f.size() < 2)
        {
            std::fprintf(stderr, "gpuLduFuzzRunner: a case needs a label and a log file: '%s'\n", line.c_str());
            std::exit(2);
        }
        cases.push_back({f[0], f[1], std::vector<std::string>(f.begin() + 2, f.end())});
    }
    return cases;
}

//- This process's virtual memory (KiB, VmSize of /proc/self/status), 0 if unknown
long mappedKiB()
{
    FILE* status = std::fopen("/proc/self/status", "r");
    long kib = 0;
    char line[256];
    while (status && std::fgets(line, sizeof line, status))
    {
        if (std::sscanf(line, "VmSize: %ld kB", &kib) == 1)
        {
            break;
        }
    }
    if (status)
    {
        std::fclose(status);
    }
    return kib;
}

//- The child of a case: its limits and files set, gpuLduSolve run; never returns
[[noreturn]] void runChild(const Case& c, const sigset_t& parentMask, long memoryKiB)
{
    sigprocmask(SIG_SETMASK, &parentMask, nullptr);
    std::signal(SIGCHLD, SIG_DFL);
    const int in = open("/dev/null", O_RDONLY);
    const int out = open(c.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (in < 0 || out < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
    {
        std::perror("gpuLduFuzzRunner: the case's files");
        _exit(125);
    }
    close(in);
    close(out);
    if (memoryKiB > 0)
    {
        // as `ulimit -v idle + budget` before exec: what is mapped now, the libraries, plus the budget
        const rlim_t bytes = rlim_t(mappedKiB() + memoryKiB)*1024;
        const rlimit limit{bytes, bytes};
        setrlimit(RLIMIT_AS, &limit);
    }
    std::vector<char*> argv{const_cast<char*>("gpuLduSolve")};
    for (const std::string& a : c.arguments)
    {
        argv.push_back(const_cast<char*>(a.c_str()));
    }
    argv.push_back(nullptr);
    const int status = gpuLduSolveMain(int(argv.size()) - 1, argv.data());
#if GPULDU_ADDRESS_SANITIZER
    // exit, as when main returns: LeakSanitizer's check runs at exit
    std::exit(status);
#else
    // the output flushed, then _exit: the destructors and exit handlers of the libraries would
    // free what they allocated when loaded (cuBLAS: most of a case's time, each freed page a
    // copy-on-write fault in this child); the process ends with them undone as after a signal
    std::fflush(nullptr);
    _exit(status);
#endif
}

//- Waits for the child until the deadline (SIGCHLD blocked in the caller), kills it after it;
//  its status as a shell gives it
int waitFor(pid_t child, int seconds)
{
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    const double deadline = now.tv_sec + 1e-9*now.tv_nsec + seconds;
    int status = 0;
    while (waitpid(child, &status, WNOHANG) == 0)
    {
        clock_gettime(CLOCK_MONOTONIC, &now);
        const double left = deadline - (now.tv_sec + 1e-9*now.tv_nsec);
        if (left <= 0)
        {
            kill(child, SIGKILL);
            waitpid(child, &status, 0);
            break;
        }
        const timespec wait{time_t(left), long(1e9*(left - double(time_t(left))))};
        sigtimedwait(&chld, nullptr, &wait);    // a SIGCHLD, the timeout or EINTR: look again
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}

//- A non-negative integer option's value
long number(const char* option, const char* text)
{
    char* end = nullptr;
    const long value = std::strtol(text, &end, 10);
    if (*text == '\0' || *end != '\0' || value < 0)
    {
        std::fprintf(stderr, "gpuLduFuzzRunner: bad value '%s' for %s\n", text, option);
        std::exit(2);
    }
    return value;
}

} // namespace


int main(int argc, char* argv[])
{
    int seconds = 20;
    long memoryKiB = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        if ((arg == "-seconds" || arg == "-memoryKiB") && i + 1 < argc)
        {
            const long value = number(argv[i], argv[i + 1]);
            ++i;
            (arg == "-seconds" ? void(seconds = int(value)) : void(memoryKiB = value));
        }
        else
        {
            std::fprintf(stderr, "Usage: gpuLduFuzzRunner [-seconds S] [-memoryKiB K] < cases\n");
            return 2;
        }
    }
    const std::vector<Case> cases = readCases();
    std::fprintf(stderr, "gpuLduFuzzRunner: %ld KiB mapped idle\n", mappedKiB());

    // SIGCHLD blocked here (and a handler set, so that it is never discarded): waitFor waits on it
    std::signal(SIGCHLD, [](int) {});
    sigset_t chld, parentMask;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &parentMask);
    for (const Case& c : cases)
    {
        std::fflush(nullptr);   // nothing buffered is written twice, by the child too
        const pid_t child = fork();
        if (child < 0)
        {
            std::fprintf(stderr, "gpuLduFuzzRunner: fork: %s\n", std::strerror(errno));
            return 2;
        }
        if (child == 0)
        {
            runChild(c, parentMask, memoryKiB);
        }
        std::printf("%s\t%d\n", c.label.c_str(), waitFor(child, seconds));
        std::fflush(stdout);    // the caller judges each case as it ends
    }
    return 0;
}
