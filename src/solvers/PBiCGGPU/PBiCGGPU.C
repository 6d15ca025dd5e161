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

static_assert
(
    std::is_same<Foam::solveScalar, Foam::scalar>::value,
    "PBiCGGPU overrides solve(): solveScalar must be scalar"
);


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

Foam::solverPerformance Foam::PBiCGGPU::solve
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    const solverPerformance perf = solveWith
    (
        gpuLdu::KrylovMethod::PBiCG,
        "PBiCG",
        wordList({"DILU", "ILU0", "diagonal", "none"}),
        psi,
        source,
        cmpt
    );

    // OpenFOAM's PBiCG stops here too
    if (perf.nIterations() > max(defaultMaxIter_, maxIter_))
    {
        FatalErrorInFunction
            << typeName << " has failed to converge within the maximum number"
               " of iterations " << max(defaultMaxIter_, maxIter_) << nl
            << "    Please try the more robust PBiCGStabGPU solver."
            << exit(FatalError);
    }

    return perf;
}
