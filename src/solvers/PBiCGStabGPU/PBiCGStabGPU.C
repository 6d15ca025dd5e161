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

static_assert
(
    std::is_same<Foam::solveScalar, Foam::scalar>::value,
    "PBiCGStabGPU overrides solve(): solveScalar must be scalar"
);


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

Foam::solverPerformance Foam::PBiCGStabGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    // As OpenFOAM picks its preconditioner table by the matrix's symmetry
    const wordList valid
    (
        matrix_.symmetric()
      ? wordList({"DIC", "FDIC", "ILU0", "diagonal", "none"})
      : wordList({"DILU", "ILU0", "diagonal", "none"})
    );

    return solveWith
    (
        gpuLdu::KrylovMethod::PBiCGStab,
        "PBiCGStab",
        valid,
        psi,
        source,
        cmpt
    );
}
