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

// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::PBiCGStabGPU::PBiCGStabGPU
(
    const word& fieldName,
    const lduMatrix& matrix,
    const FieldField<Field, scalar>& interfaceBouCoeffs,
    const FieldField<Field, scalar>& interfaceIntCoeffs,
    const lduInterfaceFieldPtrsList& interfaces,
    const dictionary& solverControls
)
:
    gpuLduKrylovSolver
    (
        gpuLdu::KrylovMethod::named("PBiCGStab"),
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        solverControls
    )
{
    readSolverControls();
}


// ************************************************************************* //
