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

// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::PCGGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    return solveWith(gpuLdu::KrylovMethod::PCG, psi, source, cmpt);
}
