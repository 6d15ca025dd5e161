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

// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::PBiCGGPU::PBiCGGPU
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
        gpuLdu::KrylovMethod::named("PBiCG"),
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
