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

// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::PCGGPU::PCGGPU
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
        gpuLdu::KrylovMethod::named("PCG"),
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
