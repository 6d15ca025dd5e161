// SPDX-License-Identifier: GPL-3.0-or-later
// SpMV, DIC factor and DIC/diagonal/none application against OpenFOAM's face loops.

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

TYPED_TEST(KernelTest, DicFactorAndApplyAreEquivalentToReference)
{
    for (const LduProblem& p : problems())
    {
        for (Preconditioner type : {Preconditioner::none, Preconditioner::diagonal, Preconditioner::DIC})
        {
            LduSystemImpl<TypeParam> sys(p.addressing());
            sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
            auto& M = sys.preconditioners();
            M.setup(type);
            const std::vector<double> rD = referenceRD(p, type);
            if (type != Preconditioner::none)
            {
                EXPECT_LT(relativeDifference(toHost(M.rD()), rD), tightTolerance);
            }
            const std::vector<double> r = randomVector(p.nCells, 8);
            typename TypeParam::template Vector<double> dr(r.begin(), r.end());
            typename TypeParam::template Vector<double> dw(p.nCells, -12345.0);
            M.apply(ptr(dw), ptr(dr));
            EXPECT_LT(relativeDifference(toHost(dw), referencePrecondition(p, type, rD, r)), tightTolerance)
                << "preconditioner " << int(type) << " on " << p.nCells << " rows";
        }
    }
}

TYPED_TEST(KernelTest, InterfaceTermsEnterAmul)
{
    const LduProblem p = poisson3D(9, 7, 5, 9, -1, true);
    ProblemCoupling coupling(p);
    LduSystemImpl<TypeParam> sys(p.addressing());
    sys.setMatrix(p.diag.data(), p.upperCoeffs.data(), nullptr);
    sys.setInterfaces(coupling.cells(), coupling.sumACorrection);
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
