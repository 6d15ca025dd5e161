/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "PCGGPU.H"

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(PCGGPU, 0);

    lduMatrix::solver::addsymMatrixConstructorToTable<PCGGPU>
        addPCGGPUSymMatrixConstructorToTable_;
}

// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

gpuLdu::KrylovMethod Foam::PCGGPU::method() const
{
    return gpuLdu::KrylovMethod::named("PCG");
}
