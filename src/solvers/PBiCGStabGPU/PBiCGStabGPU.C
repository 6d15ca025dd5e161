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

// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::PBiCGStabGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    return solveWith(gpuLdu::KrylovMethod::PBiCGStab, psi, source, cmpt);
}
