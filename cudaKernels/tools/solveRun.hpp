// SPDX-License-Identifier: GPL-3.0-or-later
// What gpuLduSolve's solve paths share: how a run ends (its exit statuses and the error that
// carries one), the checks of a solve's input and result that decide it (rows without entries, a
// source that overflows, values that are not finite, the core's numerical errors), and the two
// paths, Krylov (krylovRun.cpp) and LDLT (ldltRun.cpp).
#ifndef GPULDU_TOOLS_SOLVERUN_HPP
#define GPULDU_TOOLS_SOLVERUN_HPP

#include "options.hpp"

#include "gpuLdu/clock.hpp"
#include "gpuLdu/matrixMarket.hpp"

#include <complex>
#include <string>
#include <vector>

namespace gpuLduSolve
{

//- How a run ended: the exit status
enum ExitStatus
{
    exitSolved = 0,
    exitError = 1,
    exitNotConverged = 2,
    exitSingular = 3
};

//- An error that ends the run with its own exit status
class Failure : public Error
{
public:
    const ExitStatus status;

    Failure(ExitStatus status, const std::string& what)
    :
        Error(what),
        status(status)
    {}
};

//- A number as a message shows it: %g ("1e-08", "nan"; std::to_string would write 0.000000)
std::string text(double value);

//- y = op(A) x from the LDU arrays, in OpenFOAM's Amul order (diagonal, then the faces);
//  op is applied to each coefficient.
template<class Op>
std::vector<double> hostProduct(const LduMatrixData& m, const std::vector<double>& x, Op op)
{
    std::vector<double> y(m.nCells);
    for (int c = 0; c < m.nCells; ++c)
    {
        y[c] = op(m.diag[c])*x[c];
    }
    for (std::size_t f = 0; f < m.lower.size(); ++f)
    {
        y[m.upper[f]] += op(m.lowerCoeffs[f])*x[m.lower[f]];
        y[m.lower[f]] += op(m.upperCoeffs[f])*x[m.upper[f]];
    }
    return y;
}

//- ||v||_2, scaled by the largest magnitude, so that values near 1e300 do not overflow the sum of
//  squares (which made a true residual of NaN beside "converged yes"); NaN or infinity if v has one
double norm2(const std::vector<double>& v);

bool isFinite(double a);

bool isFinite(const std::complex<double>& a);

//- The first row (1-based) of a value that is not finite, 0 if none
template<class Scalar>
long firstNonFinite(const std::vector<Scalar>& v)
{
    for (std::size_t i = 0; i < v.size(); ++i)
    {
        if (!isFinite(v[i]))
        {
            return long(i) + 1;
        }
    }
    return 0;
}

//- b = A 1 must be finite: values that overflow it cannot be solved in double
template<class Scalar>
void checkSource(const Options& o, const std::vector<Scalar>& b)
{
    if (const long row = firstNonFinite(b))
    {
        throw Error(o.file + ": b = A 1 is not finite in row " + std::to_string(row)
                  + ": the values are too large for double precision");
    }
}

//- A row of no non-zero value makes A singular: found before the solve, for every solver, as
//  the exit status for singular matrices (dwg961a's 256 empty rows, or a file whose entries
//  leave rows out)
void checkRows(const Options& o, const LduMatrixData& m);

//- A numerical phase of the core (a factorisation, a solve): an Error it throws for a singular
//  matrix, a zero or a non-finite pivot (the core names the row or column; ValueError from the
//  iterative solvers' checks) becomes the exit status for singular matrices; any other (a CUDA
//  error, memory) stays an error
template<class Phase>
auto numerical(Phase phase)
{
    try
    {
        return phase();
    }
    catch (const Failure&)
    {
        throw;
    }
    catch (const ValueError& e)
    {
        // a value or pivot that is zero or not finite, found before iterating
        throw Failure(exitSingular, e.what());
    }
    catch (const Error& e)
    {
        // the direct solver's errors (no typed error there): by their words
        const std::string what = e.what();
        for (const char* word : {"singular", "pivot", "not finite"})
        {
            if (what.find(word) != std::string::npos)
            {
                throw Failure(exitSingular, what);
            }
        }
        throw;
    }
}


const char* yesNo(bool b);

//- -solver LDLT on the matrix read: symmetric (real or complex) only; gpuReason: why the default
//  executor is cpu ("" if it was given, or is gpu)
ExitStatus runLdlt(const Options& o, const LduMatrixData& m, Executor executor, const std::string& gpuReason);

//- A Krylov solver on the (real) matrix read
ExitStatus runKrylov(const Options& o, const LduMatrixData& m);

} // namespace gpuLduSolve

#endif
