// SPDX-License-Identifier: GPL-3.0-or-later
// The Matrix Market reader: lines through zlib (which reads plain and gzip files alike), each
// word parsed to its end with strtol/strtod, the faces built by sorting the off-diagonal entries.

#include "gpuLdu/matrixMarket.hpp"

#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <string_view>

namespace gpuLdu
{

namespace
{

//- The lines of a plain or gzip file, numbered from 1, each split into words.
class LineReader
{
    std::string path_;
    gzFile file_;
    long number_ = 0;
    std::string line_;
    std::vector<std::string_view> words_;

public:
    explicit LineReader(const std::string& path)
    :
        path_(path),
        file_(gzopen(path.c_str(), "rb"))
    {
        if (!file_)
        {
            throw Error(path + ": cannot open");
        }
    }

    ~LineReader()
    {
        gzclose(file_);
    }

    LineReader(const LineReader&) = delete;
    LineReader& operator=(const LineReader&) = delete;

    //- Read the next line into line() and words(); false at the end of the file
    bool next()
    {
        line_.clear();
        char buf[4096];
        while (gzgets(file_, buf, sizeof buf))
        {
            line_ += buf;
            if (line_.back() == '\n')
            {
                break;
            }
        }
        // a line without its end: the end of the file or a read error (zlib hands out the lines
        // it decompressed before the error first)
        int status = Z_OK;
        const char* message = gzerror(file_, &status);
        if ((line_.empty() || line_.back() != '\n') && status != Z_OK)
        {
            failAfterEnd(std::string("read error: ") + message);
        }
        if (line_.empty())
        {
            return false;
        }
        ++number_;
        splitWords();
        return true;
    }

    //- Read up to the next line that is neither blank nor a comment; false at the end
    bool nextData()
    {
        while (next())
        {
            if (!words_.empty() && words_[0][0] != '%')
            {
                return true;
            }
        }
        return false;
    }

    const std::string& line() const
    {
        return line_;
    }

    const std::vector<std::string_view>& words() const
    {
        return words_;
    }

    //- Throw "<path>:<line>: <what>" for the line last read
    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(path_ + ":" + std::to_string(number_) + ": " + what);
    }

    //- The same for the line after it (where the end of the file was found)
    [[noreturn]] void failAfterEnd(const std::string& what) const
    {
        throw Error(path_ + ":" + std::to_string(number_ + 1) + ": " + what);
    }

private:
    void splitWords()
    {
        while (!line_.empty() && (line_.back() == '\n' || line_.back() == '\r'))
        {
            line_.pop_back();
        }
        words_.clear();
        const std::string_view s(line_);
        const char* space = " \t\r\v\f";
        for (auto start = s.find_first_not_of(space); start != s.npos; )
        {
            const auto end = std::min(s.find_first_of(space, start), s.size());
            words_.push_back(s.substr(start, end - start));
            start = s.find_first_not_of(space, end);
        }
    }
};

//- The word as a whole integer; false if it is not one or out of the range of long
bool toLong(std::string_view word, long& value)
{
    // the word is followed by a space or the string's end, where strtol stops
    char* end = nullptr;
    errno = 0;
    value = std::strtol(word.data(), &end, 10);
    return end == word.data() + word.size() && errno == 0;
}

//- The word as a whole floating-point number
bool toDouble(std::string_view word, double& value)
{
    char* end = nullptr;
    value = std::strtod(word.data(), &end);
    return end == word.data() + word.size();
}

std::string quoted(std::string_view word)
{
    return "'" + std::string(word) + "'";
}

std::string lowerCase(std::string_view word)
{
    std::string s(word);
    for (char& c : s)
    {
        c = char(std::tolower(static_cast<unsigned char>(c)));
    }
    return s;
}

//- What the banner says
struct Kind
{
    bool integer = false;
    bool complex = false;
    bool symmetric = false;
};

Kind readBanner(LineReader& in)
{
    const std::string expected =
        "expected '%%MatrixMarket matrix coordinate <real|integer|complex> <general|symmetric>'";
    if (!in.next())
    {
        in.failAfterEnd("empty file: missing banner, " + expected);
    }
    const auto& w = in.words();
    if (w.empty() || lowerCase(w[0]) != "%%matrixmarket")
    {
        in.fail("missing banner, " + expected);
    }
    if (w.size() != 5)
    {
        in.fail("bad banner " + quoted(in.line()) + ", " + expected);
    }
    const std::string object = lowerCase(w[1]);
    const std::string format = lowerCase(w[2]);
    const std::string field = lowerCase(w[3]);
    const std::string symmetry = lowerCase(w[4]);
    if (object != "matrix")
    {
        in.fail("unsupported object " + quoted(w[1]) + ": only matrix");
    }
    if (format != "coordinate")
    {
        in.fail("unsupported format " + quoted(w[2]) + ": only coordinate");
    }
    if (field != "real" && field != "integer" && field != "complex")
    {
        in.fail("unsupported field " + quoted(w[3]) + ": only real, integer or complex");
    }
    if (symmetry == "hermitian")
    {
        in.fail("unsupported symmetry " + quoted(w[4]) + ": a Hermitian matrix (A = A^H) is not complex"
                " symmetric (A = A^T), which is what LDLT factors (L D L^T, no conjugation)");
    }
    if (symmetry != "general" && symmetry != "symmetric")
    {
        in.fail("unsupported symmetry " + quoted(w[4]) + ": only general or symmetric");
    }
    return {field == "integer", field == "complex", symmetry == "symmetric"};
}

//- The size line: the number of rows (= columns) and of entries
std::pair<int, long> readSize(LineReader& in)
{
    if (!in.nextData())
    {
        in.failAfterEnd("end of file before the size line");
    }
    const auto& w = in.words();
    long rows = 0;
    long cols = 0;
    long nnz = 0;
    if (w.size() != 3 || !toLong(w[0], rows) || !toLong(w[1], cols) || !toLong(w[2], nnz)
     || rows < 1 || cols < 1 || nnz < 0)
    {
        in.fail("bad size line " + quoted(in.line()) + ", expected '<rows> <columns> <entries>'"
                " (rows and columns positive)");
    }
    if (rows != cols)
    {
        in.fail("non-square matrix: " + std::to_string(rows) + " rows, " + std::to_string(cols)
              + " columns");
    }
    if (rows > INT_MAX)
    {
        in.fail("too many rows for 32-bit indices: " + std::to_string(rows));
    }
    return {int(rows), nnz};
}

//- A 0-based row or column index
int readIndex(const LineReader& in, std::string_view word, const char* what, int n)
{
    long i = 0;
    if (!toLong(word, i))
    {
        in.fail(std::string("bad ") + what + " index " + quoted(word));
    }
    if (i < 1 || i > n)
    {
        in.fail(std::string(what) + " index " + std::to_string(i) + " out of range 1.."
              + std::to_string(n));
    }
    return int(i - 1);
}

double readValue(const LineReader& in, std::string_view word, bool integer)
{
    if (integer)
    {
        long i = 0;
        if (!toLong(word, i))
        {
            in.fail("bad integer value " + quoted(word));
        }
        return double(i);
    }
    double v = 0;
    if (!toDouble(word, v))
    {
        in.fail("bad value " + quoted(word));
    }
    if (!std::isfinite(v))
    {
        in.fail("non-finite value " + quoted(word));
    }
    return v;
}

//- An off-diagonal entry as a contribution to face (lower, upper)
struct FaceEntry
{
    int lower;
    int upper;
    double upperCoeff;
    double lowerCoeff;
    double upperImag;
    double lowerImag;
};

//- Sum the entries of each face into the LDU arrays, faces sorted by lower then upper.
//  The sort is stable, so duplicates are summed in the file's order.
void buildFaces(std::vector<FaceEntry>& entries, LduMatrixData& m)
{
    const auto faceOrder = [](const FaceEntry& a, const FaceEntry& b)
    {
        return a.lower < b.lower || (a.lower == b.lower && a.upper < b.upper);
    };
    std::stable_sort(entries.begin(), entries.end(), faceOrder);
    for (auto face = entries.begin(); face != entries.end(); )
    {
        const auto end = std::upper_bound(face, entries.end(), *face, faceOrder);
        double upperCoeff = 0;
        double lowerCoeff = 0;
        double upperImag = 0;
        double lowerImag = 0;
        for (auto e = face; e != end; ++e)
        {
            upperCoeff += e->upperCoeff;
            lowerCoeff += e->lowerCoeff;
            upperImag += e->upperImag;
            lowerImag += e->lowerImag;
        }
        m.lower.push_back(face->lower);
        m.upper.push_back(face->upper);
        m.upperCoeffs.push_back(upperCoeff);
        m.lowerCoeffs.push_back(lowerCoeff);
        if (m.complexValues)
        {
            m.upperImag.push_back(upperImag);
            m.lowerImag.push_back(lowerImag);
        }
        face = end;
    }
}

} // namespace


bool LduMatrixData::hermitian() const
{
    if (!complexValues || upperCoeffs != lowerCoeffs)
    {
        return false;
    }
    bool conjugate = false;
    for (std::size_t f = 0; f < upperImag.size(); ++f)
    {
        if (upperImag[f] != -lowerImag[f])
        {
            return false;
        }
        conjugate = conjugate || upperImag[f] != 0;
    }
    for (const double d : diagImag)
    {
        if (d != 0)
        {
            return false;
        }
    }
    return conjugate;
}


LduMatrixData readMatrixMarket(const std::string& path)
{
    LineReader in(path);
    const Kind kind = readBanner(in);
    const auto [n, nnz] = readSize(in);

    LduMatrixData m;
    m.nCells = n;
    m.nFileEntries = nnz;
    m.symmetricFile = kind.symmetric;
    m.diag.assign(n, 0.0);
    m.complexValues = kind.complex;
    if (kind.complex)
    {
        m.diagImag.assign(n, 0.0);
    }
    const std::size_t words = kind.complex ? 4 : 3;
    std::vector<FaceEntry> offDiagonal;
    long count = 0;
    while (in.nextData())
    {
        const auto& w = in.words();
        if (count == nnz)
        {
            in.fail("more entries than the " + std::to_string(nnz) + " of the size line");
        }
        if (w.size() < words)
        {
            in.fail(w.size() == 1 ? "missing column index and value"
                  : w.size() == 2 ? "missing value"
                  : "missing imaginary part");
        }
        if (w.size() > words)
        {
            in.fail("trailing junk " + quoted(w[words]) + " after the entry");
        }
        const int i = readIndex(in, w[0], "row", n);
        const int j = readIndex(in, w[1], "column", n);
        const double v = readValue(in, w[2], kind.integer);
        const double vi = kind.complex ? readValue(in, w[3], false) : 0.0;
        ++count;
        if (i == j)
        {
            m.diag[i] += v;
            if (kind.complex)
            {
                m.diagImag[i] += vi;
            }
        }
        else if (kind.symmetric)
        {
            if (i < j)
            {
                in.fail("entry above the diagonal (row " + std::to_string(i + 1) + ", column "
                      + std::to_string(j + 1) + ") in a symmetric file");
            }
            offDiagonal.push_back({j, i, v, v, vi, vi});
        }
        else if (i < j)
        {
            offDiagonal.push_back({i, j, v, 0.0, vi, 0.0});
        }
        else
        {
            offDiagonal.push_back({j, i, 0.0, v, 0.0, vi});
        }
    }
    if (count < nnz)
    {
        in.failAfterEnd("end of file after " + std::to_string(count) + " of the "
                      + std::to_string(nnz) + " entries of the size line");
    }
    buildFaces(offDiagonal, m);
    return m;
}

} // namespace gpuLdu
