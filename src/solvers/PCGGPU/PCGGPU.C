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

static_assert
(
    std::is_same<Foam::solveScalar, Foam::scalar>::value,
    "PCGGPU overrides solve(): solveScalar must be scalar"
);


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
    gpuLduSolver
    (
        fieldName,
        matrix,
        interfaceBouCoeffs,
        interfaceIntCoeffs,
        interfaces,
        solverControls
    )
{}


// * * * * * * * * * * * * * * * Member Functions  * * * * * * * * * * * * * //

Foam::solverPerformance Foam::PCGGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    return solveWith
    (
        gpuLdu::KrylovMethod::PCG,
        "PCG",
        wordList({"DIC", "FDIC", "ILU0", "diagonal", "none"}),
        psi,
        source,
        cmpt
    );
}
