// SPDX-License-Identifier: GPL-3.0-or-later
// The Matrix Market reader on well-formed files: small files written here (plain and gzip,
// general, symmetric, complex, duplicates summed), and every matrix of tests/data against an
// independent scan. Malformed and hostile input: matrixMarketErrorsTest.cpp.

#include "matrixMarketTestSupport.hpp"

#include <cmath>
#include <cstdio>
#include <set>
#include <utility>

namespace gpuLdu::test
{

TEST_F(MatrixMarket, ReadsGeneralFileIntoSortedFacesWithExplicitZeros)
{
    // A = [4 -1 0; 0 5 -2; -3 0 6], entries out of order, comments, a blank line, CRLF ends,
    // a case-insensitive banner
    const LduMatrixData m = gpuLdu::readMatrixMarket(write("a.mtx",
        "%%MatrixMarket Matrix Coordinate Real General\r\n"
        "% a comment\r\n"
        "\r\n"
        "  3 3 6\r\n"
        "3 1 -3.0\r\n"
        "1 1 4\r\n"
        "% a comment between entries\r\n"
        "2 3 -2e0\r\n"
        "1 2 -1.0\r\n"
        "2 2 5\r\n"
        "3 3 6.0\r\n"));
    EXPECT_EQ(m.nCells, 3);
    EXPECT_EQ(m.nFileEntries, 6);
    EXPECT_FALSE(m.symmetricFile);
    EXPECT_FALSE(m.symmetric());
    EXPECT_EQ(m.diag, std::vector<double>({4, 5, 6}));
    EXPECT_EQ(m.lower, std::vector<int>({0, 0, 1}));
    EXPECT_EQ(m.upper, std::vector<int>({1, 2, 2}));
    EXPECT_EQ(m.upperCoeffs, std::vector<double>({-1, 0, -2}));
    EXPECT_EQ(m.lowerCoeffs, std::vector<double>({0, -3, 0}));
    const LduAddressingView addr = m.addressing();
    EXPECT_EQ(addr.nCells, 3);
    EXPECT_EQ(addr.nFaces, 3);
    EXPECT_EQ(addr.lower, m.lower.data());
    EXPECT_EQ(addr.upper, m.upper.data());
}

TEST_F(MatrixMarket, ReadsSymmetricFileWithIntegerValues)
{
    const LduMatrixData m = gpuLdu::readMatrixMarket(write("s.mtx",
        "%%MatrixMarket matrix coordinate integer symmetric\n"
        "% lower triangle only\n"
        "4 4 6\n"
        "1 1 2\n"
        "2 1 -1\n"
        "2 2 3\n"
        "4 2 -7\n"
        "3 3 +4\n"
        "4 4 5\n"));
    EXPECT_EQ(m.nCells, 4);
    EXPECT_TRUE(m.symmetricFile);
    EXPECT_TRUE(m.symmetric());
    EXPECT_EQ(m.diag, std::vector<double>({2, 3, 4, 5}));
    EXPECT_EQ(m.lower, std::vector<int>({0, 1}));
    EXPECT_EQ(m.upper, std::vector<int>({1, 3}));
    EXPECT_EQ(m.upperCoeffs, std::vector<double>({-1, -7}));
    EXPECT_EQ(m.lowerCoeffs, m.upperCoeffs);
}

//- Complex files: the imaginary parts beside the real ones; symmetric (A = A^T, lower triangle
//  mirrored without conjugation) and general; a general file holding a Hermitian matrix is seen
//  as Hermitian, not symmetric; the hermitian banner and a missing imaginary part are errors
TEST_F(MatrixMarket, ReadsComplexFiles)
{
    const LduMatrixData s = gpuLdu::readMatrixMarket(write("c.mtx",
        "%%MatrixMarket matrix coordinate complex symmetric\n"
        "3 3 4\n"
        "1 1 2 0.5\n"
        "2 1 -1 3\n"
        "2 2 4 -1\n"
        "3 3 1 0\n"));
    EXPECT_TRUE(s.complexValues);
    EXPECT_TRUE(s.symmetric());
    EXPECT_FALSE(s.hermitian());
    EXPECT_EQ(s.diag, std::vector<double>({2, 4, 1}));
    EXPECT_EQ(s.diagImag, std::vector<double>({0.5, -1, 0}));
    EXPECT_EQ(s.lower, std::vector<int>({0}));
    EXPECT_EQ(s.upper, std::vector<int>({1}));
    EXPECT_EQ(s.upperCoeffs, std::vector<double>({-1}));
    EXPECT_EQ(s.upperImag, std::vector<double>({3}));
    EXPECT_EQ(s.lowerImag, s.upperImag);

    const LduMatrixData h = gpuLdu::readMatrixMarket(write("h.mtx",
        "%%MatrixMarket matrix coordinate complex general\n"
        "2 2 4\n"
        "1 1 2 0\n"
        "2 1 1 1\n"
        "1 2 1 -1\n"
        "2 2 3 0\n"));
    EXPECT_TRUE(h.complexValues);
    EXPECT_FALSE(h.symmetric());
    EXPECT_TRUE(h.hermitian());
    EXPECT_EQ(h.upperImag, std::vector<double>({-1}));
    EXPECT_EQ(h.lowerImag, std::vector<double>({1}));

    const LduMatrixData real = gpuLdu::readMatrixMarket(write("r.mtx", symmetricBanner + "1 1 1\n1 1 2\n"));
    EXPECT_FALSE(real.complexValues);
    EXPECT_TRUE(real.diagImag.empty());
    EXPECT_FALSE(real.hermitian());

    expectError("%%MatrixMarket matrix coordinate complex hermitian\n", 1, "is not complex symmetric");
    expectError("%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n1 1 2\n", 3,
                "missing imaginary part");
    expectError("%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n1 1 2 0 7\n", 3,
                "trailing junk '7'");
    expectError("%%MatrixMarket matrix coordinate complex symmetric\n2 2 1\n1 1 2 inf\n", 3,
                "non-finite value 'inf'");
}

TEST_F(MatrixMarket, SumsDuplicates)
{
    const LduMatrixData m = gpuLdu::readMatrixMarket(write("d.mtx", generalBanner +
        "2 2 6\n"
        "1 1 1.5\n"
        "2 1 0.25\n"
        "1 1 2.5\n"
        "2 1 0.5\n"
        "1 2 -1\n"
        "2 2 3\n"));
    EXPECT_EQ(m.nFileEntries, 6);
    EXPECT_EQ(m.diag, std::vector<double>({4, 3}));
    EXPECT_EQ(m.upperCoeffs, std::vector<double>({-1}));
    EXPECT_EQ(m.lowerCoeffs, std::vector<double>({0.75}));
    // (1, 1) again at line 5, (2, 1) again at line 6; (1, 2) is not (2, 1) in a general file
    EXPECT_EQ(m.nDuplicates, 2);
    EXPECT_EQ(m.firstDuplicateLine, 5);

    // in a symmetric file, the lower triangle's entry twice: mirrored once, summed
    const LduMatrixData s = gpuLdu::readMatrixMarket(write("ds.mtx", symmetricBanner +
        "2 2 4\n"
        "2 1 -1\n"
        "1 1 4\n"
        "2 2 4\n"
        "2 1 -2\n"));
    EXPECT_EQ(s.nDuplicates, 1);
    EXPECT_EQ(s.firstDuplicateLine, 6);
    EXPECT_EQ(s.upperCoeffs, std::vector<double>({-3}));
    EXPECT_EQ(s.lowerCoeffs, std::vector<double>({-3}));

    const LduMatrixData none = gpuLdu::readMatrixMarket(write("n.mtx", generalBanner + "2 2 3\n1 2 1\n2 1 1\n2 2 1\n"));
    EXPECT_EQ(none.nDuplicates, 0);
    EXPECT_EQ(none.firstDuplicateLine, 0);
}

TEST_F(MatrixMarket, ReadsGzipLikePlain)
{
    const std::string text = symmetricBanner + "3 3 4\n1 1 2\n2 1 -1\n3 2 -1\n3 3 2\n";
    const LduMatrixData plain = gpuLdu::readMatrixMarket(write("p.mtx", text));
    const LduMatrixData gz = gpuLdu::readMatrixMarket(writeGzip("p.mtx.gz", text));
    EXPECT_EQ(gz.nCells, 3);
    EXPECT_EQ(gz.diag, plain.diag);
    EXPECT_EQ(gz.lower, plain.lower);
    EXPECT_EQ(gz.upper, plain.upper);
    EXPECT_EQ(gz.upperCoeffs, std::vector<double>({-1, -1}));
    EXPECT_EQ(gz.lowerCoeffs, plain.lowerCoeffs);
}

TEST_F(MatrixMarket, ProblemOfSymmetricMatrixHasNoLowerCoeffs)
{
    const LduProblem s = readMatrixMarket(write("s.mtx", symmetricBanner + "2 2 3\n1 1 2\n2 1 -1\n2 2 2\n"));
    EXPECT_TRUE(s.symmetric());
    EXPECT_EQ(s.upperCoeffs, std::vector<double>({-1}));
    const LduProblem a = readMatrixMarket(write("a.mtx", generalBanner + "2 2 3\n1 1 2\n2 1 -1\n2 2 2\n"));
    EXPECT_FALSE(a.symmetric());
    EXPECT_EQ(a.lowerCoeffs, std::vector<double>({-1}));
}

//- What a plain scan of a well-formed Matrix Market file finds: the size line, the entries, the
//  distinct off-diagonal pairs {i, j}, the sum of A's values and of their magnitudes (the oracle
//  for tests/data)
struct FileScan
{
    int rows = 0;
    int cols = 0;
    long entries = 0;
    long entriesRead = 0;
    std::set<std::pair<int, int>> pairs;
    double sum = 0;
    double sumMag = 0;
};

FileScan scan(const std::string& path)
{
    FileScan s;
    gzFile in = gzopen(path.c_str(), "rb");
    char line[1024];
    bool symmetricFile = false;
    bool sizeRead = false;
    while (gzgets(in, line, sizeof line))
    {
        if (line[0] == '%')
        {
            const std::string text(line);
            if (text.rfind("%%MatrixMarket", 0) == 0)
            {
                symmetricFile = text.find(" symmetric") != std::string::npos;
            }
            continue;
        }
        int i = 0;
        int j = 0;
        double v = 0;
        if (!sizeRead)
        {
            sizeRead = std::sscanf(line, "%d %d %ld", &s.rows, &s.cols, &s.entries) == 3;
        }
        else if (std::sscanf(line, "%d %d %lf", &i, &j, &v) == 3)
        {
            const int copies = symmetricFile && i != j ? 2 : 1;
            ++s.entriesRead;
            s.sum += copies*v;
            s.sumMag += copies*std::abs(v);
            if (i != j)
            {
                s.pairs.insert({std::min(i, j), std::max(i, j)});
            }
        }
    }
    gzclose(in);
    return s;
}

TEST_F(MatrixMarket, ReadsEveryDataFile)
{
    int nFiles = 0;
    for (const auto& file : fs::directory_iterator(dataFile("")))
    {
        const std::string path = file.path().string();
        if (path.size() < 7 || path.compare(path.size() - 7, 7, ".mtx.gz") != 0)
        {
            continue;
        }
        SCOPED_TRACE(path);
        ++nFiles;
        const FileScan s = scan(path);
        const LduMatrixData m = gpuLdu::readMatrixMarket(path);
        EXPECT_EQ(m.nCells, s.rows);
        EXPECT_EQ(s.rows, s.cols);
        EXPECT_EQ(m.nFileEntries, s.entries);
        EXPECT_EQ(s.entriesRead, s.entries);
        // stored entries after the symmetric expansion: the diagonal and both sides of each pair
        const long nFaces = long(m.lower.size());
        EXPECT_EQ(nFaces, long(s.pairs.size()));
        ASSERT_EQ(long(m.upper.size()), nFaces);
        ASSERT_EQ(long(m.upperCoeffs.size()), nFaces);
        ASSERT_EQ(long(m.lowerCoeffs.size()), nFaces);
        ASSERT_EQ(int(m.diag.size()), m.nCells);
        double sum = 0;
        for (int f = 0; f < nFaces; ++f)
        {
            EXPECT_LT(m.lower[f], m.upper[f]);
            EXPECT_LT(m.upper[f], m.nCells);
            if (f > 0)
            {
                EXPECT_LT(std::make_pair(m.lower[f - 1], m.upper[f - 1]), std::make_pair(m.lower[f], m.upper[f]));
            }
            sum += m.upperCoeffs[f] + m.lowerCoeffs[f];
        }
        for (double d : m.diag)
        {
            sum += d;
        }
        EXPECT_NEAR(sum, s.sum, 1e-12*s.sumMag);
        if (m.symmetricFile)
        {
            EXPECT_TRUE(m.symmetric());
        }
        EXPECT_EQ(m.nDuplicates, 0);
        // dwg961a has 256 rows without an entry (ldltTest.cpp reads it as its singular case), the
        // others none
        EXPECT_EQ(m.zeroRows().size(), path.find("dwg961a") != std::string::npos ? 256u : 0u);
    }
    EXPECT_GT(nFiles, 0);
}

} // namespace gpuLdu::test
