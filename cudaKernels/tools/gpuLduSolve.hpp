// SPDX-License-Identifier: GPL-3.0-or-later
// gpuLduSolve as a callable program: gpuLduSolveMain is the whole of its main (the command line
// read, the matrix read and solved, the messages and the exit status), so that a test runner
// that loads the libraries once (tests/integration/fuzzRunner.cpp) runs it in forked children
// exactly as the program runs. The files of the tool, by concern:
//   options.{hpp,cpp}   the command line and -help
//   solveRun.{hpp,cpp}  what the solve paths share: the exit statuses, the error that carries
//                       one, the checks of a solve's input and result; the paths' entries
//   krylovRun.cpp       the Krylov solvers' path (-spmv included)
//   ldltRun.cpp         the -solver LDLT path
//   gpuLduSolveMain.cpp gpuLduSolveMain: the file read, its path chosen, the errors turned into
//                       messages and exit statuses
//   gpuLduSolve.cpp     main
#ifndef GPULDU_TOOLS_GPULDUSOLVE_HPP
#define GPULDU_TOOLS_GPULDUSOLVE_HPP

//- gpuLduSolve's main: argv[0] is the program's name, the rest its options; returns the exit status
int gpuLduSolveMain(int argc, char* argv[]);

#endif
