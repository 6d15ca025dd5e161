// SPDX-License-Identifier: GPL-3.0-or-later
// The keywords of the interface's choices (gpuLdu.hpp), one table each: the OpenFOAM layer and
// gpuLduSolve read and list them from here.

#include "gpuLdu/gpuLdu.hpp"

#include <algorithm>
#include <cctype>
#include <initializer_list>

namespace gpuLdu
{

namespace
{

template<class T>
struct Keyword
{
    T value;
    const char* name;
};

const Keyword<Executor> executorTable[] =
{
    {Executor::cpu, "cpu"},
    {Executor::gpu, "gpu"}
};

const Keyword<MatrixFormat> formatTable[] =
{
    {MatrixFormat::csr, "csr"},
    {MatrixFormat::ell, "ell"},
    {MatrixFormat::blockedEll, "blockedEll"},
    {MatrixFormat::hyb, "hyb"},
    {MatrixFormat::hec, "hec"},
    {MatrixFormat::automatic, "auto"}
};

const Keyword<KrylovMethod> methodTable[] =
{
    {KrylovMethod::PCG, "PCG"},
    {KrylovMethod::PBiCG, "PBiCG"},
    {KrylovMethod::PBiCGStab, "PBiCGStab"}
};

//- The matrices a preconditioner takes in OpenFOAM's tables
enum class Takes
{
    both,
    symmetric,
    asymmetric
};

struct PreconditionerKeyword
{
    Preconditioner value;
    const char* name;
    Takes takes;
};

const PreconditionerKeyword preconditionerTable[] =
{
    {Preconditioner::none, "none", Takes::both},
    {Preconditioner::diagonal, "diagonal", Takes::both},
    {Preconditioner::DIC, "DIC", Takes::symmetric},
    {Preconditioner::DIC, "FDIC", Takes::symmetric},
    {Preconditioner::DILU, "DILU", Takes::asymmetric},
    {Preconditioner::ILU0, "ILU0", Takes::both}
};

struct SmootherKeyword
{
    GamgSmoother value;
    const char* name;
    Takes takes;
};

//- OpenFOAM's smoother tables (lduMatrix::smoother's symMatrix and asymMatrix constructor
//  tables), in OpenFOAM's alphabetical listing order, then the plugin's own
const SmootherKeyword smootherTable[] =
{
    {GamgSmoother::DIC, "DIC", Takes::symmetric},
    {GamgSmoother::DICGaussSeidel, "DICGaussSeidel", Takes::symmetric},
    {GamgSmoother::DILU, "DILU", Takes::asymmetric},
    {GamgSmoother::DILUGaussSeidel, "DILUGaussSeidel", Takes::asymmetric},
    {GamgSmoother::DIC, "FDIC", Takes::symmetric},
    {GamgSmoother::GaussSeidel, "GaussSeidel", Takes::both},
    {GamgSmoother::GaussSeidel, "nonBlockingGaussSeidel", Takes::both},
    {GamgSmoother::symGaussSeidel, "symGaussSeidel", Takes::both},
    {GamgSmoother::l1Jacobi, "l1Jacobi", Takes::both},
    {GamgSmoother::Chebyshev, "Chebyshev", Takes::both}
};

//- The names of a table's entries that pass `keep`, in table order
template<class Table, class Keep>
std::vector<std::string> namesOf(const Table& table, const Keep& keep)
{
    std::vector<std::string> names;
    for (const auto& entry : table)
    {
        if (keep(entry))
        {
            names.push_back(entry.name);
        }
    }
    return names;
}

//- The first name of a value
template<class Table, class T>
std::string nameOf(const Table& table, T value)
{
    for (const auto& entry : table)
    {
        if (entry.value == value)
        {
            return entry.name;
        }
    }
    return "unknown";
}

//- The value of a name among those that pass `keep`; Error naming the valid ones otherwise
template<class Table, class Keep>
auto valueOf(const Table& table, const std::string& name, const std::string& what, const Keep& keep)
{
    std::string valid;
    for (const auto& entry : table)
    {
        if (keep(entry))
        {
            if (name == entry.name)
            {
                return entry.value;
            }
            valid += std::string(valid.empty() ? "" : " ") + entry.name;
        }
    }
    throw Error("Unknown " + what + " " + name + "; valid " + what + "s are : " + valid);
}

const auto all = [](const auto&) { return true; };

//- Whether a keyword of a table with `takes` is valid on such a matrix
auto takenOn(bool symmetric)
{
    return [=](const auto& p)
    {
        return p.takes == Takes::both || (p.takes == Takes::symmetric) == symmetric;
    };
}

//- Whether OpenFOAM's table of a method on such a matrix holds a preconditioner (ILU0 added)
auto takenBy(KrylovMethod method, bool symmetric)
{
    return [=](const PreconditionerKeyword& p)
    {
        return methodTakes(method, symmetric) && takenOn(symmetric)(p);
    };
}

} // namespace

std::string executorName(Executor executor)
{
    return nameOf(executorTable, executor);
}

std::vector<std::string> executorNames()
{
    return namesOf(executorTable, all);
}

Executor executorFromName(const std::string& name)
{
    return valueOf(executorTable, name, "executor", all);
}

std::string formatName(MatrixFormat format)
{
    return nameOf(formatTable, format);
}

std::vector<std::string> formatNames()
{
    return namesOf(formatTable, all);
}

MatrixFormat formatFromName(const std::string& name)
{
    return valueOf(formatTable, name, "matrixFormat", all);
}

std::string methodName(KrylovMethod method)
{
    return nameOf(methodTable, method);
}

std::vector<std::string> methodNames()
{
    return namesOf(methodTable, all);
}

KrylovMethod methodFromName(const std::string& name)
{
    return valueOf(methodTable, name, "solver", all);
}

bool methodTakes(KrylovMethod method, bool symmetric)
{
    return method == KrylovMethod::PBiCGStab || (method == KrylovMethod::PCG) == symmetric;
}

std::string preconditionerName(Preconditioner preconditioner)
{
    return nameOf(preconditionerTable, preconditioner);
}

std::vector<std::string> preconditionerNames()
{
    return namesOf(preconditionerTable, all);
}

std::vector<std::string> preconditionerNames(KrylovMethod method, bool symmetric)
{
    return namesOf(preconditionerTable, takenBy(method, symmetric));
}

Preconditioner preconditionerFromName(const std::string& name, KrylovMethod method, bool symmetric)
{
    return valueOf(preconditionerTable, name, "preconditioner", takenBy(method, symmetric));
}

bool isOpenFOAMs(GamgSmoother smoother)
{
    return smoother != GamgSmoother::l1Jacobi && smoother != GamgSmoother::Chebyshev;
}

std::vector<std::string> smootherNames(bool symmetric)
{
    return namesOf(smootherTable, takenOn(symmetric));
}

GamgSmoother smootherFromName(const std::string& name, bool symmetric)
{
    return valueOf(smootherTable, name, "smoother", takenOn(symmetric));
}

int editDistance(const std::string& a, const std::string& b)
{
    // d[i][j]: the distance between the first i letters of a and the first j of b, one row
    // kept: d[i][j] = min(d[i-1][j] + 1, d[i][j-1] + 1, d[i-1][j-1] + (a_i != b_j))
    const auto lower = [](char c) { return char(std::tolower(static_cast<unsigned char>(c))); };
    std::vector<int> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j)
    {
        row[j] = int(j);
    }
    for (std::size_t i = 1; i <= a.size(); ++i)
    {
        int diagonal = row[0];
        row[0] = int(i);
        for (std::size_t j = 1; j <= b.size(); ++j)
        {
            const int substitution = diagonal + (lower(a[i - 1]) != lower(b[j - 1]));
            diagonal = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitution});
        }
    }
    return row[b.size()];
}

std::string closestKeyword(const std::string& name, const std::vector<std::string>& candidates)
{
    const int allowed = std::max(2, int(name.size())/3);
    std::string closest;
    int best = allowed + 1;
    for (const std::string& c : candidates)
    {
        const int d = editDistance(name, c);
        if (d < best)
        {
            best = d;
            closest = c;
        }
    }
    return closest;
}

} // namespace gpuLdu
