/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "PBiCGGPU.H"

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(PBiCGGPU, 0);

    lduMatrix::solver::addasymMatrixConstructorToTable<PBiCGGPU>
        addPBiCGGPUAsymMatrixConstructorToTable_;
}

// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

gpuLdu::KrylovMethod Foam::PBiCGGPU::method() const
{
    return gpuLdu::KrylovMethod::named("PBiCG");
}
