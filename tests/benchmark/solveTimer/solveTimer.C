/*---------------------------------------------------------------------------*\
    gpuLduSolvers: OpenFOAM linear solvers on NVIDIA GPUs
    SPDX-License-Identifier: GPL-3.0-or-later

Description
    A benchmark's stopwatch around any lduMatrix solver, native or the
    plugin's, on every supported release (the Foundation's have no
    profiling): in fvSolution

        p
        {
            solver          timed;
            timedSolver     GAMG;       // the solver that does the work
            ...                         // its controls, as without the timer
        }

    the solver named by timedSolver is selected with the same controls (less
    timedSolver) and each solve prints, on the master, the wall time of the
    solver's construction plus its solve, and when the construction began
    (seconds of the process's steady clock since the library was loaded: the
    starts of two time steps' first solves are a step's wall time apart):

        solveTimer: p GAMG 123.456 ms (construction 1.234 ms) at 12.345678 s

    (OpenFOAM constructs a solver for every solve: native GAMG agglomerates
    the matrices of its levels there). The "Solving for" line is the timed
    solver's own. Built by tests/benchmark/timeStep.sh; no part of the
    plugin.

\*---------------------------------------------------------------------------*/

#include "lduMatrix.H"
#include "addToRunTimeSelectionTable.H"

#include <chrono>
#include <cstdio>

namespace Foam
{

class solveTimer
:
    public lduMatrix::solver
{
    using clock = std::chrono::steady_clock;

    //- The controls of the timed solver: those given, less timedSolver
    static dictionary innerControls(const dictionary& controls)
    {
        dictionary inner(controls);
        inner.set("solver", word(controls.lookup("timedSolver")));
        inner.remove("timedSolver");
        return inner;
    }

    //- When the library was loaded: the origin of the "at" times
    static const clock::time_point loaded_;

    static double millisecondsSince(clock::time_point start)
    {
        return std::chrono::duration<double, std::milli>(clock::now() - start)
            .count();
    }

    clock::time_point constructed_;
    autoPtr<lduMatrix::solver> timed_;
    double constructionMs_;

public:

    TypeName("timed");

    solveTimer
    (
        const word& fieldName,
        const lduMatrix& matrix,
        const FieldField<Field, scalar>& interfaceBouCoeffs,
        const FieldField<Field, scalar>& interfaceIntCoeffs,
        const lduInterfaceFieldPtrsList& interfaces,
        const dictionary& solverControls
    )
    :
        lduMatrix::solver
        (
            fieldName,
            matrix,
            interfaceBouCoeffs,
            interfaceIntCoeffs,
            interfaces,
            solverControls
        ),
        constructed_(clock::now()),
        timed_
        (
            lduMatrix::solver::New
            (
                fieldName,
                matrix,
                interfaceBouCoeffs,
                interfaceIntCoeffs,
                interfaces,
                innerControls(solverControls)
            )
        ),
        constructionMs_(millisecondsSince(constructed_))
    {}

    virtual solverPerformance solve
    (
        scalarField& psi,
        const scalarField& source,
        const direction cmpt = 0
    ) const
    {
        const clock::time_point start = clock::now();
        const solverPerformance performance =
            timed_->solve(psi, source, cmpt);
        const double solveMs = millisecondsSince(start);

        // fixed decimals: Info's six significant digits would round "at"
        // to 0.1 s after a quarter of an hour
        const double atSeconds = std::chrono::duration<double>
        (
            constructed_ - loaded_
        ).count();
        char times[128];
        std::snprintf
        (
            times, sizeof(times), "%.3f ms (construction %.3f ms) at %.6f s",
            constructionMs_ + solveMs, constructionMs_, atSeconds
        );
        Info<< "solveTimer: " << fieldName_ << " " << timed_->type() << " "
            << times << endl;

        return performance;
    }
};

defineTypeNameAndDebug(solveTimer, 0);

const solveTimer::clock::time_point solveTimer::loaded_ =
    solveTimer::clock::now();

lduMatrix::solver::addsymMatrixConstructorToTable<solveTimer>
    addSolveTimerSymMatrixConstructorToTable_;

lduMatrix::solver::addasymMatrixConstructorToTable<solveTimer>
    addSolveTimerAsymMatrixConstructorToTable_;

} // End namespace Foam
