// SPDX-License-Identifier: GPL-3.0-or-later
// The core's errors: Error (every failure), and ValueError with the BadValue a solve found before
// iterating (a value that is not finite, a zero or non-finite pivot). Part of the core's
// interface: gpuLdu.hpp includes every part.

#ifndef GPULDU_ERRORS_HPP
#define GPULDU_ERRORS_HPP

#include <stdexcept>
#include <string>

namespace gpuLdu
{

//- Every failure of the core (bad input, CUDA error) is thrown as this; the OpenFOAM layer turns
//  it into a FatalError.
class Error : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

//- The values a solve checks before it iterates (ValueError): every one must be finite, and
//  every pivot a factorisation divides by must be finite and non-zero.
enum class ValueKind
{
    diagonal,       //!< diag[i] = A[i][i], as uploaded (boundary coefficients included)
    upper,          //!< upper[f] = A[l(f)][u(f)]
    lower,          //!< lower[f] = A[u(f)][l(f)] (asymmetric matrices)
    source,         //!< the right-hand side b
    initialGuess,   //!< psi on entry
    pivot           //!< a pivot of a factorisation or a diagonal divided by (BadValue::pivotOf)
};

//- The words of a kind in messages: diagonal, upper, lower, source, initial guess, pivot
std::string valueKindName(ValueKind kind);

//- What a check found: the first bad value (values: in the order diagonal, upper, lower,
//  source, initial guess, then by index; pivots: the lowest row, the first that a sequential
//  factorisation meets, the others follow from it) and where it is.
struct BadValue
{
    ValueKind kind = ValueKind::source;
    //- For a pivot, whose: DIC, DILU, ILU0, or diagonal (the diagonal preconditioner's, and the
    //  diagonal that GAMG's smoothers and interpolation divide by)
    std::string pivotOf;
    //- The GAMG level of the system (0: the finest, the matrix the solver was given)
    int level = 0;
    //- The face (upper, lower) or the cell (the other kinds), in the system's numbering
    int index = -1;
    //- The matrix entry's row and column: upper A[l(f)][u(f)], lower A[u(f)][l(f)], the
    //  others the cell twice
    int row = -1;
    int col = -1;
    double value = 0;
    //- Values of the checked kinds that are not finite (a pivot: 1)
    long count = 1;
};

//- A BadValue in words, in the system's numbering ("the source is nan at cell 17 (1 value not
//  finite)")
std::string describe(const BadValue& bad);

//- A solve refused before iterating: a value that is not finite, or a zero or non-finite pivot
//  (BadValue). Thrown instead of computing with it: with floating-point trapping on (OpenFOAM's
//  default) the computation would stop the process with SIGFPE, without it the solve would
//  iterate on NaNs.
class ValueError : public Error
{
    BadValue bad_;

public:
    explicit ValueError(const BadValue& bad)
    :
        Error("gpuLdu: " + describe(bad)),
        bad_(bad)
    {}

    const BadValue& bad() const
    {
        return bad_;
    }
};

} // namespace gpuLdu

#endif
