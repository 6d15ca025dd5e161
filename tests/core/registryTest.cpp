// SPDX-License-Identifier: GPL-3.0-or-later
// The registries (system/Registry.hpp): every preconditioner and smoother keyword, listing and
// the checkNative trait come from the type lists (precond/PreconditionerList.hpp,
// multigrid/SmootherList.hpp); the listings are OpenFOAM's run-time tables'; the keyword tables
// of the name-only choices (executor, format, method, ordering) in system/keywords.cpp.

#include "multigrid/SmootherList.hpp"
#include "precond/PreconditionerList.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gpuLdu
{
namespace test
{

using Names = std::vector<std::string>;

//- The message of the Error that f throws ("" where it throws none)
template<class F>
std::string errorOf(const F& f)
{
    try
    {
        f();
    }
    catch (const Error& e)
    {
        return e.what();
    }
    return "";
}

//- Two entries of a list made for the test: what the registry generates from any list
struct OwnEntry
{
    static constexpr Variant variants[] = {{"zOwn", Takes::both, nullptr}};
    static constexpr bool openFOAMs = false;
};

struct NativeEntry
{
    static constexpr Variant variants[] =
    {
        {"Sym", Takes::symmetric, "Alias"},
        {"Asym", Takes::asymmetric, nullptr}
    };
    static constexpr bool openFOAMs = true;
};

using TestRegistry = Registry<TypeList<OwnEntry, NativeEntry>>;

TEST(Registry, ChoicesTablesAndDispatchComeFromTheList)
{
    // choices: entries in list order, each entry's variants in its order
    ASSERT_EQ(TestRegistry::choices().size(), 3u);
    EXPECT_EQ(TestRegistry::name(0), "zOwn");
    EXPECT_EQ(TestRegistry::name(1), "Sym");
    EXPECT_EQ(TestRegistry::name(2), "Asym");
    EXPECT_FALSE(TestRegistry::openFOAMs(0));
    EXPECT_TRUE(TestRegistry::openFOAMs(2));
    EXPECT_TRUE(TestRegistry::is<NativeEntry>(1));
    EXPECT_FALSE(TestRegistry::is<NativeEntry>(0));
    EXPECT_EQ(TestRegistry::indexOf<NativeEntry>(), 1);

    // listings: OpenFOAM's in byte order (sortedToc), aliases included, then the plugin's own
    const auto all = [](const Variant&) { return true; };
    const auto symmetric = [](const Variant& v) { return takenOn(v.takes, true); };
    EXPECT_EQ(TestRegistry::names(all), (Names{"Alias", "Asym", "Sym", "zOwn"}));
    EXPECT_EQ(TestRegistry::names(symmetric), (Names{"Alias", "Sym", "zOwn"}));

    // a name or an alias to its choice; another name: an Error listing the valid ones
    EXPECT_EQ(TestRegistry::fromName("Alias", "choice", all), 1);
    EXPECT_EQ(TestRegistry::fromName("Asym", "choice", all), 2);
    EXPECT_EQ(errorOf([&] { TestRegistry::fromName("Asym", "choice", symmetric); }),
              "Unknown choice Asym; valid choices are : Alias Sym zOwn");

    // dispatch: the entry of each choice
    int visited = -1;
    TestRegistry::visit(2, [&](auto entry) { visited = TestRegistry::indexOf<decltype(entry)>(); });
    EXPECT_EQ(visited, 1);
    TestRegistry::visit(0, [&](auto entry) { visited = TestRegistry::indexOf<decltype(entry)>(); });
    EXPECT_EQ(visited, 0);
}

//- Every registered keyword and alias of a registry round-trips through the public functions
template<class Registry, class Named, class NameOf>
void checkRoundTrip(const Named& named, const NameOf& nameOf, const Names& listed)
{
    const auto& choices = Registry::choices();
    for (std::size_t id = 0; id < choices.size(); ++id)
    {
        const Variant& v = *choices[id].variant;
        EXPECT_EQ(named(v.name).id(), int(id)) << v.name;
        EXPECT_EQ(nameOf(named(v.name)), v.name);
        EXPECT_NE(std::find(listed.begin(), listed.end(), v.name), listed.end()) << v.name << " not listed";
        if (v.alias)
        {
            EXPECT_EQ(named(v.alias).id(), int(id)) << v.alias;
            EXPECT_NE(std::find(listed.begin(), listed.end(), v.alias), listed.end()) << v.alias << " not listed";
        }
    }
    std::size_t keywords = 0;
    for (const auto& c : choices)
    {
        keywords += c.variant->alias ? 2 : 1;
    }
    EXPECT_EQ(listed.size(), keywords) << "a listed keyword that is not registered";
}

TEST(Registry, EveryPreconditionerKeywordRoundTrips)
{
    checkRoundTrip<PreconditionerRegistry>([](const std::string& n) { return Preconditioner::named(n); },
                                           [](Preconditioner p) { return preconditionerName(p); },
                                           preconditionerNames());
    EXPECT_EQ(Preconditioner(), Preconditioner::none);
    EXPECT_EQ(Preconditioner::named("none"), Preconditioner::none);
    EXPECT_EQ(Preconditioner::named("FDIC"), Preconditioner::named("DIC"));
    EXPECT_EQ(preconditionerName(Preconditioner::named("FDIC")), "DIC");
    EXPECT_NE(Preconditioner::named("DIC"), Preconditioner::named("DILU"));
}

TEST(Registry, EverySmootherKeywordRoundTrips)
{
    Names listed = smootherNames(true);
    for (const std::string& n : smootherNames(false))
    {
        if (std::find(listed.begin(), listed.end(), n) == listed.end())
        {
            listed.push_back(n);
        }
    }
    checkRoundTrip<SmootherRegistry>([](const std::string& n) { return GamgSmoother::named(n); },
                                     [](GamgSmoother s) { return smootherName(s); }, listed);
    EXPECT_EQ(GamgControls().smoother, GamgSmoother::named("GaussSeidel"));
    EXPECT_EQ(GamgSmoother::named("nonBlockingGaussSeidel"), GamgSmoother::named("GaussSeidel"));
}

//- OpenFOAM's run-time tables (sortedToc of the symMatrix/asymMatrix constructor tables), then
//  the plugin's own
TEST(Registry, ListingsAreOpenFOAMsTablesThenThePluginsOwn)
{
    EXPECT_EQ(preconditionerNames(KrylovMethod::named("PCG"), true), (Names{"DIC", "FDIC", "diagonal", "none", "ILU0"}));
    EXPECT_EQ(preconditionerNames(KrylovMethod::named("PBiCGStab"), true), (Names{"DIC", "FDIC", "diagonal", "none", "ILU0"}));
    EXPECT_EQ(preconditionerNames(KrylovMethod::named("PBiCG"), false), (Names{"DILU", "diagonal", "none", "ILU0"}));
    EXPECT_EQ(preconditionerNames(KrylovMethod::named("PBiCGStab"), false), (Names{"DILU", "diagonal", "none", "ILU0"}));
    EXPECT_TRUE(preconditionerNames(KrylovMethod::named("PCG"), false).empty());
    EXPECT_TRUE(preconditionerNames(KrylovMethod::named("PBiCG"), true).empty());
    EXPECT_EQ(smootherNames(true), (Names{"DIC", "DICGaussSeidel", "FDIC", "GaussSeidel", "nonBlockingGaussSeidel",
                                          "symGaussSeidel", "l1Jacobi", "Chebyshev"}));
    EXPECT_EQ(smootherNames(false), (Names{"DILU", "DILUGaussSeidel", "GaussSeidel", "nonBlockingGaussSeidel",
                                           "symGaussSeidel", "l1Jacobi", "Chebyshev"}));
    EXPECT_EQ(errorOf([] { preconditionerFromName("DILU", KrylovMethod::named("PCG"), true); }),
              "Unknown preconditioner DILU; valid preconditioners are : DIC FDIC diagonal none ILU0");
    EXPECT_EQ(errorOf([] { smootherFromName("DIC", false); }),
              "Unknown smoother DIC; valid smoothers are : DILU DILUGaussSeidel GaussSeidel nonBlockingGaussSeidel "
              "symGaussSeidel l1Jacobi Chebyshev");
    EXPECT_EQ(preconditionerFromName("FDIC", KrylovMethod::named("PCG"), true), Preconditioner::named("DIC"));
    EXPECT_EQ(smootherFromName("DILUGaussSeidel", false), GamgSmoother::named("DILUGaussSeidel"));
}

//- checkNative refuses what OpenFOAM does not have: the trait of each entry
TEST(Registry, OnlyOpenFOAMsChoicesAreNative)
{
    for (const char* name : {"none", "diagonal", "DIC", "FDIC", "DILU"})
    {
        EXPECT_TRUE(isOpenFOAMs(Preconditioner::named(name))) << name;
    }
    EXPECT_FALSE(isOpenFOAMs(Preconditioner::named("ILU0")));
    for (const char* name : {"GaussSeidel", "nonBlockingGaussSeidel", "symGaussSeidel", "DIC", "FDIC", "DILU",
                             "DICGaussSeidel", "DILUGaussSeidel"})
    {
        EXPECT_TRUE(isOpenFOAMs(GamgSmoother::named(name))) << name;
    }
    EXPECT_FALSE(isOpenFOAMs(GamgSmoother::named("l1Jacobi")));
    EXPECT_FALSE(isOpenFOAMs(GamgSmoother::named("Chebyshev")));
    EXPECT_EQ(errorOf([] { Preconditioner::named("GAMG"); }),
              "Unknown preconditioner GAMG; valid preconditioners are : DIC DILU FDIC diagonal none ILU0");
}

//- The name-only tables, every one in system/keywords.cpp
TEST(Registry, NameOnlyTablesRoundTrip)
{
    for (const std::string& n : orderingNames())
    {
        EXPECT_EQ(orderingName(LdltOrdering::named(n)), n);
    }
    EXPECT_EQ(orderingNames(), (Names{"AMD", "METIS", "natural"}));
    EXPECT_EQ(errorOf([] { LdltOrdering::named("amd"); }), "Unknown ordering amd; valid orderings are : AMD METIS natural");
    for (const std::string& n : executorNames())
    {
        EXPECT_EQ(executorName(executorFromName(n)), n);
    }
    for (const std::string& n : formatNames())
    {
        EXPECT_EQ(formatName(MatrixFormat::named(n)), n);
    }
    for (const std::string& n : methodNames())
    {
        EXPECT_EQ(methodName(KrylovMethod::named(n)), n);
    }
}

} // namespace test
} // namespace gpuLdu
