// SPDX-License-Identifier: GPL-3.0-or-later
// GAMG's agglomeration (multigrid/): the coarse matrices and the restriction against OpenFOAM's
// loops (GAMGSolverAgglomerateMatrix.C, GAMGAgglomerationTemplates.C), bit for bit on both
// backends, and agglomerations that do not fit the fine level refused.

#include "gamgTestSupport.hpp"

namespace gpuLdu::test
{

TYPED_TEST(GamgTest, CoarseMatrixAndRestrictionAreOpenFOAMsSums)
{
    using B = TypeParam;
    for (const LduProblem& p : {poisson3D(9, 7, 5, 1, -1), asymmetric(9, 7, 5, 2)})
    {
        const TestLevel t = agglomerate(p.addressing(), 3);
        const Agglomeration<B> step(p.addressing(), t.view());
        const std::size_t nC = t.nCells, nF = t.lower.size();

        std::vector<double> ldu = p.diag;
        ldu.insert(ldu.end(), p.upperCoeffs.begin(), p.upperCoeffs.end());
        ldu.insert(ldu.end(), p.lowerOrUpper().begin(), p.lowerOrUpper().end());
        const typename B::template Vector<double> fine(ldu.begin(), ldu.end());
        typename B::template Vector<double> coarse(nC + 2*nF);
        const double* f = ptr(fine);
        step.coarseMatrix(f, f + p.nCells, f + p.nCells + p.nFaces(), p.symmetric(), ptr(coarse));
        std::vector<double> got = toHost(coarse);
        got.resize(p.symmetric() ? nC + nF : nC + 2*nF);
        EXPECT_EQ(got, referenceCoarseMatrix(p, t));

        const std::vector<double> x = randomVector(p.nCells, 4);
        std::vector<double> expected(nC, 0.0);
        for (int i = 0; i < p.nCells; ++i)
        {
            expected[t.restrictAddressing[i]] += x[i];
        }
        const typename B::template Vector<double> xd(x.begin(), x.end());
        typename B::template Vector<double> xc(nC);
        step.restrictField(ptr(xd), ptr(xc));
        EXPECT_EQ(toHost(xc), expected);
    }
}

//- The message of the Error an agglomeration throws ("" where it throws none)
template<class B>
std::string agglomerationError(const LduProblem& p, const TestLevel& t)
{
    try
    {
        Agglomeration<B>(p.addressing(), t.view());
    }
    catch (const Error& e)
    {
        return e.what();
    }
    return "";
}

TYPED_TEST(GamgTest, RejectsInconsistentAgglomeration)
{
    using B = TypeParam;
    const LduProblem p = poisson3D(4, 3, 2, 1, -1);
    const auto has = [](const std::string& message, const std::string& part)
    {
        return message.find(part) != std::string::npos;
    };
    EXPECT_EQ(agglomerationError<B>(p, agglomerate(p.addressing(), 5)), "");

    // the first bad cell, face or coarse cell is named
    TestLevel t = agglomerate(p.addressing(), 5);
    t.restrictAddressing[3] = t.nCells;
    t.restrictAddressing[7] = -1;
    EXPECT_TRUE(has(agglomerationError<B>(p, t), "cell 3 restricts to " + std::to_string(t.nCells)));

    t = agglomerate(p.addressing(), 5);
    t.faceRestrictAddressing[2] = -1 - (t.restrictAddressing[p.lower[2]] + 1) % t.nCells;
    t.faceRestrictAddressing[5] = int(t.lower.size());
    EXPECT_TRUE(has(agglomerationError<B>(p, t), "face 2 restricts to " + std::to_string(t.faceRestrictAddressing[2])));

    // a coarse cell of none of the fine cells: one more coarse cell than the fine cells fill
    t = agglomerate(p.addressing(), 5);
    t.nCells += 1;
    EXPECT_TRUE(has(agglomerationError<B>(p, t), "coarse cell " + std::to_string(t.nCells - 1) + " has no fine cells"));
}

} // namespace gpuLdu::test
