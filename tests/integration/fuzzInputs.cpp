// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduFuzzInputs: the inputs of the fuzz test (tests/integration/fuzz.sh). Writes <cases>
// mutated copies of Matrix Market files into a folder, plain or gzip, each with one to three
// mutations of the kinds hostile files take (issue 18): flipped, control and NUL bytes,
// truncation, huge, tiny and non-finite values, long lines, duplicated and deleted lines,
// changed size lines, indices and banner words, zeroed rows, scaled values, CRLF ends, damaged
// gzip. The same seed gives the same files on every platform (std::mt19937_64 is specified
// exactly; the draws are taken from it by modulo, not by the library's distributions).
// Prints one line per case: "<file>\t<mutations>".
// Usage: gpuLduFuzzInputs <seed> <cases> <folder> <matrix.mtx[.gz]>...

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace
{

class Random
{
    std::mt19937_64 engine_;

public:
    explicit Random(std::uint64_t seed)
    :
        engine_(seed)
    {}

    //- In [0, n); n > 0
    std::size_t below(std::size_t n)
    {
        return std::size_t(engine_() % n);
    }

    template<class T>
    const T& pick(const std::vector<T>& choices)
    {
        return choices[below(choices.size())];
    }
};

//- The whole of a plain or gzip file
std::string readAll(const std::string& path)
{
    gzFile in = gzopen(path.c_str(), "rb");
    if (!in)
    {
        std::fprintf(stderr, "gpuLduFuzzInputs: cannot open %s\n", path.c_str());
        std::exit(1);
    }
    std::string text;
    char buffer[1 << 16];
    int got = 0;
    while ((got = gzread(in, buffer, sizeof buffer)) > 0)
    {
        text.append(buffer, std::size_t(got));
    }
    gzclose(in);
    return text;
}

std::vector<std::string> splitLines(const std::string& text)
{
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start < text.size())
    {
        const std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
        {
            lines.push_back(text.substr(start));
            break;
        }
        lines.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return lines;
}

std::string joinLines(const std::vector<std::string>& lines)
{
    std::string text;
    for (const std::string& line : lines)
    {
        text += line;
        text += '\n';
    }
    return text;
}

std::vector<std::string> words(const std::string& line)
{
    std::istringstream in(line);
    std::vector<std::string> w;
    for (std::string word; in >> word; )
    {
        w.push_back(word);
    }
    return w;
}

std::string joinWords(const std::vector<std::string>& w)
{
    std::string line;
    for (const std::string& word : w)
    {
        line += (line.empty() ? "" : " ") + word;
    }
    return line;
}

//- A Matrix Market text as lines: which is the size line, which are entries
struct Lines
{
    std::vector<std::string> lines;
    std::size_t size = 0;   // index of the size line (lines.size() if none)

    explicit Lines(const std::string& text)
    :
        lines(splitLines(text))
    {
        for (size = 1; size < lines.size(); ++size)
        {
            if (!lines[size].empty() && lines[size][0] != '%')
            {
                break;
            }
        }
    }

    bool hasEntries() const
    {
        return size + 1 < lines.size();
    }

    std::size_t randomEntry(Random& random) const
    {
        return size + 1 + random.below(lines.size() - size - 1);
    }

    //- Apply f to the words of the size line, if there is one
    void editSize(const std::function<void(std::vector<std::string>&)>& f)
    {
        if (size < lines.size())
        {
            std::vector<std::string> w = words(lines[size]);
            f(w);
            lines[size] = joinWords(w);
        }
    }
};

const std::vector<std::string> oddValues{
    "1e308", "-1.7976931348623157e308", "1e300", "-1e300", "1e400", "-1e400", "1e-400", "4.9e-324",
    "2.2250738585072014e-308", "1e-300", "nan", "inf", "-inf", "0", "-0", "1e30", "-1e-30", "0x1p1023",
    "99999999999999999999", "1.5", "", "e", "1e", "--1", "+-1", ".", "1..2", "١"};

const std::vector<std::string> oddIndices{
    "0", "-1", "1", "2147483647", "2147483648", "-2147483649", "9223372036854775808", "1.5", "a", "1e2",
    "+1", "0x1", ""};

const std::vector<std::string> oddSizes{
    "0", "-1", "1", "2", "1000", "999999", "2000000000", "2147483647", "2147483648", "9223372036854775807",
    "99999999999999999999", "x", "1e3", "-0"};

const std::vector<std::string> bannerWords{
    "%%MatrixMarket", "matrix", "vector", "coordinate", "array", "real", "integer", "complex", "pattern",
    "general", "symmetric", "hermitian", "skew-symmetric", "%%matrixmarket", ""};

// The mutations, one function per kind: those of the text's bytes, then those of its lines (a
// Matrix Market text as Lines: the size line, the entries). Their draws from random are taken
// in the order written, so that a seed keeps giving the same files.

//- Position of an insertion or a cut: 0 .. text.size()
std::size_t position(const std::string& text, Random& random)
{
    return text.empty() ? 0 : random.below(text.size() + 1);
}

//- A byte replaced: half the time by any byte, else by one of a number's or a line's
void flipByte(std::string& text, Random& random)
{
    if (!text.empty())
    {
        const std::string palette(std::string("0123456789 .-+eE\n\t%\r", 21) + '\0');
        const std::size_t p = random.below(text.size());
        text[p] = random.below(2) ? char(random.below(256)) : palette[random.below(palette.size())];
    }
}

void truncateText(std::string& text, Random& random)
{
    text.resize(position(text, random));
}

void insertNul(std::string& text, Random& random)
{
    text.insert(position(text, random), 1, '\0');
}

//- A control byte (1 to 31, or DEL) inserted
void insertControlByte(std::string& text, Random& random)
{
    const char control = char(random.below(4) == 0 ? 0x7f : 1 + random.below(31));
    text.insert(position(text, random), 1, control);
}

//- A value of an entry replaced by an odd one (oddValues)
void oddValue(Lines& m, Random& random)
{
    if (m.hasEntries())
    {
        const std::size_t entry = m.randomEntry(random);
        std::vector<std::string> w = words(m.lines[entry]);
        if (w.size() >= 3)
        {
            w[2 + random.below(w.size() - 2)] = random.pick(oddValues);
            m.lines[entry] = joinWords(w);
        }
    }
}

//- A line of up to 200000 characters inserted: a comment, an entry, leading blanks or garbage
void longLine(Lines& m, Random& random)
{
    const std::size_t length = 1 + random.below(200000);
    const std::size_t choice = random.below(4);
    const std::string line =
        choice == 0 ? "%" + std::string(length, 'c')
      : choice == 1 ? "1 1 " + std::string(length, '7')
      : choice == 2 ? std::string(length, ' ') + "1 1 1"
      : std::string(length, 'x');
    m.lines.insert(m.lines.begin() + std::ptrdiff_t(random.below(m.lines.size() + 1)), line);
}

//- An entry repeated one to five times among the entries
void duplicateLines(Lines& m, Random& random)
{
    if (!m.hasEntries())
    {
        return;
    }
    const std::string copy = m.lines[m.randomEntry(random)];
    const std::size_t copies = 1 + random.below(5);
    for (std::size_t c = 0; c < copies; ++c)
    {
        m.lines.insert(m.lines.begin() + std::ptrdiff_t(m.size + 1 + random.below(m.lines.size() - m.size)), copy);
    }
    // half the time the size line counts them: duplicates summed, not a count error
    if (random.below(2))
    {
        m.editSize([copies](std::vector<std::string>& w)
        {
            if (w.size() == 3)
            {
                w[2] = std::to_string(std::atol(w[2].c_str()) + long(copies));
            }
        });
    }
}

//- The size line with a word dropped, a word added, or odd sizes (oddSizes)
void sizeLine(Lines& m, Random& random)
{
    m.editSize([&random](std::vector<std::string>& w)
    {
        const std::size_t choice = random.below(8);
        if (choice == 0 && !w.empty())
        {
            w.pop_back();
        }
        else if (choice == 1)
        {
            w.push_back(random.pick(oddSizes));
        }
        else if (w.size() == 3)
        {
            // mostly rows and columns together (the square check passes), else the
            // entries, else one of the three
            const std::string value = random.pick(oddSizes);
            if (choice < 5)
            {
                w[0] = w[1] = value;
            }
            else
            {
                w[choice == 5 ? 2 : random.below(3)] = value;
            }
        }
    });
}

void deleteLine(Lines& m, Random& random)
{
    if (!m.lines.empty())
    {
        m.lines.erase(m.lines.begin() + std::ptrdiff_t(random.below(m.lines.size())));
    }
}

//- A row or column index of an entry replaced by an odd one (oddIndices)
void oddIndex(Lines& m, Random& random)
{
    if (m.hasEntries())
    {
        const std::size_t entry = m.randomEntry(random);
        std::vector<std::string> w = words(m.lines[entry]);
        if (w.size() >= 2)
        {
            w[random.below(2)] = random.pick(oddIndices);
            m.lines[entry] = joinWords(w);
        }
    }
}

//- A word of the banner replaced (bannerWords)
void bannerWord(Lines& m, Random& random)
{
    if (!m.lines.empty())
    {
        std::vector<std::string> w = words(m.lines[0]);
        if (!w.empty())
        {
            w[random.below(w.size())] = random.pick(bannerWords);
            m.lines[0] = joinWords(w);
        }
    }
}

void swapLines(Lines& m, Random& random)
{
    if (m.lines.size() >= 2)
    {
        std::swap(m.lines[random.below(m.lines.size())], m.lines[random.below(m.lines.size())]);
    }
}

//- A row's values all zero: a matrix with a zero row, structurally complete
void zeroRow(Lines& m, Random& random)
{
    const std::vector<std::string> picked = m.hasEntries() ? words(m.lines[m.randomEntry(random)])
                                                          : std::vector<std::string>();
    if (picked.empty())
    {
        return;
    }
    const std::string& row = picked.front();
    for (std::size_t l = m.size + 1; l < m.lines.size(); ++l)
    {
        std::vector<std::string> w = words(m.lines[l]);
        if (w.size() >= 3 && (w[0] == row || w[1] == row))
        {
            for (std::size_t v = 2; v < w.size(); ++v)
            {
                w[v] = "0";
            }
            m.lines[l] = joinWords(w);
        }
    }
}

//- Every value scaled towards the ends of double (some beyond them: inf, 0)
void scaleValues(Lines& m, Random& random)
{
    const double scale = random.pick(std::vector<double>{1e300, 1e-300, 1e150, 1e-150, 1e308});
    for (std::size_t l = m.size + 1; l < m.lines.size(); ++l)
    {
        std::vector<std::string> w = words(m.lines[l]);
        for (std::size_t v = 2; v < w.size(); ++v)
        {
            char value[40];
            std::snprintf(value, sizeof value, "%.17g", std::atof(w[v].c_str())*scale);
            w[v] = value;
        }
        m.lines[l] = joinWords(w);
    }
}

//- Entries removed (each with probability 1/3), the count kept right: a valid file, maybe with
//  empty rows
void removeEntries(Lines& m, Random& random)
{
    std::size_t removed = 0;
    for (std::size_t l = m.lines.size(); l-- > m.size + 1; )
    {
        if (random.below(3) == 0)
        {
            m.lines.erase(m.lines.begin() + std::ptrdiff_t(l));
            ++removed;
        }
    }
    m.editSize([removed](std::vector<std::string>& w)
    {
        if (w.size() == 3)
        {
            w[2] = std::to_string(std::atol(w[2].c_str()) - long(removed));
        }
    });
}

void crlf(Lines& m, Random&)
{
    for (std::string& line : m.lines)
    {
        line += '\r';
    }
}

//- Many blank or comment lines (up to 10000) inserted at one place
void manyComments(Lines& m, Random& random)
{
    m.lines.insert(m.lines.begin() + std::ptrdiff_t(random.below(m.lines.size() + 1)),
                   1 + random.below(10000), random.below(2) ? "" : "% c");
}

//- A kind of mutation: its name (in the manifest) and what it does, to the bytes or the lines
struct Mutation
{
    const char* name;
    void (*onText)(std::string& text, Random& random);
    void (*onLines)(Lines& m, Random& random);
};

//- Every kind, drawn uniformly from this table: a kind listed twice is drawn twice as often
const Mutation mutations[] = {
    {"flipByte", flipByte, nullptr},
    {"truncate", truncateText, nullptr},
    {"insertNul", insertNul, nullptr},
    {"insertControlByte", insertControlByte, nullptr},
    {"oddValue", nullptr, oddValue},
    {"longLine", nullptr, longLine},
    {"duplicateLines", nullptr, duplicateLines},
    {"sizeLine", nullptr, sizeLine},
    {"sizeLine", nullptr, sizeLine},
    {"deleteLine", nullptr, deleteLine},
    {"oddIndex", nullptr, oddIndex},
    {"oddIndex", nullptr, oddIndex},
    {"bannerWord", nullptr, bannerWord},
    {"swapLines", nullptr, swapLines},
    {"zeroRow", nullptr, zeroRow},
    {"scaleValues", nullptr, scaleValues},
    {"removeEntries", nullptr, removeEntries},
    {"crlf", nullptr, crlf},
    {"manyComments", nullptr, manyComments},
    {"manyComments", nullptr, manyComments},
};

//- One mutation of the text, its kind drawn from the table; returns its name
std::string mutate(std::string& text, Random& random)
{
    const Mutation& kind = mutations[random.below(std::size(mutations))];
    if (kind.onText)
    {
        kind.onText(text, random);
    }
    else
    {
        Lines m(text);
        kind.onLines(m, random);
        text = joinLines(m.lines);
    }
    return kind.name;
}

void writePlain(const std::string& path, const std::string& text)
{
    std::ofstream(path, std::ios::binary) << text;
}

void writeGzip(const std::string& path, const std::string& text)
{
    gzFile out = gzopen(path.c_str(), "wb1");
    if (!out || (!text.empty() && gzwrite(out, text.data(), unsigned(text.size())) != int(text.size())))
    {
        std::fprintf(stderr, "gpuLduFuzzInputs: cannot write %s\n", path.c_str());
        std::exit(1);
    }
    gzclose(out);
}

} // namespace


int main(int argc, char* argv[])
{
    if (argc < 5)
    {
        std::fprintf(stderr, "Usage: gpuLduFuzzInputs <seed> <cases> <folder> <matrix.mtx[.gz]>...\n");
        return 1;
    }
    Random random(std::strtoull(argv[1], nullptr, 10));
    const long cases = std::atol(argv[2]);
    const std::string folder = argv[3];
    std::vector<std::string> sources;
    for (int i = 4; i < argc; ++i)
    {
        sources.push_back(readAll(argv[i]));
    }
    std::filesystem::create_directories(folder);
    for (long c = 0; c < cases; ++c)
    {
        std::string text = sources[std::size_t(c) % sources.size()];
        std::string what;
        const std::size_t nMutations = 1 + random.below(3);
        for (std::size_t k = 0; k < nMutations; ++k)
        {
            what += (what.empty() ? "" : ",") + mutate(text, random);
        }
        const bool gzip = random.below(4) == 0;
        const std::string path = folder + "/case" + std::to_string(c) + (gzip ? ".mtx.gz" : ".mtx");
        if (gzip)
        {
            writeGzip(path, text);
            // now and then a damaged stream: cut short
            if (random.below(10) == 0)
            {
                const auto size = std::filesystem::file_size(path);
                std::filesystem::resize_file(path, random.below(size + 1));
                what += ",truncateGzip";
            }
        }
        else
        {
            writePlain(path, text);
        }
        std::printf("%s\t%s\n", path.c_str(), what.c_str());
    }
    return 0;
}
