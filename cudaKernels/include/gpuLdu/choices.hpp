// SPDX-License-Identifier: GPL-3.0-or-later
// The choices a solve takes by keyword: executor, Krylov method, preconditioner, matrix format;
// their names, listings and lookups (generated from the registries' lists in
// cudaKernels/keywords/keywords.cpp), and the edit distance behind "did you mean". Part of the core's interface: gpuLdu.hpp includes every part.

#ifndef GPULDU_CHOICES_HPP
#define GPULDU_CHOICES_HPP

#include "gpuLdu/errors.hpp"

#include <string>
#include <type_traits>
#include <vector>

namespace gpuLdu
{

//- The edit distance (Levenshtein: the fewest insertions, deletions and substitutions of one
//  letter) between two keywords, letters compared regardless of case
int editDistance(const std::string& a, const std::string& b);

//- The candidate closest to name by editDistance (the first of equals), where it is within
//  max(2, length/3) edits of it (a slip, not another word); else empty
std::string closestKeyword(const std::string& name, const std::vector<std::string>& candidates);

//- Where the algorithms run: the same source compiled for the host (Thrust CPP system) or for
//  an NVIDIA GPU (Thrust CUDA system plus hand-written kernels).
enum class Executor
{
    cpu,
    gpu
};

//- The keyword of an executor: cpu, gpu
std::string executorName(Executor executor);

//- The keywords of all executors
std::vector<std::string> executorNames();

//- The executor of a keyword; throws Error naming the valid keywords.
Executor executorFromName(const std::string& name);

//- A choice among the keywords of one of the core's registries (cudaKernels/registry/
//  Registry.hpp): its place among them, id 0 the first keyword of the list's first entry. Kind
//  is the choice's own type (Preconditioner, KrylovMethod, MatrixFormat, ...), so that choices
//  of two kinds never compare.
template<class Kind>
class RegisteredChoice
{
    int id_ = 0;

public:
    constexpr RegisteredChoice() = default;

    explicit constexpr RegisteredChoice(int id)
    :
        id_(id)
    {}

    constexpr int id() const
    {
        return id_;
    }
};

//- Whether a type is a registered choice (a RegisteredChoice of itself). In C++11, as the
//  OpenFOAM layer includes this header with its release's flags.
template<class Kind>
struct IsRegisteredChoice : std::is_base_of<RegisteredChoice<Kind>, Kind>
{};

//- Two choices of one kind compare by their place (ordered: a key of an ordered map)
template<class Kind, class = typename std::enable_if<IsRegisteredChoice<Kind>::value>::type>
constexpr bool operator==(Kind a, Kind b)
{
    return a.id() == b.id();
}

template<class Kind, class = typename std::enable_if<IsRegisteredChoice<Kind>::value>::type>
constexpr bool operator!=(Kind a, Kind b)
{
    return a.id() != b.id();
}

template<class Kind, class = typename std::enable_if<IsRegisteredChoice<Kind>::value>::type>
constexpr bool operator<(Kind a, Kind b)
{
    return a.id() < b.id();
}

//- A preconditioner of the core's registry (cudaKernels/precond/PreconditionerList.hpp, one
//  class per file: none, diagonal, DIC/FDIC and DILU (OpenFOAM's), ILU0 (the zero-fill
//  incomplete LU of the CSR matrix, the plugin's own)): its place among the registered
//  keywords. Named by keyword (Preconditioner::named("DIC")); the default is none.
class Preconditioner : public RegisteredChoice<Preconditioner>
{
public:
    using RegisteredChoice::RegisteredChoice;

    //- None: w = r
    static const Preconditioner none;

    //- The preconditioner of any registered keyword (whatever the matrix); throws Error
    //  naming the valid keywords
    static Preconditioner named(const std::string& keyword);
};

//- A Krylov loop of the core's registry (cudaKernels/krylov/KrylovMethodList.hpp, one class per
//  file: OpenFOAM's PCG (symmetric matrices), PBiCG (asymmetric), PBiCGStab (both)). Named by
//  OpenFOAM's solver name (KrylovMethod::named("PCG")); throws Error naming the valid ones.
class KrylovMethod : public RegisteredChoice<KrylovMethod>
{
public:
    using RegisteredChoice::RegisteredChoice;

    static KrylovMethod named(const std::string& keyword);
};

//- The keyword of a method: OpenFOAM's solver name (PCG, PBiCG, PBiCGStab)
std::string methodName(KrylovMethod method);

//- The keywords of all methods, in the list's order
std::vector<std::string> methodNames();

//- Whether OpenFOAM registers the method for a symmetric (PCG, PBiCGStab) or an asymmetric
//  (PBiCG, PBiCGStab) matrix
bool methodTakes(KrylovMethod method, bool symmetric);

//- The keyword of a preconditioner (its registered name: DIC for FDIC)
std::string preconditionerName(Preconditioner preconditioner);

//- The keywords of all preconditioners, aliases included (as preconditionerNames(method,
//  symmetric) lists them)
std::vector<std::string> preconditionerNames();

//- The keywords a method accepts on a symmetric or an asymmetric matrix, as OpenFOAM's run-time
//  tables do (DIC and FDIC for symmetric matrices, DILU for asymmetric ones, none and diagonal
//  for both), and the plugin's own (ILU0, both); empty where the method does not take such a
//  matrix. Listed as OpenFOAM lists a table (its own sorted), then the plugin's own.
std::vector<std::string> preconditionerNames(KrylovMethod method, bool symmetric);

//- Whether OpenFOAM has the preconditioner (native can run the same solve: checkNative)
bool isOpenFOAMs(Preconditioner preconditioner);

//- The preconditioner of a keyword that the method accepts on such a matrix (FDIC, OpenFOAM's
//  DIC with rD*upper cached, is the same arithmetic: DIC); throws Error naming the valid
//  keywords.
Preconditioner preconditionerFromName(const std::string& name, KrylovMethod method, bool symmetric);

//- How A is stored for the products A x and A^T x (the preconditioners always work on CSR), a
//  choice of the core's registry (cudaKernels/matrix/FormatList.hpp, one class per file under
//  matrix/formats/). The format changes speed, never results: every format sums a row's terms
//  in OpenFOAM's order (diagonal, then the off-diagonals by ascending column).
//    csr         one thread per row over the row's entries
//    ell         ELLPACK: every row padded to the longest, stored column-major
//    blockedEll  ELLPACK per group of 32 rows (one warp), padded to the group's longest row
//    hyb         ELLPACK of width K (Bell and Garland's choice) + the rest as row-sorted COO
//    hec         ELLPACK of width K (the largest K whose ELLPACK part is more than half
//                non-zero) + the rest as CSR
//    auto        chosen from the row-length statistics by chooseFormat
//  Named by keyword (MatrixFormat::named("ell")); throws Error naming the valid ones. The
//  default is the list's first, csr.
class MatrixFormat : public RegisteredChoice<MatrixFormat>
{
public:
    using RegisteredChoice::RegisteredChoice;

    static MatrixFormat named(const std::string& keyword);
};

//- The keyword of a format: csr, ell, blockedEll, hyb, hec, auto
std::string formatName(MatrixFormat format);

//- The keywords of all formats, in the order above
std::vector<std::string> formatNames();

//- Whether the format stands for another, chosen per matrix (auto)
bool isChosenPerMatrix(MatrixFormat format);

//- Row-length statistics of a pattern: what the automatic choice looks at.
struct RowLengthStats
{
    int nRows = 0;
    long nnz = 0;
    int minLength = 0;
    int maxLength = 0;
    //- Rows longer than the mean by more than half of it
    int nLongRows = 0;

    double meanLength() const
    {
        return nRows > 0 ? double(nnz)/nRows : 0.0;
    }
};

//- The rule behind matrixFormat auto (matrix/formats/Automatic.hpp, from the measurements in
//  docs/performance.md): never auto itself.
MatrixFormat chooseFormat(const RowLengthStats& stats);

} // namespace gpuLdu

#endif
