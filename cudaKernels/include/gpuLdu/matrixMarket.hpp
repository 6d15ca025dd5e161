// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolvers core: a Matrix Market reader that gives a matrix in OpenFOAM's LDU form, for the
// tests, the benchmarks and the gpuLduSolve driver.

#ifndef GPULDU_MATRIXMARKET_HPP
#define GPULDU_MATRIXMARKET_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <string>
#include <vector>

namespace gpuLdu
{

//- A square matrix in OpenFOAM's LDU form: faces (lower[f] < upper[f]) sorted by lower then
//  upper, upperCoeffs[f] = A[lower][upper], lowerCoeffs[f] = A[upper][lower]. The pattern is
//  made symmetric: an entry whose transpose is absent gets an explicit zero there.
struct LduMatrixData
{
    int nCells = 0;
    std::vector<int> lower;
    std::vector<int> upper;
    std::vector<double> diag;
    std::vector<double> upperCoeffs;
    std::vector<double> lowerCoeffs;
    //- A complex file: the imaginary parts of diag, upperCoeffs and lowerCoeffs (empty for a
    //  real file)
    bool complexValues = false;
    std::vector<double> diagImag;
    std::vector<double> upperImag;
    std::vector<double> lowerImag;
    //- Entries in the file (before the symmetric expansion)
    long nFileEntries = 0;
    //- The header said symmetric
    bool symmetricFile = false;

    //- A = A^T: lowerCoeffs == upperCoeffs (and the same for the imaginary parts)
    bool symmetric() const
    {
        return lowerCoeffs == upperCoeffs && lowerImag == upperImag;
    }

    //- A complex A = A^H (conjugate transpose) that is not A^T: a real diagonal, equal real
    //  parts and opposite imaginary parts across the diagonal
    bool hermitian() const;

    LduAddressingView addressing() const
    {
        return {nCells, int(lower.size()), lower.data(), upper.data()};
    }
};

//- Reads a Matrix Market file: coordinate, real, integer or complex, general or symmetric, plain
//  or gzip. Duplicate entries are summed. Throws Error "<path>:<line>: <what is wrong>" (lines
//  1-based) for a missing or bad banner, an unsupported kind (pattern, array, skew-symmetric,
//  hermitian: not complex symmetric), a bad or missing size line, a non-square matrix, an index out of range, a
//  missing, non-numeric or non-finite value, trailing words on an entry line, fewer or more
//  entries than the size line says, and an entry above the diagonal in a symmetric file;
//  "<path>: cannot open" for a file that cannot be opened.
LduMatrixData readMatrixMarket(const std::string& path);

} // namespace gpuLdu

#endif
