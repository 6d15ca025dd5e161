// SPDX-License-Identifier: GPL-3.0-or-later
// The keywords of the interface's choices (gpuLdu.hpp), every table in this file: the OpenFOAM
// layer and gpuLduSolve read and list them from here. A name-only choice (executor, format,
// method, ordering) has its table below; the preconditioners' and smoothers' tables are
// generated from their registries (precond/PreconditionerList.hpp, multigrid/SmootherList.hpp),
// each entry's keywords in its own class.

#include "gpuLdu/gpuLdu.hpp"
#include "multigrid/SmootherList.hpp"
#include "precond/PreconditionerList.hpp"

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

//- The orderings, as orderingNames lists them
const Keyword<LdltOrdering> orderingTable[] =
{
    {LdltOrdering::amd, "AMD"},
    {LdltOrdering::metis, "METIS"},
    {LdltOrdering::natural, "natural"}
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

//- Whether a registered keyword is valid on such a matrix
auto takenOn(bool symmetric)
{
    return [=](const Variant& v) { return gpuLdu::takenOn(v.takes, symmetric); };
}

//- Whether OpenFOAM's table of a method on such a matrix holds a preconditioner (the plugin's
//  own added)
auto takenBy(KrylovMethod method, bool symmetric)
{
    return [=](const Variant& v) { return methodTakes(method, symmetric) && takenOn(symmetric)(v); };
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

std::string orderingName(LdltOrdering ordering)
{
    return nameOf(orderingTable, ordering);
}

std::vector<std::string> orderingNames()
{
    return namesOf(orderingTable, all);
}

LdltOrdering orderingFromName(const std::string& name)
{
    return valueOf(orderingTable, name, "ordering", all);
}

const Preconditioner Preconditioner::none{};

Preconditioner Preconditioner::named(const std::string& keyword)
{
    return Preconditioner(PreconditionerRegistry::fromName(keyword, "preconditioner", all));
}

std::string preconditionerName(Preconditioner preconditioner)
{
    return PreconditionerRegistry::name(preconditioner.id());
}

std::vector<std::string> preconditionerNames()
{
    return PreconditionerRegistry::names(all);
}

std::vector<std::string> preconditionerNames(KrylovMethod method, bool symmetric)
{
    return PreconditionerRegistry::names(takenBy(method, symmetric));
}

Preconditioner preconditionerFromName(const std::string& name, KrylovMethod method, bool symmetric)
{
    return Preconditioner(PreconditionerRegistry::fromName(name, "preconditioner", takenBy(method, symmetric)));
}

bool isOpenFOAMs(Preconditioner preconditioner)
{
    return PreconditionerRegistry::openFOAMs(preconditioner.id());
}

GamgSmoother GamgSmoother::named(const std::string& keyword)
{
    return GamgSmoother(SmootherRegistry::fromName(keyword, "smoother", all));
}

bool isOpenFOAMs(GamgSmoother smoother)
{
    return SmootherRegistry::openFOAMs(smoother.id());
}

std::string smootherName(GamgSmoother smoother)
{
    return SmootherRegistry::name(smoother.id());
}

std::vector<std::string> smootherNames(bool symmetric)
{
    return SmootherRegistry::names(takenOn(symmetric));
}

GamgSmoother smootherFromName(const std::string& name, bool symmetric)
{
    return GamgSmoother(SmootherRegistry::fromName(name, "smoother", takenOn(symmetric)));
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
