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

// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::PBiCGGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    return solveWith(gpuLdu::KrylovMethod::PBiCG, psi, source, cmpt);
}
