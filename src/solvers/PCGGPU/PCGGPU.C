/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "PCGGPU.H"
#include "gpuLduCoupling.H"

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
    const word preconditionerName =
        lduMatrix::preconditioner::getName(controlDict_);

    const gpuLdu::Preconditioner preconditioner = preconditionerType
    (
        preconditionerName,
        wordList({"DIC", "FDIC", "diagonal", "none"})
    );

    const gpuLduCoupling coupling
    (
        matrix_, interfaceBouCoeffs_, interfaces_, cmpt
    );

    const bool check = checkNativeRequested();
    const scalarField psi0(check ? psi : scalarField());

    gpuLdu::SolveResult result;
    try
    {
        gpuLdu::LduSystem& sys = system();
        sys.setMatrix(matrix_.diag().cdata(), matrix_.upper().cdata(), nullptr);
        sys.setInterfaces(coupling.cells(), coupling.sumACorrection());
        result = sys.solvePCG
        (
            psi.data(), source.cdata(), controls(), preconditioner, coupling
        );
    }
    catch (const std::exception& e)
    {
        fatal(e);
    }

    const solverPerformance perf =
        performance(preconditionerName + typeName, result);

    if (check)
    {
        checkNative("PCG", psi0, source, cmpt, perf);
    }

    return perf;
}
