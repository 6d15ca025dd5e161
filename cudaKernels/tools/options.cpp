// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve's command line: the -help text and the options read and checked.

#include "options.hpp"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>

namespace gpuLduSolve
{

namespace
{

//- The keywords joined by '|'
std::string alternatives(const std::vector<std::string>& keywords)
{
    std::string joined;
    for (const std::string& k : keywords)
    {
        joined += (joined.empty() ? "" : "|") + k;
    }
    return joined;
}

} // namespace

std::string usage()
{
    // Every keyword list from the core's registries
    return std::string(
R"(Usage: gpuLduSolve <matrix.mtx[.gz]> [options]
  -executor )") + alternatives(gpuLdu::executorNames()) + R"(        where to run (default gpu if a GPU is usable, else cpu)
  -format )" + alternatives(gpuLdu::formatNames()) + R"(
                           storage of A for A x (default auto)
  -spmv                    also time A x (median of -repeat runs) and check it on the host
  -repeat N                runs of the A x timing (default 20)
  -solver )" + alternatives(gpuLdu::methodNames()) + R"(|LDLT
                           default PCG for a symmetric matrix, else PBiCGStab; LDLT: the
                           sparse direct solver (symmetric matrices), refined to -tolerance
                           (default 1e-12, on ||b - A x||_2/||b||_2) in at most -maxIter steps
                           (default 10)
  -ordering auto|)" + alternatives(gpuLdu::orderingNames()) + R"(
                           LDLT's fill-reducing ordering (default auto: AMD below 5000 rows,
                           else METIS)
  -preconditioner )" + alternatives(gpuLdu::preconditionerNames()) + R"(
                           default DIC for a symmetric matrix, else DILU
  -tolerance T             absolute tolerance (default 1e-8)
  -relTol R                relative tolerance (default 0)
  -maxIter N               default 1000; 0: no solve (as OpenFOAM's fvMatrix::solve),
                           the matrix only read, stored and (-spmv) multiplied
  -minIter N               default 0
  -help                    this text
Solves A x = A*1 from x = 0; the exact solution is 1.

The file: Matrix Market coordinate, real, integer or complex, general or symmetric, plain or
gzip. Entries given twice (the same row and column) are summed, with a warning that counts
them. Refused with "<file>:<line>: <what>": a banner, size or entry line over 1024 bytes
(comments may be longer), a control byte (tab is a space; CR may end a line), a value out of
the range of double (overflow or underflow), declared sizes that need more memory than there
is. A matrix with a row of no non-zero entry is singular: refused before the solve.

Exit status:
  0  solved: converged to the tolerance (or -maxIter 0: no solve asked)
  1  error: bad input file, bad options, out of memory, any other failure
  2  not converged: the tolerance not reached in -maxIter iterations (LDLT: refinement steps)
  3  singular or broken down: a row of no non-zero entry, a zero or non-finite pivot,
     OpenFOAM's singularity test, a residual that became NaN or infinite
)";
}

namespace
{

//- A word of the command line or the file as it appears in a message: at most 40 characters
std::string shown(const std::string& word)
{
    return word.size() > 40 ? word.substr(0, 40) + "..." : word;
}

int toInt(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    errno = 0;
    const long value = std::strtol(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno != 0 || value < INT_MIN || value > INT_MAX)
    {
        throw Error("bad number '" + shown(text) + "' for " + option + ": expected an integer");
    }
    return int(value);
}

double toDouble(const std::string& option, const std::string& text)
{
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(value))
    {
        throw Error("bad number '" + shown(text) + "' for " + option);
    }
    return value;
}

//- -ordering's word: none for auto, else the core's ordering (also spelt amd and metis here)
std::optional<LdltOrdering> orderingOption(const std::string& name)
{
    if (name == "auto")
    {
        return std::nullopt;
    }
    // the core's names, and here also their lower-case spellings amd and metis
    const std::string core = name == "amd" ? "AMD" : name == "metis" ? "METIS" : name;
    std::vector<std::string> valid = orderingNames();
    if (std::find(valid.begin(), valid.end(), core) == valid.end())
    {
        valid.insert(valid.begin(), "auto");
        throw Error("Unknown ordering " + name + "; valid orderings are : " + joined(valid));
    }
    return LdltOrdering::named(core);
}

//- -preconditioner's word, one of the core's names (which of them the matrix takes is checked
//  once it is read)
std::string preconditionerOption(const std::string& name)
{
    const std::vector<std::string> known = preconditionerNames();
    if (std::find(known.begin(), known.end(), name) == known.end())
    {
        throw Error("Unknown preconditioner " + name + "; valid preconditioners are : " + joined(known));
    }
    return name;
}

//- The option arg (its value, if it takes one, from value()) into o; false if arg is no option
template<class Value>
bool setOption(Options& o, const std::string& arg, Value value)
{
    if (arg == "-help" || arg == "--help")
    {
        o.help = true;
    }
    else if (arg == "-executor")
    {
        o.executor = executorFromName(value());
    }
    else if (arg == "-format")
    {
        o.format = MatrixFormat::named(value());
    }
    else if (arg == "-spmv")
    {
        o.spmv = true;
    }
    else if (arg == "-repeat")
    {
        o.repeat = toInt(arg, value());
    }
    else if (arg == "-solver")
    {
        const std::string name = value();
        o.ldlt = name == "LDLT";
        if (!o.ldlt)
        {
            o.solver = KrylovMethod::named(name);
        }
    }
    else if (arg == "-ordering")
    {
        // auto leaves an earlier -ordering as it was
        if (const std::optional<LdltOrdering> ordering = orderingOption(value()))
        {
            o.ordering = ordering;
        }
    }
    else if (arg == "-preconditioner")
    {
        o.preconditioner = preconditionerOption(value());
    }
    else if (arg == "-tolerance")
    {
        o.controls.tolerance = toDouble(arg, value());
        o.toleranceGiven = true;
    }
    else if (arg == "-relTol")
    {
        o.controls.relTol = toDouble(arg, value());
    }
    else if (arg == "-maxIter")
    {
        o.controls.maxIter = toInt(arg, value());
        o.maxIterGiven = true;
    }
    else if (arg == "-minIter")
    {
        o.controls.minIter = toInt(arg, value());
    }
    else
    {
        return false;
    }
    return true;
}

//- The options together: a file, and numbers in their ranges
void checkOptions(const Options& o)
{
    if (o.file.empty())
    {
        throw Error("no matrix file given");
    }
    if (o.repeat < 1)
    {
        throw Error("-repeat must be at least 1, not " + std::to_string(o.repeat));
    }
    if (o.controls.maxIter < 0 || o.controls.minIter < 0)
    {
        throw Error("-maxIter and -minIter must not be negative");
    }
    if (o.controls.tolerance < 0 || o.controls.relTol < 0)
    {
        throw Error("-tolerance and -relTol must not be negative");
    }
}

} // namespace

std::string joined(const std::vector<std::string>& words)
{
    std::string list;
    for (const std::string& w : words)
    {
        list += (list.empty() ? "" : " ") + w;
    }
    return list;
}

Options parseOptions(int argc, char* argv[])
{
    Options o;
    o.controls.tolerance = 1e-8;
    o.controls.relTol = 0;
    o.controls.maxIter = 1000;
    o.controls.minIter = 0;
    for (int i = 1; i < argc; ++i)
    {
        const std::string arg = argv[i];
        const auto value = [&]()
        {
            if (i + 1 == argc)
            {
                throw Error("missing value for " + arg);
            }
            return std::string(argv[++i]);
        };
        if (setOption(o, arg, value))
        {
            continue;
        }
        if (arg.size() > 1 && arg[0] == '-')
        {
            throw Error("unknown option " + shown(arg));
        }
        if (!o.file.empty())
        {
            throw Error("more than one matrix file: " + o.file + " and " + arg);
        }
        o.file = arg;
    }
    if (!o.help)
    {
        checkOptions(o);
    }
    return o;
}

} // namespace gpuLduSolve
