// SPDX-License-Identifier: GPL-3.0-or-later
// The Matrix Market reader on malformed and hostile input: every malformed case with its
// "file:line:" message; hostile input (long lines, control bytes, sizes the file cannot fill,
// values out of range, endless or truncated streams) refused before it costs memory or time.

#include "matrixMarketTestSupport.hpp"

#include <chrono>
#include <string>

namespace gpuLdu::test
{

TEST_F(MatrixMarket, CannotOpen)
{
    const std::string path = (dir_/"missing.mtx").string();
    try
    {
        gpuLdu::readMatrixMarket(path);
        ADD_FAILURE() << "no error";
    }
    catch (const Error& e)
    {
        EXPECT_EQ(std::string(e.what()), path + ": cannot open");
    }
}

TEST_F(MatrixMarket, BadBannerOrKind)
{
    expectError("", 1, "missing banner");
    expectError("3 3 1\n1 1 1\n", 1, "missing banner");
    expectError("%%MatrixMarket matrix coordinate real\n3 3 1\n1 1 1\n", 1, "bad banner");
    expectError("%%MatrixMarket vector coordinate real general\n", 1, "unsupported object 'vector'");
    expectError("%%MatrixMarket matrix array real general\n", 1, "unsupported format 'array'");
    expectError("%%MatrixMarket matrix coordinate pattern general\n", 1, "unsupported field 'pattern'");
    expectError("%%MatrixMarket matrix coordinate quaternion general\n", 1, "unsupported field 'quaternion'");
    expectError("%%MatrixMarket matrix coordinate real skew-symmetric\n", 1,
                "unsupported symmetry 'skew-symmetric'");
    expectError("%%MatrixMarket matrix coordinate real hermitian\n", 1, "unsupported symmetry 'hermitian'");
}

TEST_F(MatrixMarket, BadSizeLine)
{
    expectError(generalBanner + "% only comments\n", 3, "end of file before the size line");
    expectError(generalBanner + "% comment\n3 3\n", 3, "bad size line '3 3'");
    expectError(generalBanner + "3 x 1\n", 2, "bad size line");
    expectError(generalBanner + "3 3 1 7\n", 2, "bad size line");
    expectError(generalBanner + "0 0 0\n", 2, "bad size line");
    expectError(generalBanner + "3 3 -1\n", 2, "bad size line");
    expectError(generalBanner + "3 4 1\n1 1 1\n", 2, "non-square matrix: 3 rows, 4 columns");
}

TEST_F(MatrixMarket, BadEntry)
{
    const std::string head = generalBanner + "3 3 3\n1 1 1\n";
    expectError(head + "4 1 1\n", 4, "row index 4 out of range 1..3");
    expectError(head + "1 0 1\n", 4, "column index 0 out of range 1..3");
    expectError(head + "a 1 1\n", 4, "bad row index 'a'");
    expectError(head + "1.0 1 1\n", 4, "bad row index '1.0'");
    expectError(head + "1 2x 1\n", 4, "bad column index '2x'");
    expectError(head + "1 2\n", 4, "missing value");
    expectError(head + "1\n", 4, "missing column index and value");
    expectError(head + "1 2 abc\n", 4, "bad value 'abc'");
    expectError(head + "1 2 1.5x\n", 4, "bad value '1.5x'");
    expectError(head + "1 2 nan\n", 4, "non-finite value 'nan'");
    expectError(head + "1 2 -inf\n", 4, "non-finite value '-inf'");
    expectError(head + "1 2 1.0 junk\n", 4, "trailing junk 'junk'");
    expectError("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 1.5\n", 3,
                "bad integer value '1.5'");
    expectError(symmetricBanner + "3 3 2\n1 1 1\n1 2 1\n", 4, "entry above the diagonal (row 1, column 2)");
}

TEST_F(MatrixMarket, WrongNumberOfEntries)
{
    // too few: found at the end of the file, the line after the last
    expectError(generalBanner + "3 3 3\n1 1 1\n2 2 1\n", 5, "end of file after 2 of the 3 entries");
    expectError(generalBanner + "3 3 3\n1 1 1\n2 2 1\n% trailing comment\n", 6, "end of file after 2 of the 3");
    // too many: at the first entry beyond the count
    expectError(generalBanner + "1 1 1\n1 1 1\n1 1 1\n", 4, "more entries than the 1 of the size line");
}

//- Overflow and underflow alike: strtod's ERANGE is an error, never a value rounded to infinity,
//  zero or a subnormal without a word; zero itself and the extremes of double are values
TEST_F(MatrixMarket, ValueOutOfRange)
{
    const std::string head = generalBanner + "3 3 3\n1 1 1\n";
    for (const std::string value : {"1e999", "-1e400", "1e-400", "-2e-320", "4.9e-324"})
    {
        SCOPED_TRACE(value);
        expectError(head + "1 2 " + value + "\n", 4, "value '" + value + "' out of range");
    }
    expectError("%%MatrixMarket matrix coordinate integer general\n1 1 1\n1 1 99999999999999999999\n", 3,
                "integer value '99999999999999999999' out of range");
    expectError("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 1e-400\n", 3,
                "value '1e-400' out of range");

    const LduMatrixData m = gpuLdu::readMatrixMarket(write("r.mtx", generalBanner +
        "3 3 4\n1 1 1.7976931348623157e308\n2 2 2.2250738585072014e-308\n3 3 0e-400\n1 3 -0.0\n"));
    EXPECT_EQ(m.diag, std::vector<double>({1.7976931348623157e308, 2.2250738585072014e-308, 0}));
}

//- A size line whose rows the entries cannot all reach (an entry fills one row, two in a
//  symmetric file): refused as singular at once, before the rows are allocated (the 50-byte file
//  of issue 18 declared 2e9 rows and took 6.7 GB)
TEST_F(MatrixMarket, SizeLineWithRowsNoEntryReachesIsSingular)
{
    const auto singular = [this](const std::string& text, const std::string& phrase)
    {
        const std::string path = write("singular.mtx", text);
        const auto start = std::chrono::steady_clock::now();
        try
        {
            gpuLdu::readMatrixMarket(path);
            ADD_FAILURE() << "no error for:\n" << text;
        }
        catch (const SingularMatrixError& e)
        {
            EXPECT_THAT(e.what(), HasSubstr(path + ":2: " + phrase));
            EXPECT_THAT(e.what(), HasSubstr("so the matrix is singular"));
        }
        EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
    };
    singular(generalBanner + "2000000000 2000000000 1\n1 1 4\n",
             "2000000000 rows but 1 entries: at least 1999999999 rows have no entry");
    singular(generalBanner + "3 3 2\n1 1 1\n2 2 1\n", "3 rows but 2 entries: at least 1 row has no entry");
    singular(generalBanner + "1 1 0\n", "1 rows but 0 entries");
    singular(symmetricBanner + "5 5 2\n2 1 1\n4 3 1\n", "5 rows but 2 entries in a symmetric file: at least 1 row");

    // within reach: read, the empty rows found afterwards
    const LduMatrixData s = gpuLdu::readMatrixMarket(write("s.mtx", symmetricBanner + "4 4 2\n2 1 1\n4 3 1\n"));
    EXPECT_EQ(s.nCells, 4);
    EXPECT_TRUE(s.zeroRows().empty());
    const LduMatrixData g = gpuLdu::readMatrixMarket(write("g.mtx", generalBanner + "3 3 3\n1 1 1\n1 3 1\n3 3 0\n"));
    EXPECT_EQ(g.zeroRows(), std::vector<int>({1, 2}));
}

//- The sizes a size line declares are checked against the memory there is before anything is
//  allocated, and the message names them
TEST_F(MatrixMarket, DeclaredSizesBeyondMemoryAreRefused)
{
    const std::string text = generalBanner + "% a comment\n3 3 3\n1 1 1\n2 2 1\n3 3 1\n";
    const std::string path = write("m.mtx", text);
    try
    {
        gpuLdu::readMatrixMarket(path, MatrixMarketLimits{100.0});
        ADD_FAILURE() << "no error";
    }
    catch (const Error& e)
    {
        EXPECT_THAT(e.what(), HasSubstr(path + ":3: reading 3 rows and 3 entries needs "));
        EXPECT_THAT(e.what(), HasSubstr("more than the 100 bytes of memory available"));
    }
    EXPECT_EQ(gpuLdu::readMatrixMarket(path, MatrixMarketLimits{1e6}).nCells, 3);
    // a billion entries declared: refused with the host's own memory (far more than 23 GiB)
    expectError(generalBanner + "1000000000 1000000000 100000000000\n1 1 1\n", 2,
                "reading 1000000000 rows and 100000000000 entries needs");
    EXPECT_GT(availableHostMemory(), 0);
}

//- Banner, size and entry lines are at most matrixMarketMaxLineBytes (a CR at the end not
//  counted); a longer one is an error whose message quotes only its start. Comment lines may be
//  longer: skipped, not stored.
TEST_F(MatrixMarket, LongLines)
{
    const std::string head = generalBanner + "1 1 1\n";
    const std::string entry = "1 1 4";
    const std::string longest = entry + std::string(matrixMarketMaxLineBytes - entry.size(), ' ');
    EXPECT_EQ(gpuLdu::readMatrixMarket(write("a.mtx", head + longest + "\n")).diag, std::vector<double>({4}));
    EXPECT_EQ(gpuLdu::readMatrixMarket(write("b.mtx", head + longest + "\r\n")).diag, std::vector<double>({4}));
    expectError(head + longest + " \n", 3, "line longer than 1024 bytes, the most for a banner, size or entry line: '1 1 4 ");

    // a value of a million digits: refused, and quoted only in part
    const std::string digits(1000000, '7');
    const std::string message = errorOf(head + "1 1 " + digits + "\n");
    EXPECT_THAT(message, HasSubstr(":3: line longer than 1024 bytes"));
    EXPECT_THAT(message, HasSubstr("'1 1 777777777777777777777777777777777777...'"));
    EXPECT_LT(message.size(), 250u);

    // a banner of a megabyte (issue 18: a 100 MB banner was printed whole)
    const std::string banner = errorOf("%%MatrixMarket matrix coordinate real general" + digits + "\n1 1 1\n1 1 1\n");
    EXPECT_THAT(banner, HasSubstr("bad.mtx:1: line longer than 1024 bytes"));
    EXPECT_LT(banner.size(), 250u);
    expectError(generalBanner + "1 1 1" + std::string(2000, ' ') + "\n1 1 1\n", 2, "line longer than 1024 bytes");

    // comments of 3 MB, before and between entries, plain and gzip
    const std::string comment = "%" + std::string(3 << 20, 'c') + "\n";
    const std::string text = generalBanner + comment + "2 2 2\n1 1 4\n" + comment + "  " + comment + "2 2 5\n";
    for (const std::string& path : {write("c.mtx", text), writeGzip("c.mtx.gz", text)})
    {
        const LduMatrixData m = gpuLdu::readMatrixMarket(path);
        EXPECT_EQ(m.diag, std::vector<double>({4, 5}));
    }
}

//- A control byte anywhere is an error naming its line and column: a NUL inside an entry made
//  "4\0" "0" read as 40 (issue 18); only tab (a space) and CR before the line's end are taken
TEST_F(MatrixMarket, ControlBytes)
{
    using namespace std::string_literals;
    const std::string issue = generalBanner + "3 3 5\n1 1 4\0\n0\n2 2 4\n3 3 4\n2 1 -1\n3 2 -1\n"s;
    expectError(issue, 3, "control character 0x00 (NUL) at column 6");
    const std::string head = generalBanner + "1 1 1\n";
    expectError(head + "1 1\x01" "4\n", 3, "control character 0x01 at column 4");
    expectError(head + "1 1 4\x7f\n", 3, "control character 0x7f at column 6");
    expectError(head + "1 1\v4\n", 3, "control character 0x0b at column 4");
    expectError(head + "1 1\f4\n", 3, "control character 0x0c at column 4");
    expectError(head + "1 1\r4\n", 3, "control character 0x0d (CR) at column 4");
    expectError(head + "1 1 4\r\r\n", 3, "control character 0x0d (CR) at column 6");
    expectError(generalBanner + "% a \0 in a comment\n1 1 1\n1 1 1\n"s, 2, "control character 0x00 (NUL) at column 5");
    expectError("\0\0\0\0"s, 1, "control character 0x00 (NUL) at column 1");
    expectError("%%MatrixMarket matrix\0 coordinate real general\n"s, 1, "(NUL) at column 22");
    // tab separates words; CR ends lines (and the file)
    EXPECT_EQ(gpuLdu::readMatrixMarket(write("t.mtx", head + "1\t1\t 4\r")).diag, std::vector<double>({4}));
}

//- /dev/zero, an endless stream of NULs, ends in an error at once (it used to hang)
TEST_F(MatrixMarket, DevZeroFailsAtOnce)
{
    const auto start = std::chrono::steady_clock::now();
    try
    {
        gpuLdu::readMatrixMarket("/dev/zero");
        ADD_FAILURE() << "no error";
    }
    catch (const Error& e)
    {
        EXPECT_THAT(e.what(), HasSubstr("/dev/zero:1: control character 0x00 (NUL) at column 1"));
    }
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1.0);
}

//- A word of the file is quoted in a message to at most 40 characters and "..."
TEST_F(MatrixMarket, MessagesQuoteWordsShort)
{
    const std::string word(500, 'x');
    const std::string message = errorOf(generalBanner + "1 1 1\n1 1 " + word + "\n");
    EXPECT_THAT(message, HasSubstr(":3: bad value '" + word.substr(0, 40) + "...'"));
    EXPECT_LT(message.size(), 200u);
    expectError(generalBanner + "1 1 1\n1 " + word + " 1\n", 3, "bad column index '" + word.substr(0, 40) + "...'");
    expectError(generalBanner + "1 1 " + word + "\n", 2, "bad size line '1 1 xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'");
}

TEST_F(MatrixMarket, TruncatedGzipIsReadError)
{
    std::string text = generalBanner + "1000 1000 1000\n";
    for (int i = 1; i <= 1000; ++i)
    {
        text += std::to_string(i) + " " + std::to_string(i) + " " + std::to_string(1.0/i) + "\n";
    }
    const std::string path = writeGzip("t.mtx.gz", text);
    fs::resize_file(path, fs::file_size(path)/2);
    try
    {
        gpuLdu::readMatrixMarket(path);
        ADD_FAILURE() << "no error";
    }
    catch (const Error& e)
    {
        EXPECT_THAT(e.what(), HasSubstr(path + ":"));
        EXPECT_THAT(e.what(), HasSubstr(": read error: "));
    }
}

} // namespace gpuLdu::test
