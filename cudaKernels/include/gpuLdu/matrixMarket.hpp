// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolvers core: a Matrix Market reader that gives a matrix in OpenFOAM's LDU form, for the
// tests, the benchmarks and the gpuLduSolve driver. It takes hostile files without crashing,
// hanging or taking memory the file does not justify: every line but a comment is at most
// maxLineBytes long, comments are skipped in bounded memory, control bytes are refused, and the
// sizes a size line declares are checked before anything is allocated.

#ifndef GPULDU_MATRIXMARKET_HPP
#define GPULDU_MATRIXMARKET_HPP

#include "gpuLdu/gpuLdu.hpp"

#include <string>
#include <vector>

namespace gpuLdu
{

//- The longest banner, size or entry line the reader takes, in bytes without its end (a complex
//  entry with two 17-digit values is about 70): longer ones are errors, so that no line costs
//  more than this. Comment lines may be longer; they are skipped without being stored.
constexpr long matrixMarketMaxLineBytes = 1024;

//- Bytes of host memory this process can still take: the least of the system's available
//  memory (MemAvailable), the room left under the address-space limit (ulimit -v) and under the
//  cgroup's memory.max, where these are set
double availableHostMemory();

//- A file whose matrix is singular by its size line alone: more rows than its entries can
//  reach, so that some row has no entry. Thrown before anything is allocated.
class SingularMatrixError : public Error
{
public:
    using Error::Error;
};

//- What the reader may allocate for the matrix a size line declares
struct MatrixMarketLimits
{
    //- Bytes (the entries while read and sorted, the LDU arrays); default the host's available
    //  memory
    double memoryBytes = availableHostMemory();
};

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
    //- Entries at a (row, column) that an earlier entry of the file already has: summed into it
    //  (see readMatrixMarket), and the file line of the first of them (0: none)
    long nDuplicates = 0;
    long firstDuplicateLine = 0;
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

    //- The rows (0-based, ascending) with no non-zero value, entries absent or all zero: each
    //  makes the matrix singular
    std::vector<int> zeroRows() const;

    LduAddressingView addressing() const
    {
        return {nCells, int(lower.size()), lower.data(), upper.data()};
    }
};

//- Reads a Matrix Market file: coordinate, real, integer or complex, general or symmetric, plain
//  or gzip. Duplicate entries (the same row and column twice; in a symmetric file, of the lower
//  triangle) are summed, as Matrix Market's other readers do (MATLAB's sparse, SciPy's tocsr)
//  and as finite-element assembly writes them, and counted (nDuplicates).
//  Throws Error "<path>:<line>: <what is wrong>" (lines 1-based; a word of the file quoted, at
//  most 40 characters and "...") for
//   - a missing or bad banner, an unsupported kind (pattern, array, skew-symmetric, hermitian:
//     not complex symmetric);
//   - a banner, size or entry line longer than matrixMarketMaxLineBytes, and a control byte
//     anywhere (NUL and the others below 0x20 and 0x7f; tab is a space, and CR may end a line);
//   - a bad or missing size line, a non-square matrix, declared sizes whose reading would need
//     more than limits.memoryBytes (before anything is allocated);
//   - an index out of range, a missing, non-numeric, non-finite or out-of-range value (beyond
//     DBL_MAX, or non-zero below DBL_MIN in magnitude: overflow and underflow alike, never
//     rounded to infinity or zero), trailing words on an entry line, fewer or more entries than
//     the size line says, and an entry above the diagonal in a symmetric file;
//  SingularMatrixError "<path>:<line>: ..." for a size line with more rows than entries (more
//  than twice the entries in a symmetric file, where an entry fills two rows): some row has no
//  entry; "<path>: cannot open" for a file that cannot be opened, "<path>:<line>: read error:
//  ..." for a damaged gzip file. Rows without entries within the entries' reach are read as
//  they are (LduMatrixData::zeroRows finds them).
LduMatrixData readMatrixMarket(const std::string& path, const MatrixMarketLimits& limits = {});

} // namespace gpuLdu

#endif
