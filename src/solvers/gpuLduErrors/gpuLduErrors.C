/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later
\*---------------------------------------------------------------------------*/

#include "gpuLduErrors.H"
#include "gpuLduCache.H"
#include "gpuLduRankGroup.H"
#include "OStringStream.H"
#include "Pstream.H"

#include <cmath>

// * * * * * * * * * * * * * * * * Constructors  * * * * * * * * * * * * * * //

Foam::gpuLduErrors::gpuLduErrors
(
    const word& fieldName,
    const word& solverType,
    const dictionary& controls
)
:
    fieldName_(fieldName),
    solverType_(solverType),
    controls_(controls)
{}


// * * * * * * * * * * * * * Private Member Functions  * * * * * * * * * * * //

std::string Foam::gpuLduErrors::cause
(
    const gpuLdu::BadValue& bad,
    const word& role
)
{
    OStringStream why;
    if (bad.kind == gpuLdu::ValueKind::pivot)
    {
        why<< "A zero or non-finite pivot: the " << role << "'s "
            << (
                   bad.pivotOf == "diagonal"
                 ? "division by the diagonal"
                 : "factorisation"
               )
            << " cannot take it." << nl
            << "Check the matrix (a zero diagonal, a cell without coefficients)"
            << " or use another " << role << ".";
    }
    else
    {
        why<< bad.count << " value(s) of the matrix, source and initial guess"
            << " are not finite; nothing was solved." << nl
            << "They come from the case: a field, boundary condition or source"
            << " that is not finite, or an earlier solve that diverged.";
    }
    return why.str();
}


// * * * * * * * * * * * * * * Errors of the Controls  * * * * * * * * * * * //

void Foam::gpuLduErrors::unknownValue
(
    const word& what,
    const word& name,
    const std::vector<std::string>& valid
) const
{
    wordList names;
    for (const std::string& keyword : valid)
    {
        names.append(word(keyword));
    }
    FatalIOErrorInFunction(controls_)
        << "Unknown " << what << " " << name << " for field " << fieldName_
        << " (solver " << solverType_ << ")" << nl << nl
        << "Valid " << what << "s :" << nl << names
        << exit(FatalIOError);
}


void Foam::gpuLduErrors::gpuUnavailable(const std::string& reason) const
{
    FatalErrorInFunction
        << "executor gpu selected for field " << fieldName_
        << " (solver " << solverType_ << "), but " << reason.c_str()
        << nl << "Use 'executor cpu;' in its solver dictionary"
        << " to run the same algorithms on the host."
        << exit(FatalError);
}


void Foam::gpuLduErrors::noNativePreconditioner
(
    const word& nativeType,
    const word& preconditionerName
) const
{
    FatalIOErrorInFunction(controls_)
        << "checkNative for field " << fieldName_ << " compares with "
        << nativeType << " and OpenFOAM's own preconditioners; "
        << preconditionerName << " has no native counterpart"
        << exit(FatalIOError);
}


void Foam::gpuLduErrors::noNativeSmoother(const word& smootherName) const
{
    FatalIOErrorInFunction(controls_)
        << "checkNative for field " << fieldName_ << " (solver "
        << solverType_ << ") compares with native GAMG, which has no"
        << " smoother " << smootherName << nl
        << "Remove checkNative, or use one of OpenFOAM's smoothers."
        << exit(FatalIOError);
}


void Foam::gpuLduErrors::processorAgglomeration() const
{
    FatalIOErrorInFunction(controls_)
        << "processorAgglomerator for field " << fieldName_
        << " (solver " << solverType_ << ") is not available: each"
        << " rank keeps its own levels" << nl
        << "Remove processorAgglomerator, or use solver GAMG."
        << exit(FatalIOError);
}


void Foam::gpuLduErrors::negativeCount
(
    const word& keyword,
    const label n,
    const std::vector<std::pair<std::string, std::string>>& valid
) const
{
    FatalIOErrorInFunction(controls_)
        << keyword << " " << n << " for field " << fieldName_
        << " (solver " << solverType_ << ")" << nl << nl
        << "Valid values :" << nl;
    for (const auto& v : valid)
    {
        FatalIOError
            << "    " << v.first.c_str()
            << string(v.first.size() < 5 ? 5 - v.first.size() : 1, ' ').c_str()
            << v.second.c_str() << nl;
    }
    FatalIOError << exit(FatalIOError);
}


// * * * * * * * * * * * * * * Errors of a Solve  * * * * * * * * * * * * * //

void Foam::gpuLduErrors::notFiniteVolume() const
{
    FatalErrorInFunction
        << solverType_ << " solves matrices of finite-volume meshes only;"
        << " field " << fieldName_ << " is not on one"
        << exit(FatalError);
}


void Foam::gpuLduErrors::badValue
(
    const word& solveName,
    const gpuLdu::BadValue& bad,
    const gpuLduCache& cache,
    const gpuLduRankGroup* group,
    const label myProcNo,
    const word& role
) const
{
    // A row (face) of the system: the rank it comes from and its number
    // there (this rank's own, but on a group's owner)
    const bool coarse = bad.level > 0;
    const auto locate = [&](label index, bool isFace, label& proci, label& local)
    {
        proci = myProcNo;
        local = index;
        if (group && !coarse)
        {
            group->locate(index, isFace, proci, local);
        }
    };
    // A cell in words: its global number (a coarse GAMG level's cells are
    // the level's own)
    const auto cell = [&](label row) -> std::string
    {
        label proci, local;
        locate(row, false, proci, local);
        OStringStream os;
        if (coarse)
        {
            os  << "coarse cell " << local << " of GAMG level " << bad.level;
        }
        else
        {
            os  << "cell " << cache.globalCells().toGlobal(proci, local);
            if (Pstream::parRun())
            {
                os  << " (processor " << proci << ", local cell " << local
                    << ")";
            }
        }
        return os.str();
    };

    const word kind(gpuLdu::valueKindName(bad.kind), false);
    OStringStream what;
    switch (bad.kind)
    {
        case gpuLdu::ValueKind::upper:
        case gpuLdu::ValueKind::lower:
        {
            label proci, face;
            locate(bad.index, true, proci, face);
            what<< "the " << kind << " coefficient is " << bad.value
                << " at face " << face
                << (Pstream::parRun() && !coarse ? " of processor " : "");
            if (Pstream::parRun() && !coarse)
            {
                what<< proci;
            }
            what<< ", in the row of " << cell(bad.row).c_str()
                << " and the column of " << cell(bad.col).c_str();
            break;
        }
        case gpuLdu::ValueKind::pivot:
        {
            const word of(bad.pivotOf, false);
            what<< "the " << of << " pivot is " << bad.value << " at "
                << cell(bad.row).c_str();
            break;
        }
        default:
            what<< "the " << kind << " is " << bad.value << " at "
                << cell(bad.row).c_str();
    }

    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solveName << ": "
        << what.str().c_str() << nl << cause(bad, role).c_str()
        << exit(FatalError);
}


void Foam::gpuLduErrors::nonFiniteResidual
(
    const word& solveName,
    const scalar value,
    const label iteration
) const
{
    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solveName
        << ": the residual became " << value << " at iteration "
        << iteration << nl
        << "The matrix or source is not finite, or the solution diverged."
        << exit(FatalError);
}


void Foam::gpuLduErrors::failed(const std::exception& e) const
{
    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solverType_
        << " failed: " << e.what() << exit(FatalError);
}


void Foam::gpuLduErrors::nonFiniteRefinement
(
    const scalar value,
    const label step
) const
{
    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solverType_
        << ": the residual became " << value
        << " at refinement step " << step << nl
        << "The matrix or source is not finite."
        << exit(FatalError);
}


void Foam::gpuLduErrors::refinementStalled
(
    const scalar finalResidual,
    const label nSteps,
    const scalar tolerance,
    const scalar relTol,
    const label nStaticPivots
) const
{
    // As native: the log line shows the residual reached; the direct solve
    // of the whole matrix went as far as rounding allows
    WarningInFunction
        << "Solving for " << fieldName_ << " with " << solverType_
        << ": the residual is " << finalResidual << " after "
        << nSteps << " refinement steps (tolerance "
        << tolerance << ", relTol " << relTol << "; "
        << nStaticPivots << " pivots replaced by static"
        << " pivoting): the refinement stopped gaining. The matrix is"
        << " singular or too ill-conditioned for this tolerance." << endl;
}


void Foam::gpuLduErrors::refinementNotConverged
(
    const scalar initialResidual,
    const scalar finalResidual,
    const label nSteps,
    const label maxIter,
    const scalar tolerance,
    const scalar relTol
) const
{
    FatalErrorInFunction
        << "Solving for " << fieldName_ << " with " << solverType_
        << ": the residual is " << finalResidual << " after "
        << nSteps << " refinement steps (maxIter " << maxIter
        << "; initial residual " << initialResidual << ", tolerance "
        << tolerance << ", relTol " << relTol << ")" << nl;

    FatalError
        << "The direct solve factors each rank's local matrix; the"
        << " coupled interfaces (processor patches of a decomposed case,"
        << " cyclics) enter only through the residual, so the refinement"
        << " is block Jacobi across them and has not converged." << nl
        << "Decomposed or coupled cases need an iterative solver:"
        << " PCGGPU or GAMGGPU (or a larger maxIter)."
        << exit(FatalError);
}


// ************************************************************************* //
