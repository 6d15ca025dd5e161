// SPDX-License-Identifier: GPL-3.0-or-later
// The scalars of the sparse LDL^T solver (LdltImpl.hpp): double, or Complex for complex
// symmetric matrices, and what the kernels ask of them (modulus, static pivot).

#ifndef GPULDU_LDLTSCALAR_HPP
#define GPULDU_LDLTSCALAR_HPP

#include "backend/Backend.hpp"

#include <complex>

namespace gpuLdu
{

namespace detail
{

//- The kernels' scalar T for the API's (std::complex<double> -> Complex, the same layout), and
//  back
template<class Scalar>
struct KernelScalarOf
{
    using type = Scalar;
};

template<>
struct KernelScalarOf<std::complex<double>>
{
    using type = Complex;
};

template<class Scalar>
using KernelScalar = typename KernelScalarOf<Scalar>::type;

template<class T>
struct HostScalarOf
{
    using type = T;
};

template<>
struct HostScalarOf<Complex>
{
    using type = std::complex<double>;
};

//- |x|, |x|^2, and the static pivot of d: the floor with d's sign (complex: in d's direction;
//  +floor for 0). Finiteness: isFiniteValue (matrix/ValueCheck.hpp, both parts of a complex).
GPULDU_HD inline double modulus(double x)
{
    return x < 0 ? -x : x;
}

GPULDU_HD inline double modulus(const Complex& x)
{
    return thrust::abs(x);
}

GPULDU_HD inline double squaredModulus(double x)
{
    return x*x;
}

GPULDU_HD inline double squaredModulus(const Complex& x)
{
    return x.real()*x.real() + x.imag()*x.imag();
}

GPULDU_HD inline double staticPivot(double d, double floor)
{
    return d < 0 ? -floor : floor;
}

GPULDU_HD inline Complex staticPivot(const Complex& d, double floor)
{
    const double a = thrust::abs(d);
    return a > 0 ? d*(floor/a) : Complex(floor);
}

} // namespace detail

} // namespace gpuLdu

#endif
