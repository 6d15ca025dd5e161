// SPDX-License-Identifier: GPL-3.0-or-later
// The Matrix Market reader: the file's lines (MatrixMarketLines.hpp: through zlib, bounded, every
// byte checked), each word parsed to its end with strtol/strtod; the entries kept as read, then
// sorted to sum duplicates and build the faces.

#include "gpuLdu/matrixMarket.hpp"
#include "matrix/MatrixMarketLines.hpp"

#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string_view>
#include <tuple>

namespace gpuLdu
{

namespace
{

using detail::LineReader;
using detail::quoted;

//- A byte count for a message: "12.3 GiB", "456 MiB", "789 bytes"
std::string bytesText(double bytes)
{
    const double MiB = 1024.0*1024;
    char text[64];
    if (bytes >= 1024*MiB)
    {
        std::snprintf(text, sizeof text, "%.3g GiB", bytes/(1024*MiB));
    }
    else if (bytes >= MiB)
    {
        std::snprintf(text, sizeof text, "%.3g MiB", bytes/MiB);
    }
    else
    {
        std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    }
    return text;
}

//- The word as a whole integer; false if it is not one or out of the range of long
bool toLong(std::string_view word, long& value)
{
    // the word is followed by a space or the string's end, where strtol stops
    char* end = nullptr;
    errno = 0;
    value = std::strtol(word.data(), &end, 10);
    return end == word.data() + word.size() && errno == 0;
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
    if (!in.next(false))
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

//- A value: overflow and underflow are both errors (strtod reports both as ERANGE), so that no
//  value becomes infinite or zero, or loses its digits as a subnormal, without a word
double readValue(const LineReader& in, std::string_view word, bool integer)
{
    const std::string range = " out of range (a non-zero magnitude must lie between 2.2e-308 and 1.8e308)";
    if (integer)
    {
        long i = 0;
        if (toLong(word, i))
        {
            return double(i);
        }
        in.fail(errno == ERANGE ? "integer value " + quoted(word) + range : "bad integer value " + quoted(word));
    }
    char* end = nullptr;
    errno = 0;
    const double v = std::strtod(word.data(), &end);
    if (end != word.data() + word.size())
    {
        in.fail("bad value " + quoted(word));
    }
    if (!std::isfinite(v) && errno != ERANGE)
    {
        in.fail("non-finite value " + quoted(word));
    }
    if (errno == ERANGE)
    {
        in.fail("value " + quoted(word) + range);
    }
    return v;
}

//- An entry as read: 0-based row and column, value, and its line (for duplicates)
struct Entry
{
    int row;
    int col;
    double re;
    double im;
    long line;
};

//- Bytes the reader may take per entry of the size line: the entries as read (the vector's
//  doubling: up to three times their size while it moves), or at most twice their size with
//  the sort's buffer of half of it and the faces built (5 arrays of 8 bytes); and per row (the
//  diagonal, real and imaginary)
constexpr double bytesPerEntry = 3.0*sizeof(Entry) + 5*8;
constexpr double bytesPerRow = 2*8;

//- Sum the entries at each (row, column) and build the diagonal and the faces, sorted by lower
//  then upper. The sort is stable, so duplicates are summed in the file's order.
void buildMatrix(std::vector<Entry>& entries, bool symmetric, LduMatrixData& m)
{
    // a face's entries: A[upper][lower] (row > column; the only side a symmetric file has)
    // before A[lower][upper]; the diagonal's entries as the face (i, i)
    const auto key = [](const Entry& e)
    {
        return std::make_tuple(std::min(e.row, e.col), std::max(e.row, e.col), e.row < e.col);
    };
    std::stable_sort(entries.begin(), entries.end(),
                     [&key](const Entry& a, const Entry& b) { return key(a) < key(b); });
    m.diag.assign(m.nCells, 0.0);
    if (m.complexValues)
    {
        m.diagImag.assign(m.nCells, 0.0);
    }
    for (auto e = entries.begin(); e != entries.end(); )
    {
        auto end = e + 1;
        double re = e->re;
        double im = e->im;
        for (; end != entries.end() && key(*end) == key(*e); ++end)
        {
            re += end->re;
            im += end->im;
            if (m.nDuplicates++ == 0 || end->line < m.firstDuplicateLine)
            {
                m.firstDuplicateLine = end->line;
            }
        }
        const int lower = std::min(e->row, e->col);
        const int upper = std::max(e->row, e->col);
        if (lower == upper)
        {
            m.diag[lower] = re;
            if (m.complexValues)
            {
                m.diagImag[lower] = im;
            }
        }
        else
        {
            if (m.lower.empty() || m.lower.back() != lower || m.upper.back() != upper)
            {
                m.lower.push_back(lower);
                m.upper.push_back(upper);
                m.upperCoeffs.push_back(0.0);
                m.lowerCoeffs.push_back(0.0);
                if (m.complexValues)
                {
                    m.upperImag.push_back(0.0);
                    m.lowerImag.push_back(0.0);
                }
            }
            const bool upperSide = e->row < e->col;
            if (symmetric || upperSide)
            {
                m.upperCoeffs.back() = re;
                if (m.complexValues)
                {
                    m.upperImag.back() = im;
                }
            }
            if (symmetric || !upperSide)
            {
                m.lowerCoeffs.back() = re;
                if (m.complexValues)
                {
                    m.lowerImag.back() = im;
                }
            }
        }
        e = end;
    }
}

//- A number from a line "<key> <number> ..." of a /proc or /sys file; false if absent
bool readNumber(const char* path, const std::string& key, double& value)
{
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line))
    {
        if (line.compare(0, key.size(), key) == 0)
        {
            char* end = nullptr;
            value = std::strtod(line.c_str() + key.size(), &end);
            return end != line.c_str() + key.size();
        }
    }
    return false;
}

} // namespace


double availableHostMemory()
{
    const double page = double(sysconf(_SC_PAGESIZE));
    double kiB = 0;
    double bytes = readNumber("/proc/meminfo", "MemAvailable:", kiB)
                 ? 1024*kiB : double(sysconf(_SC_AVPHYS_PAGES))*page;
    rlimit limit{};
    double mappedPages = 0;
    if (getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
     && readNumber("/proc/self/statm", "", mappedPages))
    {
        bytes = std::min(bytes, double(limit.rlim_cur) - mappedPages*page);
    }
    double max = 0;
    double current = 0;
    if (readNumber("/sys/fs/cgroup/memory.max", "", max) && readNumber("/sys/fs/cgroup/memory.current", "", current))
    {
        bytes = std::min(bytes, max - current);
    }
    return std::max(bytes, 0.0);
}


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


std::vector<int> LduMatrixData::zeroRows() const
{
    const auto nonZero = [this](const std::vector<double>& re, const std::vector<double>& im, std::size_t i)
    {
        return re[i] != 0 || (complexValues && im[i] != 0);
    };
    std::vector<char> filled(nCells, 0);
    for (int c = 0; c < nCells; ++c)
    {
        filled[c] = nonZero(diag, diagImag, c);
    }
    for (std::size_t f = 0; f < lower.size(); ++f)
    {
        filled[lower[f]] |= nonZero(upperCoeffs, upperImag, f);
        filled[upper[f]] |= nonZero(lowerCoeffs, lowerImag, f);
    }
    std::vector<int> rows;
    for (int c = 0; c < nCells; ++c)
    {
        if (!filled[c])
        {
            rows.push_back(c);
        }
    }
    return rows;
}


LduMatrixData readMatrixMarket(const std::string& path, const MatrixMarketLimits& limits)
{
    LineReader in(path);
    const Kind kind = readBanner(in);
    const auto [n, nnz] = readSize(in);

    // What the size line promises is checked before anything is allocated: an entry fills one
    // row (two in a symmetric file, the mirrored one), so rows beyond that reach have none
    const long reach = nnz >= n ? nnz : (kind.symmetric ? 2*nnz : nnz);
    if (n > reach)
    {
        throw SingularMatrixError(path + ":" + std::to_string(in.number()) + ": " + std::to_string(n) + " rows but "
                                + std::to_string(nnz) + " entries" + (kind.symmetric ? " in a symmetric file" : "")
                                + ": at least " + std::to_string(n - reach) + (n - reach == 1 ? " row has" : " rows have")
                                + " no entry, so the matrix is singular");
    }
    const double bytes = double(nnz)*bytesPerEntry + double(n)*bytesPerRow;
    if (bytes > limits.memoryBytes)
    {
        in.fail("reading " + std::to_string(n) + " rows and " + std::to_string(nnz) + " entries needs "
              + bytesText(bytes) + ", more than the " + bytesText(limits.memoryBytes) + " of memory available");
    }

    LduMatrixData m;
    m.nCells = n;
    m.nFileEntries = nnz;
    m.symmetricFile = kind.symmetric;
    m.complexValues = kind.complex;
    const std::size_t words = kind.complex ? 4 : 3;
    // grown as entries are read, never reserved for the size line's count: a file that declares
    // a billion entries and holds three costs three
    std::vector<Entry> entries;
    while (in.nextData())
    {
        const auto& w = in.words();
        if (long(entries.size()) == nnz)
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
        if (kind.symmetric && i < j)
        {
            in.fail("entry above the diagonal (row " + std::to_string(i + 1) + ", column "
                  + std::to_string(j + 1) + ") in a symmetric file");
        }
        entries.push_back({i, j, v, vi, in.number()});
    }
    if (long(entries.size()) < nnz)
    {
        in.failAfterEnd("end of file after " + std::to_string(entries.size()) + " of the "
                      + std::to_string(nnz) + " entries of the size line");
    }
    buildMatrix(entries, kind.symmetric, m);
    return m;
}

} // namespace gpuLdu
