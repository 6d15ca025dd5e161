// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve: one Matrix Market matrix through the core, outside OpenFOAM. Reads the matrix,
// stores it in the chosen format on the chosen executor, optionally times A x and checks it
// against the host product, then solves A x = b for b = A*1 (so the exact x is 1) from x = 0 with
// one of OpenFOAM's Krylov loops or the sparse LDL^T direct solver, and prints one fact per line.
// The exit status says how it ended (ExitStatus, in -help and the README), so that a script can
// tell a solution from a solve that stopped short or broke down, and both from bad input.
// The program is gpuLduSolveMain (gpuLduSolve.hpp lists the files it is made of).

#include "gpuLduSolve.hpp"

int main(int argc, char* argv[])
{
    return gpuLduSolveMain(argc, argv);
}
