// SPDX-License-Identifier: GPL-3.0-or-later
// The registries (registry/Registry.hpp): every preconditioner, smoother, Krylov method, matrix
// format and LDL^T ordering keyword, listing and trait comes from its type list
// (precond/PreconditionerList.hpp, multigrid/SmootherList.hpp, krylov/KrylovMethodList.hpp,
// matrix/FormatList.hpp, direct/OrderingList.hpp); the preconditioners' and smoothers' listings
// are OpenFOAM's run-time tables', the others' in list order. Where an entry carries behaviour
// (a loop, a storage), every entry of the list is run on both backends.

#include "referenceKrylov.hpp"

#include "direct/OrderingList.hpp"
#include "krylov/LduSystemImpl.hpp"
#include "matrix/FormatList.hpp"
#include "multigrid/SmootherList.hpp"
#include "precond/PreconditionerList.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
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

//- An entry that does not say whether it is OpenFOAM's (a format, an ordering): it is not
struct PlainEntry
{
    static constexpr Variant variants[] = {{"b", Takes::both, nullptr}, {"a", Takes::both, nullptr}};
};

using TestRegistry = Registry<TypeList<OwnEntry, NativeEntry>>;
using ListOrderRegistry = Registry<TypeList<NativeEntry, PlainEntry>, Listing::inListOrder>;

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
    EXPECT_EQ(TestRegistry::idOf<NativeEntry>(), 1);

    // listed in list order, every variant in its entry's order, OpenFOAM's or not
    EXPECT_EQ(ListOrderRegistry::names(all), (Names{"Sym", "Alias", "Asym", "b", "a"}));
    EXPECT_EQ(errorOf([&] { ListOrderRegistry::fromName("c", "letter", all); }),
              "Unknown letter c; valid letters are : Sym Alias Asym b a");
    EXPECT_TRUE(ListOrderRegistry::openFOAMs(0));
    EXPECT_FALSE(ListOrderRegistry::openFOAMs(ListOrderRegistry::idOf<PlainEntry>()));
    // an entry's variant for a symmetric or an asymmetric matrix
    EXPECT_EQ(TestRegistry::name(TestRegistry::idFor<NativeEntry>(true)), "Sym");
    EXPECT_EQ(TestRegistry::name(TestRegistry::idFor<NativeEntry>(false)), "Asym");
    EXPECT_EQ(TestRegistry::name(TestRegistry::idFor<OwnEntry>(false)), "zOwn");
    EXPECT_EQ(Preconditioner(PreconditionerRegistry::idFor<preconditioners::DicDilu>(true)), Preconditioner::named("DIC"));
    EXPECT_EQ(Preconditioner(PreconditionerRegistry::idFor<preconditioners::DicDilu>(false)), Preconditioner::named("DILU"));
    EXPECT_EQ(ListOrderRegistry::idOf<PlainEntry>(), 2);
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

//- The keywords of a registry's choices that pass keep, the plugin's own only (not OpenFOAM's),
//  in list order: what its listings end with
template<class Registry, class Keep>
Names ownNames(const Keep& keep)
{
    Names own;
    for (const auto& c : Registry::choices())
    {
        if (!c.openFOAMs && keep(*c.variant))
        {
            own.push_back(c.variant->name);
            if (c.variant->alias)
            {
                own.push_back(c.variant->alias);
            }
        }
    }
    return own;
}

//- An unknown keyword's error ends with "valid ...s are :" and exactly the keywords listed
void expectErrorLists(const std::string& error, const Names& listed)
{
    std::string all = "are :";
    for (const std::string& n : listed)
    {
        all += " " + n;
    }
    ASSERT_GE(error.size(), all.size()) << error;
    EXPECT_EQ(error.substr(error.size() - all.size()), all) << error;
}

//- A listing is OpenFOAM's table (given: the oracle, the sortedToc of its symMatrix or asymMatrix
//  constructor table) followed by the plugin's own keywords that pass keep (those the matrix
//  takes), and an unknown keyword's error lists exactly it
template<class Registry, class Keep>
void expectListing(const Names& listed, const Names& openFOAMsTable, const Keep& keep, const std::string& unknownError)
{
    Names expected = openFOAMsTable;
    const Names own = ownNames<Registry>(keep);
    expected.insert(expected.end(), own.begin(), own.end());
    EXPECT_EQ(listed, expected);
    expectErrorLists(unknownError, listed);
}

//- A listing in list order (Listing::inListOrder: formats, orderings, the Krylov methods): every
//  keyword of the registry's list, in its order, and an unknown keyword's error lists exactly it
template<class Registry>
void expectInListOrder(const Names& listed, const std::string& unknownError)
{
    Names all;
    for (const auto& c : Registry::choices())
    {
        all.push_back(c.variant->name);
        if (c.variant->alias)
        {
            all.push_back(c.variant->alias);
        }
    }
    EXPECT_EQ(listed, all);
    expectErrorLists(unknownError, listed);
}

//- OpenFOAM's run-time tables (sortedToc of the symMatrix/asymMatrix constructor tables), then
//  the plugin's own (whatever its list holds: adding an entry edits no test)
TEST(Registry, ListingsAreOpenFOAMsTablesThenThePluginsOwn)
{
    const Names dicTable{"DIC", "FDIC", "diagonal", "none"};
    const auto symmetric = [](const Variant& v) { return takenOn(v.takes, true); };
    const auto asymmetric = [](const Variant& v) { return takenOn(v.takes, false); };
    const Names diluTable{"DILU", "diagonal", "none"};
    for (const char* method : {"PCG", "PBiCGStab"})
    {
        SCOPED_TRACE(method);
        expectListing<PreconditionerRegistry>(preconditionerNames(KrylovMethod::named(method), true), dicTable, symmetric,
            errorOf([&] { preconditionerFromName("DILU", KrylovMethod::named(method), true); }));
    }
    for (const char* method : {"PBiCG", "PBiCGStab"})
    {
        SCOPED_TRACE(method);
        expectListing<PreconditionerRegistry>(preconditionerNames(KrylovMethod::named(method), false), diluTable, asymmetric,
            errorOf([&] { preconditionerFromName("DIC", KrylovMethod::named(method), false); }));
    }
    EXPECT_TRUE(preconditionerNames(KrylovMethod::named("PCG"), false).empty());
    EXPECT_TRUE(preconditionerNames(KrylovMethod::named("PBiCG"), true).empty());
    expectListing<SmootherRegistry>(smootherNames(true), {"DIC", "DICGaussSeidel", "FDIC", "GaussSeidel",
                                    "nonBlockingGaussSeidel", "symGaussSeidel"}, symmetric,
                                    errorOf([] { smootherFromName("DILU", true); }));
    expectListing<SmootherRegistry>(smootherNames(false), {"DILU", "DILUGaussSeidel", "GaussSeidel",
                                    "nonBlockingGaussSeidel", "symGaussSeidel"}, asymmetric,
                                    errorOf([] { smootherFromName("DIC", false); }));
    EXPECT_EQ(errorOf([] { smootherFromName("DIC", false); }).rfind("Unknown smoother DIC; valid smoothers are : ", 0), 0u);
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
    expectListing<PreconditionerRegistry>(preconditionerNames(), {"DIC", "DILU", "FDIC", "diagonal", "none"},
                                          [](const Variant&) { return true; },
                                          errorOf([] { Preconditioner::named("GAMG"); }));
}

//- The executors' table (keywords/keywords.cpp), the one kind without a registry
TEST(Registry, ExecutorTableRoundTrips)
{
    for (const std::string& n : executorNames())
    {
        EXPECT_EQ(executorName(executorFromName(n)), n);
    }
    EXPECT_EQ(executorNames(), (Names{"cpu", "gpu"}));
}

TEST(Registry, EveryKrylovMethodKeywordRoundTrips)
{
    checkRoundTrip<KrylovMethodRegistry>([](const std::string& n) { return KrylovMethod::named(n); },
                                         [](KrylovMethod m) { return methodName(m); }, methodNames());
    // listed in list order (as OpenFOAM's documentation lists them), not sorted
    expectInListOrder<KrylovMethodRegistry>(methodNames(), errorOf([] { KrylovMethod::named("GAMG"); }));
    EXPECT_EQ(errorOf([] { KrylovMethod::named("GAMG"); }).rfind("Unknown solver GAMG; valid solvers are : PCG ", 0), 0u);
    // the matrices OpenFOAM registers each for, from its entry
    EXPECT_TRUE(methodTakes(KrylovMethod::named("PCG"), true));
    EXPECT_FALSE(methodTakes(KrylovMethod::named("PCG"), false));
    EXPECT_FALSE(methodTakes(KrylovMethod::named("PBiCG"), true));
    EXPECT_TRUE(methodTakes(KrylovMethod::named("PBiCG"), false));
    EXPECT_TRUE(methodTakes(KrylovMethod::named("PBiCGStab"), true));
    EXPECT_TRUE(methodTakes(KrylovMethod::named("PBiCGStab"), false));
    EXPECT_TRUE(KrylovMethodRegistry::is<krylovMethods::PBiCG>(KrylovMethod::named("PBiCG").id()));
}

TEST(Registry, EveryFormatKeywordRoundTrips)
{
    checkRoundTrip<FormatRegistry>([](const std::string& n) { return MatrixFormat::named(n); },
                                   [](MatrixFormat f) { return formatName(f); }, formatNames());
    expectInListOrder<FormatRegistry>(formatNames(), errorOf([] { MatrixFormat::named("coo"); }));
    EXPECT_EQ(errorOf([] { MatrixFormat::named("coo"); }).rfind("Unknown matrixFormat coo; valid matrixFormats are : csr ", 0), 0u);
    EXPECT_EQ(MatrixFormat(), MatrixFormat::named("csr"));
    // where each product reads A
    EXPECT_EQ(storageOf(MatrixFormat::named("csr")), FormatStorage::systemCsr);
    for (const char* name : {"ell", "blockedEll", "hyb", "hec"})
    {
        EXPECT_EQ(storageOf(MatrixFormat::named(name)), FormatStorage::converted) << name;
        EXPECT_FALSE(isChosenPerMatrix(MatrixFormat::named(name))) << name;
    }
    EXPECT_TRUE(isChosenPerMatrix(MatrixFormat::named("auto")));
    EXPECT_FALSE(isChosenPerMatrix(MatrixFormat::named("csr")));
}

TEST(Registry, EveryOrderingKeywordRoundTrips)
{
    checkRoundTrip<OrderingRegistry>([](const std::string& n) { return LdltOrdering::named(n); },
                                     [](LdltOrdering o) { return orderingName(o); }, orderingNames());
    expectInListOrder<OrderingRegistry>(orderingNames(), errorOf([] { LdltOrdering::named("amd"); }));
    EXPECT_EQ(errorOf([] { LdltOrdering::named("amd"); }).rfind("Unknown ordering amd; valid orderings are : ", 0), 0u);
    EXPECT_EQ(autoOrdering(4999), LdltOrdering::named("AMD"));
    EXPECT_EQ(autoOrdering(5000), LdltOrdering::named("METIS"));
}

//- Every registered ordering's permutation (visited through the registry, as analyseLdlt does)
//  is a permutation of a 2-D 5-point grid's columns; natural's is the identity, the others'
//  not (they reorder a grid)
TEST(Registry, EveryOrderingPermutes)
{
    const int nx = 12;
    const int n = nx*nx;
    Adjacency adj;
    adj.start.assign(1, 0);
    for (int j = 0; j < n; ++j)
    {
        for (int i : {j - nx, j - 1, j + 1, j + nx})
        {
            const bool sameRow = (i == j - 1 || i == j + 1) ? i/nx == j/nx : true;
            if (i >= 0 && i < n && sameRow)
            {
                adj.rows.push_back(i);
            }
        }
        adj.start.push_back(int(adj.rows.size()));
    }
    std::vector<int> identity(n);
    std::iota(identity.begin(), identity.end(), 0);
    for (const std::string& name : orderingNames())
    {
        std::vector<int> perm;
        OrderingRegistry::visit(LdltOrdering::named(name).id(), [&](auto entry) { perm = decltype(entry)::permutation(adj); });
        std::vector<int> sorted = perm;
        std::sort(sorted.begin(), sorted.end());
        EXPECT_EQ(sorted, identity) << name << " is not a permutation";
        EXPECT_EQ(perm == identity, name == "natural") << name;
    }
}

template<class B>
class RegistryOnBackend : public ::testing::Test {};
TYPED_TEST_SUITE(RegistryOnBackend, Backends);

//- Every registered Krylov method, dispatched through its entry, runs OpenFOAM's loop of that
//  name (testSupport.hpp's referenceSolve): the same iterations and residuals on a matrix it
//  is registered for
TYPED_TEST(RegistryOnBackend, EveryKrylovMethodRunsItsOwnLoop)
{
    const LduProblem symmetric = poisson3D(9, 8, 7, 1, -1);
    const LduProblem asym = asymmetric(9, 8, 7, 3);
    SolverControls c;
    c.tolerance = 1e-10;
    c.relTol = 0;
    c.maxIter = 500;
    for (const std::string& name : methodNames())
    {
        const KrylovMethod method = KrylovMethod::named(name);
        for (const bool sym : {true, false})
        {
            if (!methodTakes(method, sym))
            {
                continue;
            }
            SCOPED_TRACE(name + (sym ? ", symmetric" : ", asymmetric"));
            const LduProblem& p = sym ? symmetric : asym;
            const Preconditioner precon = Preconditioner::named(sym ? "DIC" : "DILU");
            const std::vector<double> b = randomVector(p.nCells, 7);
            std::vector<double> psiRef(p.nCells, 0.0);
            const SolveResult ref = referenceSolve(method, p, psiRef, b, c, precon);
            std::vector<double> psi(p.nCells, 0.0);
            LduSystemImpl<TypeParam> sys(p.addressing());
            sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
            const SolveResult r = sys.solve(method, psi.data(), b.data(), c, precon, Coupling());
            EXPECT_TRUE(r.converged);
            EXPECT_EQ(r.nIterations, ref.nIterations);
            EXPECT_NEAR(r.finalResidual, ref.finalResidual, 1e-6*ref.initialResidual);
        }
    }
}

//- Every registered format, auto included, gives csr's A x and A^T x bit for bit (each sums a
//  row in OpenFOAM's order); setFormat never leaves a format chosen per matrix in use
TYPED_TEST(RegistryOnBackend, EveryFormatMultipliesAsCsr)
{
    const LduProblem p = asymmetric(11, 9, 6, 5);
    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    const std::vector<double> x = randomVector(p.nCells, 3);
    const double* const xd = x.data();
    std::vector<double> csr(p.nCells);
    std::vector<double> csrT(p.nCells);
    typename TypeParam::template Vector<double> xDev(p.nCells);
    typename TypeParam::template Vector<double> yDev(p.nCells);
    TypeParam::upload(ptr(xDev), xd, p.nCells);
    const auto products = [&](MatrixFormat f, std::vector<double>& y, std::vector<double>& yT)
    {
        const MatrixFormat used = sys.setFormat(f);
        EXPECT_FALSE(isChosenPerMatrix(used));
        sys.multiply(xd, y.data());
        sys.tmul(ptr(yDev), ptr(xDev), Coupling());
        TypeParam::download(yT.data(), ptr(yDev), p.nCells);
    };
    products(MatrixFormat::named("csr"), csr, csrT);
    EXPECT_EQ(csr, referenceAmul(p, x));
    for (const std::string& name : formatNames())
    {
        std::vector<double> y(p.nCells);
        std::vector<double> yT(p.nCells);
        products(MatrixFormat::named(name), y, yT);
        EXPECT_EQ(y, csr) << name;
        EXPECT_EQ(yT, csrT) << name;
    }
}

} // namespace test
} // namespace gpuLdu
