/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduKrylovSolver.H"
#include "gpuLduCache.H"
#include "gpuLduCoupling.H"
#include "gpuLduRankGroup.H"

// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

Foam::word Foam::gpuLduKrylovSolver::preconditionerName() const
{
    return lduMatrix::preconditioner::getName(controlDict_);
}


gpuLdu::Preconditioner Foam::gpuLduKrylovSolver::preconditionerType() const
{
    // As OpenFOAM picks its preconditioner table by the matrix's symmetry
    const word name = preconditionerName();
    const bool symmetric = matrix_.symmetric();
    try
    {
        return gpuLdu::preconditionerFromName(name, method(), symmetric);
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue
        (
            "preconditioner",
            name,
            gpuLdu::preconditionerNames(method(), symmetric)
        );
    }
    return gpuLdu::Preconditioner::none;
}


gpuLdu::MatrixFormat Foam::gpuLduKrylovSolver::matrixFormat() const
{
    const word name = controlDict_.lookupOrDefault<word>("matrixFormat", "auto");
    try
    {
        return gpuLdu::MatrixFormat::named(name);
    }
    catch (const gpuLdu::Error&)
    {
        errors().unknownValue("matrixFormat", name, gpuLdu::formatNames());
    }
    return gpuLdu::MatrixFormat::named("auto");
}


gpuLdu::LduSystem& Foam::gpuLduKrylovSolver::formatted
(
    gpuLduCache& cache,
    gpuLdu::LduSystem& sys
) const
{
    const gpuLdu::MatrixFormat asked = matrixFormat();
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
        method(), matrix_, interfaceBouCoeffs_, interfaceIntCoeffs_,
        coupling, psi, source, controls(), preconditionerType()
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
        method(),
        psi.data(),
        source.cdata(),
        controls(),
        preconditionerType(),
        coupling
    );
}


// * * * * * * * * * * * * * Protected Member Functions  * * * * * * * * * * //

Foam::wordList Foam::gpuLduKrylovSolver::keywords() const
{
    return wordList{"executor", "checkNative", "matrixFormat"};
}


void Foam::gpuLduKrylovSolver::checkControls(const label) const
{
    preconditionerType();
}


Foam::word Foam::gpuLduKrylovSolver::nativeType() const
{
    return word(gpuLdu::methodName(method()));
}


void Foam::gpuLduKrylovSolver::checkComparable() const
{
    const gpuLdu::Preconditioner preconditioner = preconditionerType();
    if (!gpuLdu::isOpenFOAMs(preconditioner))
    {
        errors().noNativePreconditioner(nativeType(), preconditionerName());
    }
}


Foam::word Foam::gpuLduKrylovSolver::solveName() const
{
    return preconditionerName() + type();
}


Foam::word Foam::gpuLduKrylovSolver::pivotRole() const
{
    return "preconditioner";
}


Foam::solverPerformance Foam::gpuLduKrylovSolver::solveSystem
(
    scalarField& psi,
    const scalarField& source,
    const direction cmpt,
    gpuLduRankGroup*& group
) const
{
    const gpuLdu::Executor exec = executor();
    gpuLduCache& c = cache(exec);
    group = c.rankGroup(exec, matrix_.lduAddr(), interfaces_);

    const gpuLdu::SolveResult result =
        group
      ? solveInGroup(c, *group, psi, source, cmpt)
      : solveOwn(c, exec, psi, source, cmpt);

    return performance(solveName(), result);
}


// ************************************************************************* //
