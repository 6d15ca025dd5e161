/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "PBiCGStabGPU.H"

// * * * * * * * * * * * * * * Static Data Members * * * * * * * * * * * * * //

namespace Foam
{
    defineTypeNameAndDebug(PBiCGStabGPU, 0);

    lduMatrix::solver::addsymMatrixConstructorToTable<PBiCGStabGPU>
        addPBiCGStabGPUSymMatrixConstructorToTable_;

    lduMatrix::solver::addasymMatrixConstructorToTable<PBiCGStabGPU>
        addPBiCGStabGPUAsymMatrixConstructorToTable_;
}

// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

gpuLdu::KrylovMethod Foam::PBiCGStabGPU::method() const
{
    return gpuLdu::KrylovMethod::named("PBiCGStab");
}
