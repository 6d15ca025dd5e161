/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduKrylovSolver.H"
#include "gpuLduCache.H"
#include "gpuLduCoupling.H"
#include "gpuLduRankGroup.H"

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

gpuLdu::LduSystem& Foam::gpuLduKrylovSolver::formatted
(
    gpuLduCache& cache,
    gpuLdu::LduSystem& sys
) const
{
    const gpuLdu::MatrixFormat asked = format_;
    const gpuLdu::MatrixFormat used = sys.setFormat(asked);

    if (cache.noteFormat(fieldName_, sys.executor(), used))
    {
        const gpuLdu::RowLengthStats s = sys.rowLengthStats();
        Info<< type() << ": matrixFormat " << gpuLdu::formatName(asked).c_str()
            << " for " << fieldName_ << ": "
            << gpuLdu::formatName(used).c_str() << " (" << s.nRows
            << " rows of " << s.minLength << " to " << s.maxLength
            << " non-zeros, mean " << s.meanLength() << ")" << endl;
    }
    return sys;
}


gpuLdu::SolveResult Foam::gpuLduKrylovSolver::solveInGroup
(
    gpuLduCache& cache,
    gpuLduRankGroup& group,
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    // (only the group's owner holds the system)
    if (group.system())
    {
        formatted(cache, *group.system());
    }
    const gpuLduCoupling coupling
    (
        matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
        interfaces_, cmpt, group.patchPhase()
    );
    return group.solve
    (
        method_, matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
        coupling, psi, source, controls(), preconditioner_
    );
}


gpuLdu::SolveResult Foam::gpuLduKrylovSolver::solveOwn
(
    gpuLduCache& cache,
    const gpuLdu::Executor exec,
    scalarField& psi,
    const scalarField& source,
    const direction cmpt
) const
{
    const gpuLduCoupling coupling
    (
        matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
        interfaces_, cmpt
    );
    gpuLdu::LduSystem& sys =
        formatted(cache, cache.system(exec, matrix_.lduAddr()));
    sys.setMatrix
    (
        matrix_.diag().cdata(),
        matrix_.upper().cdata(),
        matrix_.hasLower() ? matrix_.lower().cdata() : nullptr
    );
    sys.setInterfaces(coupling.cells());
    return sys.solve
    (
        method_,
        psi.data(),
        source.cdata(),
        controls(),
        preconditioner_,
        coupling
    );
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

Foam::wordList Foam::gpuLduKrylovSolver::keywords() const
{
    return wordList{"executor", "checkNative", "matrixFormat"};
}


void Foam::gpuLduKrylovSolver::readControls()
{
    gpuLduSolver::readControls();

    // As OpenFOAM picks its preconditioner table by the matrix's symmetry
    preconditionerName_ = lduMatrix::preconditioner::getName(controlDict_);
    const bool symmetric = matrix_.symmetric();
    try
    {
        preconditioner_ = gpuLdu::preconditionerFromName
        (
            preconditionerName_, method_, symmetric
        );
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue
        (
            "preconditioner",
            preconditionerName_,
            gpuLdu::preconditionerNames(method_, symmetric)
        );
    }

    const word format =
        controlDict_.lookupOrDefault<word>("matrixFormat", "auto");
    try
    {
        format_ = gpuLdu::MatrixFormat::named(format);
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue("matrixFormat", format, gpuLdu::formatNames());
    }
}


Foam::word Foam::gpuLduKrylovSolver::nativeType() const
{
    return word(gpuLdu::methodName(method_));
}


void Foam::gpuLduKrylovSolver::checkComparable() const
{
    if (!gpuLdu::isOpenFOAMs(preconditioner_))
    {
        errors().noNativePreconditioner(nativeType(), preconditionerName_);
    }
}


Foam::word Foam::gpuLduKrylovSolver::solveName() const
{
    return preconditionerName_ + type();
}


Foam::word Foam::gpuLduKrylovSolver::pivotRole() const
{
    return "preconditioner";
}


Foam::solverPerformance Foam::gpuLduKrylovSolver::solveByCore
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt,
    const gpuLdu::Executor exec,
    gpuLduRankGroup*& group
) const
{
    gpuLduCache& c = cache(exec);
    group = c.rankGroup(exec, matrix_.lduAddr(), interfaces_);

    const gpuLdu::SolveResult result =
        group
      ? solveInGroup(c, *group, psi, source, cmpt)
      : solveOwn(c, exec, psi, source, cmpt);

    logTimes(solveName(), result);
    return performance(solveName(), result);
}


// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduKrylovSolver::gpuLduKrylovSolver
(
    const gpuLdu::KrylovMethod method,
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
    ),
    method_(method),
    preconditioner_(gpuLdu::Preconditioner::none),
    format_(gpuLdu::MatrixFormat::named("auto"))
{}


// ************************************************************************* //
