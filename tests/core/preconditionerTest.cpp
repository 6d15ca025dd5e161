// SPDX-License-Identifier: GPL-3.0-or-later
// SpMV, Tmul, and the preconditioners (factor, precondition, preconditionT) against OpenFOAM's
// face loops and a sequential ILU(0).

#include "testSupport.hpp"

namespace gpuLdu::test
{

template<class B>
class KernelTest : public ::testing::Test {};
TYPED_TEST_SUITE(KernelTest, Backends);

// Compilers may contract a*b - c into one fused operation on one backend and not the other, so
// the backends are held to 1e-13 relative rather than to bit equality.
constexpr double tightTolerance = 1e-13;

std::vector<LduProblem> problems()
{
    return {
        poisson3D(17, 13, 11, 5),                           // 2431 rows: several thread blocks
        poisson3D(12, 9, 8, 6, -1),                         // OpenFOAM's pressure sign
        readMatrixMarket(dataFile("gr_30_30.mtx.gz")),
        readMatrixMarket(dataFile("openfoam_elbow_p0.mtx.gz")),
    };
}

std::vector<LduProblem> asymmetricProblems()
{
    return {
        asymmetric(16, 12, 10, 7),
        readMatrixMarket(dataFile("sherman5.mtx.gz")),
        readMatrixMarket(dataFile("orsirr_1.mtx.gz")),
        readMatrixMarket(dataFile("openfoam_elbow_Ux0.mtx.gz")),
    };
}

TYPED_TEST(KernelTest, SpmvIsEquivalentToReference)
{
    for (const LduProblem& p : problems())
    {
        LduSystemImpl<TypeParam> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
        const std::vector<double> x = randomVector(p.nCells, 7);
        typename TypeParam::template Vector<double> dx(x.begin(), x.end());
        typename TypeParam::template Vector<double> dy(p.nCells, -12345.0);
        sys.amul(ptr(dy), ptr(dx), Coupling());
        EXPECT_LT(relativeDifference(toHost(dy), referenceAmul(p, x)), tightTolerance);
    }
}

//- Factor, precondition and preconditionT of a preconditioner against the reference.
template<class B>
void checkPreconditioner(const LduProblem& p, Preconditioner type)
{
    LduSystemImpl<B> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
    auto& M = sys.preconditioners();
    M.setup(type);
    const ReferencePreconditioner ref(p, type);
    // each preconditioner's own state: ILU0's factors, the others' rD
    if (PreconditionerRegistry::is<preconditioners::Ilu0>(type.id()))
    {
        EXPECT_LT(relativeDifference(toHost(M.template instance<preconditioners::Ilu0>().lu()), ref.luValues()),
                  tightTolerance);
    }
    else if (PreconditionerRegistry::is<preconditioners::Diagonal>(type.id()))
    {
        EXPECT_LT(relativeDifference(toHost(M.template instance<preconditioners::Diagonal>().rD()), ref.rD()),
                  tightTolerance);
    }
    else if (PreconditionerRegistry::is<preconditioners::DicDilu>(type.id()))
    {
        EXPECT_LT(relativeDifference(toHost(M.template instance<preconditioners::DicDilu>().rD()), ref.rD()),
                  tightTolerance);
    }
    const std::vector<double> r = randomVector(p.nCells, 8);
    typename B::template Vector<double> dr(r.begin(), r.end());
    typename B::template Vector<double> dw(p.nCells, -12345.0);
    const std::vector<double> wRef = ref.apply(r);
    const std::vector<double> wRefT = ref.apply(r, true);
    M.apply(ptr(dw), ptr(dr));
    EXPECT_LT(relativeDifference(toHost(dw), wRef), tightTolerance)
        << "precondition, type " << preconditionerName(type) << " on " << p.nCells << " rows";
    // the host's DIC/DILU sweeps (a row's terms four at a time, subtractRowTerms) are OpenFOAM's
    // face loops bit for bit, rows of any number of terms
    if constexpr (B::executor == Executor::cpu)
    {
        if (PreconditionerRegistry::is<preconditioners::DicDilu>(type.id()))
        {
            EXPECT_EQ(toHost(dw), wRef) << preconditionerName(type) << " on " << p.nCells << " rows";
            std::vector<double> wT(p.nCells);
            M.applyT(wT.data(), r.data());
            EXPECT_EQ(wT, wRefT) << preconditionerName(type) << "^T on " << p.nCells << " rows";
        }
    }
    thrust::fill(dw.begin(), dw.end(), -12345.0);
    M.applyT(ptr(dw), ptr(dr));
    EXPECT_LT(relativeDifference(toHost(dw), wRefT), tightTolerance)
        << "preconditionT, type " << preconditionerName(type) << " on " << p.nCells << " rows";
    // once more, in place (w = r) and with another r: each apply leaves its scratch as the next
    // one needs it (the GPU sweeps wait on values, so a stale value would be taken as ready)
    const std::vector<double> r2 = randomVector(p.nCells, 9);
    typename B::template Vector<double> dv(r2.begin(), r2.end());
    M.apply(ptr(dv), ptr(dv));
    EXPECT_LT(relativeDifference(toHost(dv), ref.apply(r2)), tightTolerance)
        << "precondition in place, type " << preconditionerName(type) << " on " << p.nCells << " rows";
}

TYPED_TEST(KernelTest, SymmetricPreconditionersAreEquivalentToReference)
{
    for (const LduProblem& p : problems())
    {
        for (Preconditioner type : {Preconditioner::none, Preconditioner::named("diagonal"), Preconditioner::named("DIC"), Preconditioner::named("ILU0")})
        {
            checkPreconditioner<TypeParam>(p, type);
        }
    }
}

TYPED_TEST(KernelTest, AsymmetricPreconditionersAreEquivalentToReference)
{
    for (const LduProblem& p : asymmetricProblems())
    {
        for (Preconditioner type : {Preconditioner::named("diagonal"), Preconditioner::named("DILU"), Preconditioner::named("ILU0")})
        {
            checkPreconditioner<TypeParam>(p, type);
        }
    }
}

TYPED_TEST(KernelTest, Ilu0FillsWithinThePatternWhereDiluDoesNot)
{
    const LduProblem p = withTriangles(23, 19, 9);
    checkPreconditioner<TypeParam>(p, Preconditioner::named("ILU0"));
    checkPreconditioner<TypeParam>(p, Preconditioner::named("DILU"));
    // with triangles in the graph the two are different preconditioners
    const std::vector<double> r = randomVector(p.nCells, 10);
    EXPECT_GT(relativeDifference(ReferencePreconditioner(p, Preconditioner::named("ILU0")).apply(r),
                                 ReferencePreconditioner(p, Preconditioner::named("DILU")).apply(r)), 1e-3);
}

TYPED_TEST(KernelTest, TmulIsEquivalentToReference)
{
    for (const LduProblem& p : asymmetricProblems())
    {
        LduSystemImpl<TypeParam> sys(p.addressing());
        sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), p.lowerOrNull());
        const std::vector<double> x = randomVector(p.nCells, 11);
        typename TypeParam::template Vector<double> dx(x.begin(), x.end());
        typename TypeParam::template Vector<double> dy(p.nCells, -12345.0);
        sys.tmul(ptr(dy), ptr(dx), Coupling());
        EXPECT_LT(relativeDifference(toHost(dy), referenceTmul(p, x)), tightTolerance);
        sys.amul(ptr(dy), ptr(dx), Coupling());
        EXPECT_LT(relativeDifference(toHost(dy), referenceAmul(p, x)), tightTolerance);
    }
}

TYPED_TEST(KernelTest, InterfaceTermsEnterAmul)
{
    const LduProblem p = poisson3D(9, 7, 5, 9, -1, true);
    ProblemCoupling coupling(p);
    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
    sys.setInterfaces(coupling.cells());
    const std::vector<double> x = randomVector(p.nCells, 10);
    typename TypeParam::template Vector<double> dx(x.begin(), x.end());
    typename TypeParam::template Vector<double> dy(p.nCells);
    sys.amul(ptr(dy), ptr(dx), coupling);
    EXPECT_LT(relativeDifference(toHost(dy), referenceAmul(p, x)), tightTolerance);

    // the same product without the coupling differs: the interface term is really there
    sys.amul(ptr(dy), ptr(dx), Coupling());
    EXPECT_GT(relativeDifference(toHost(dy), referenceAmul(p, x)), 1e-3);
}

} // namespace gpuLdu::test
