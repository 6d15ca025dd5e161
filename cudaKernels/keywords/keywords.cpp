// SPDX-License-Identifier: GPL-3.0-or-later
// The keywords of the interface's choices (gpuLdu.hpp), every table in this file: the OpenFOAM
// layer and gpuLduSolve read and list them from here. The executors have their table below;
// every other kind's is generated from its registry, each entry's keywords in its own class:
// preconditioners (precond/PreconditionerList.hpp), GAMG smoothers (multigrid/SmootherList.hpp),
// Krylov methods (krylov/KrylovMethodList.hpp), matrix formats (matrix/FormatList.hpp), LDL^T
// orderings (direct/OrderingList.hpp).

#include "direct/OrderingList.hpp"
#include "gpuLdu/gpuLdu.hpp"
#include "krylov/KrylovMethodList.hpp"
#include "matrix/FormatList.hpp"
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

MatrixFormat MatrixFormat::named(const std::string& keyword)
{
    return MatrixFormat(FormatRegistry::fromName(keyword, "matrixFormat", all));
}

std::string formatName(MatrixFormat format)
{
    return FormatRegistry::name(format.id());
}

std::vector<std::string> formatNames()
{
    return FormatRegistry::names(all);
}

bool isChosenPerMatrix(MatrixFormat format)
{
    return storageOf(format) == FormatStorage::chosen;
}

KrylovMethod KrylovMethod::named(const std::string& keyword)
{
    return KrylovMethod(KrylovMethodRegistry::fromName(keyword, "solver", all));
}

std::string methodName(KrylovMethod method)
{
    return KrylovMethodRegistry::name(method.id());
}

std::vector<std::string> methodNames()
{
    return KrylovMethodRegistry::names(all);
}

bool methodTakes(KrylovMethod method, bool symmetric)
{
    return gpuLdu::takenOn(KrylovMethodRegistry::choices()[method.id()].variant->takes, symmetric);
}

LdltOrdering LdltOrdering::named(const std::string& keyword)
{
    return LdltOrdering(OrderingRegistry::fromName(keyword, "ordering", all));
}

std::string orderingName(LdltOrdering ordering)
{
    return OrderingRegistry::name(ordering.id());
}

std::vector<std::string> orderingNames()
{
    return OrderingRegistry::names(all);
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
