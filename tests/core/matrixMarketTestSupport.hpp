// SPDX-License-Identifier: GPL-3.0-or-later
// What the Matrix Market tests share (matrixMarketTest.cpp, matrixMarketErrorsTest.cpp): the
// suite MatrixMarket with its temporary folder and the files it writes, the banners.

#ifndef GPULDU_MATRIXMARKETTESTSUPPORT_HPP
#define GPULDU_MATRIXMARKETTESTSUPPORT_HPP

#include "problems.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace gpuLdu::test
{

namespace fs = std::filesystem;
using ::testing::HasSubstr;

//- The suite MatrixMarket: a temporary folder per test, files written there (plain, gzip), the
//  error that reading one raises
class MatrixMarket : public ::testing::Test
{
protected:
    fs::path dir_;

    void SetUp() override
    {
        std::string pattern = (fs::temp_directory_path()/"matrixMarketTest.XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        dir_ = pattern;
    }

    void TearDown() override
    {
        fs::remove_all(dir_);
    }

    //- Write a plain file in the temporary folder; returns its path
    std::string write(const std::string& name, const std::string& text) const
    {
        const std::string path = (dir_/name).string();
        std::ofstream(path) << text;
        return path;
    }

    //- Write a gzip file in the temporary folder; returns its path
    std::string writeGzip(const std::string& name, const std::string& text) const
    {
        const std::string path = (dir_/name).string();
        gzFile out = gzopen(path.c_str(), "wb");
        EXPECT_NE(out, nullptr);
        EXPECT_EQ(gzwrite(out, text.data(), unsigned(text.size())), int(text.size()));
        gzclose(out);
        return path;
    }

    //- The message of the Error that reading text throws (empty and a failure if none)
    std::string errorOf(const std::string& text) const
    {
        const std::string path = write("bad.mtx", text);
        try
        {
            gpuLdu::readMatrixMarket(path);
        }
        catch (const Error& e)
        {
            return e.what();
        }
        ADD_FAILURE() << "no error for:\n" << text;
        return "";
    }

    //- Reading text fails at line with a message containing phrase
    void expectError(const std::string& text, int line, const std::string& phrase) const
    {
        const std::string message = errorOf(text);
        EXPECT_THAT(message, HasSubstr((dir_/"bad.mtx").string() + ":" + std::to_string(line) + ": "));
        EXPECT_THAT(message, HasSubstr(phrase));
    }
};

inline const std::string generalBanner = "%%MatrixMarket matrix coordinate real general\n";
inline const std::string symmetricBanner = "%%MatrixMarket matrix coordinate real symmetric\n";

} // namespace gpuLdu::test

#endif
