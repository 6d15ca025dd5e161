// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve's command line: the options, their defaults and checks, and the -help text.
#ifndef GPULDU_TOOLS_OPTIONS_HPP
#define GPULDU_TOOLS_OPTIONS_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gpuLduSolve
{

using namespace gpuLdu;

//- The -help text (also printed after an error in the command line)
std::string usage();

//- The command line
struct Options
{
    std::string file;
    bool help = false;
    std::optional<Executor> executor;
    MatrixFormat format = MatrixFormat::named("auto");
    bool spmv = false;
    int repeat = 20;
    std::optional<KrylovMethod> solver;
    //- -solver LDLT, its ordering (none: auto), and whether -tolerance and -maxIter were given
    bool ldlt = false;
    std::optional<LdltOrdering> ordering;
    bool toleranceGiven = false;
    bool maxIterGiven = false;
    //- Checked against the matrix once it is read (the valid words depend on its symmetry)
    std::optional<std::string> preconditioner;
    SolverControls controls;
};

//- The options of argv[1..argc-1], checked; throws Error for a bad one
Options parseOptions(int argc, char* argv[]);

//- Words space-separated
std::string joined(const std::vector<std::string>& words);

} // namespace gpuLduSolve

#endif
