// SPDX-License-Identifier: GPL-3.0-or-later
// The lines of a Matrix Market file for its reader (matrixMarket.cpp): the file's bytes through
// zlib (which reads plain and gzip files alike), cut into lines of bounded length with every
// byte checked, each line split into words.

#ifndef GPULDU_MATRIXMARKETLINES_HPP
#define GPULDU_MATRIXMARKETLINES_HPP

#include "gpuLdu/matrixMarket.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace gpuLdu
{

namespace detail
{

//- A word of the file as it appears in a message: quoted, at most 40 characters (a hostile line
//  may be a megabyte of one word)
inline std::string quoted(std::string_view word)
{
    const std::size_t shown = 40;
    return "'" + std::string(word.substr(0, shown)) + (word.size() > shown ? "...'" : "'");
}

//- The lines of a plain or gzip file, numbered from 1, each split into words. A line is read
//  through a fixed buffer and never stored beyond matrixMarketMaxLineBytes: a longer comment is
//  skipped past (only its start kept), any other longer line is an error. Every byte is
//  checked: a control byte would otherwise end a C string early (a NUL inside "4\0" "0" made
//  strtod read 40) or split words where the file shows none.
class LineReader
{
    std::string path_;
    gzFile file_;
    std::vector<char> buffer_;
    std::size_t begin_ = 0;
    std::size_t end_ = 0;
    long number_ = 0;
    std::string line_;
    std::vector<std::string_view> words_;

public:
    explicit LineReader(const std::string& path)
    :
        path_(path),
        file_(gzopen(path.c_str(), "rb")),
        buffer_(1 << 16)
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

    //- Read the next line into line() and words(); false at the end of the file. A comment line
    //  longer than the limit is taken (its start in line()) where longComments, else refused.
    bool next(bool longComments)
    {
        if (begin_ == end_ && !fill(number_ + 1))
        {
            return false;
        }
        ++number_;
        line_.clear();
        bool skipping = false;
        long column = 0;
        long carriageReturn = 0;
        for (;;)
        {
            if (begin_ == end_ && !fill(number_))
            {
                break;
            }
            const char* start = buffer_.data() + begin_;
            const std::size_t available = end_ - begin_;
            const char* newline = static_cast<const char*>(std::memchr(start, '\n', available));
            const std::size_t length = newline ? std::size_t(newline - start) : available;
            for (std::size_t k = 0; k < length; ++k)
            {
                checkByte(static_cast<unsigned char>(start[k]), ++column, carriageReturn);
            }
            if (!skipping)
            {
                // at most the limit and a CR, and one byte more to see the limit passed
                const std::size_t room = std::size_t(matrixMarketMaxLineBytes) + 2 - line_.size();
                line_.append(start, std::min(length, room));
                const bool endsInCr = !line_.empty() && line_.back() == '\r';
                if (line_.size() - (endsInCr ? 1 : 0) > std::size_t(matrixMarketMaxLineBytes))
                {
                    if (!longComments || !isComment())
                    {
                        fail("line longer than " + std::to_string(matrixMarketMaxLineBytes)
                           + " bytes, the most for a banner, size or entry line: " + quoted(line_));
                    }
                    skipping = true;
                }
            }
            begin_ += length + (newline ? 1 : 0);
            if (newline)
            {
                break;
            }
        }
        // CR may end a line (a file written on Windows); anywhere else checkByte refused it
        if (!skipping && !line_.empty() && line_.back() == '\r')
        {
            line_.pop_back();
        }
        splitWords();
        return true;
    }

    //- Read up to the next line that is neither blank nor a comment; false at the end
    bool nextData()
    {
        while (next(true))
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

    //- The number of the line last read
    long number() const
    {
        return number_;
    }

    //- Throw "<path>:<line>: <what>" for the line last read
    [[noreturn]] void fail(const std::string& what) const
    {
        failAt(number_, what);
    }

    //- The same for the line after it (where the end of the file was found)
    [[noreturn]] void failAfterEnd(const std::string& what) const
    {
        failAt(number_ + 1, what);
    }

private:
    [[noreturn]] void failAt(long line, const std::string& what) const
    {
        throw Error(path_ + ":" + std::to_string(line) + ": " + what);
    }

    //- The next bytes of the file into the buffer; false at its end. A read error (a damaged or
    //  truncated gzip file) is reported at the line being read: zlib hands out the bytes it
    //  decompressed before the error first.
    bool fill(long line)
    {
        const int got = gzread(file_, buffer_.data(), unsigned(buffer_.size()));
        int status = Z_OK;
        const char* message = gzerror(file_, &status);
        if (got < 0 || (got == 0 && status != Z_OK))
        {
            failAt(line, std::string("read error: ") + message);
        }
        begin_ = 0;
        end_ = std::size_t(got);
        return got > 0;
    }

    //- Refuse a control byte at a (1-based) column; a CR only where the line ends after it
    //  (carriageReturn: the column of a CR seen last, 0 if none)
    void checkByte(unsigned char c, long column, long& carriageReturn) const
    {
        if (carriageReturn != 0)
        {
            failControl('\r', carriageReturn);
        }
        if (c == '\r')
        {
            carriageReturn = column;
        }
        else if ((c < 0x20 && c != '\t') || c == 0x7f)
        {
            failControl(c, column);
        }
    }

    [[noreturn]] void failControl(unsigned char c, long column) const
    {
        char code[8];
        std::snprintf(code, sizeof code, "0x%02x", c);
        fail(std::string("control character ") + code + (c == 0 ? " (NUL)" : c == '\r' ? " (CR)" : "")
           + " at column " + std::to_string(column) + " (only tab, and CR before the line's end, are taken)");
    }

    //- The line starts, after blanks, with '%'
    bool isComment() const
    {
        const auto first = line_.find_first_not_of(" \t");
        return first != std::string::npos && line_[first] == '%';
    }

    void splitWords()
    {
        words_.clear();
        const std::string_view s(line_);
        const char* space = " \t";
        for (auto start = s.find_first_not_of(space); start != s.npos; )
        {
            const auto end = std::min(s.find_first_of(space, start), s.size());
            words_.push_back(s.substr(start, end - start));
            start = s.find_first_not_of(space, end);
        }
    }
};

} // namespace detail

} // namespace gpuLdu

#endif
