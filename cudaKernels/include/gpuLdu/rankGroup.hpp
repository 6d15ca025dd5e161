// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a group (the ranks that share a device) as one system, as plain index work: no
// OpenFOAM type crosses this header (C++11: the OpenFOAM layer of v1912 includes it). The OpenFOAM layer (gpuLduGroupSystem) gathers each rank's
// addressing and coupled patches, combines them here (the finest level for the Krylov solvers,
// every level of a GAMG hierarchy by the same function) and moves values by the typed messages
// below; what keeps the result that of native mpirun -np N is in gpuLduGroupSystem.H.

#pragma once

#include "gpuLdu/gpuLdu.hpp"

#include <memory>
#include <vector>

namespace gpuLdu
{

// ---------------------------------------------------------------------------------------------
// Combining the ranks' levels
// ---------------------------------------------------------------------------------------------

//- What lies across a rank's coupled patch (RankLevel::patchNeighbour), besides a group rank
//  (>= 0: a plain processor patch to that rank of the group)
constexpr int hostPatch = -1;  //!< any other coupled patch: the rank evaluates it on the host
constexpr int noPatch = -2;    //!< no interface at this patch index

//- Where a rank's coupled patch is evaluated. OpenFOAM subtracts the interface terms patch after
//  patch; the patches held by the system (DeviceCouplings) take one stretch of that order, the
//  host's patches before it are early, those after it late (the values of InterfacePhase).
enum class PatchPlace
{
    early = int(InterfacePhase::early),
    late = int(InterfacePhase::late),
    inSystem
};

//- One rank's level: its LDU addressing and its coupled patches, in its own numbering
struct RankLevel
{
    int nCells = 0;
    std::vector<int> lower;
    std::vector<int> upper;
    //- Per coupled patch index: a group rank, hostPatch or noPatch (see above)
    std::vector<int> patchNeighbour;
    //- Per patch index: its face cells (empty at a noPatch)
    std::vector<std::vector<int>> patchCells;
    //- Whether the rank updates its interfaces in patch order (not so under commsType scheduled
    //  where the mesh's schedule is not patch order)
    bool inPatchOrder = true;
};

//- The ranks' levels combined: rank r's cells are rows [rowStart[r], rowStart[r+1]), its faces
//  [faceStart[r], faceStart[r+1]) (block diagonal addressing), the coefficients of its patches in
//  the system [termStart[r], termStart[r+1]) of the ranks' terms one after the other (patch
//  after patch, face after face), its host interface cells (sorted, distinct, each rank's own)
//  [hostCellStart[r], hostCellStart[r+1]) of hostCells.
struct CombinedLevel
{
    std::vector<int> rowStart{0};
    std::vector<int> faceStart{0};
    std::vector<int> termStart{0};
    std::vector<int> hostCellStart{0};
    std::vector<int> lower;
    std::vector<int> upper;
    std::vector<int> hostCells;
    //- The device coupling terms: row a cell of one rank, column the cell across the processor
    //  face on the other; rows ascending, a row's terms in its patch and face order
    DeviceCouplings couplings;
    //- Device coupling term k takes coefficient termSource[k] of the ranks' terms
    std::vector<int> termSource;
    //- Per rank: whether it has host patches of each InterfacePhase (indexed by it)
    std::vector<bool> hasPhase[2];
    //- Whether the group keeps all its patches on the host (keepsPatchesOnHost)
    bool onHost = false;

    int nCells() const { return rowStart.back(); }
    int nFaces() const { return int(lower.size()); }
    int nRanks() const { return int(rowStart.size()) - 1; }
    LduAddressingView view() const
    {
        LduAddressingView v;
        v.nCells = nCells();
        v.nFaces = nFaces();
        v.lower = lower.data();
        v.upper = upper.data();
        return v;
    }
};

//- Whether the group keeps all its patches on the host (late): where a rank's patches to the
//  group are not one stretch of its patch list, the two sides of a pair of patches do not match
//  face for face (the q-th patch of r to j meets the q-th of j to r), or a rank updates its
//  interfaces out of patch order. Slower, the same numbers.
bool keepsPatchesOnHost(const std::vector<RankLevel>& ranks);

//- A rank's place for each coupled patch: its patches to the group in the system, the host's
//  patches before the first of them early, the rest late; every patch late where onHost
std::vector<PatchPlace> patchPlaces(const std::vector<int>& patchNeighbour, bool onHost);

//- The interface cells a rank's host evaluates (its patches not in the system), sorted and
//  distinct, as its gpuLduCoupling lists them
std::vector<int> hostInterfaceCells(const RankLevel& rank, const std::vector<PatchPlace>& places);

//- The number of a rank's face coefficients the system holds (its patches in the system)
int systemTermCount(const RankLevel& rank, const std::vector<PatchPlace>& places);

//- The ranks' levels combined (see CombinedLevel); ranks[r] is group rank r
CombinedLevel combineRanks(const std::vector<RankLevel>& ranks);

//- One coarsening step of OpenFOAM's agglomeration (GAMGAgglomeration, level k to k+1): fine
//  cell to coarse cell, fine face to coarse face (>= 0) or -1 - the coarse cell that holds it,
//  and per fine face whether it is flipped on the coarse face
struct Coarsening
{
    std::vector<int> restrictAddressing;
    std::vector<int> faceRestrictAddressing;
    std::vector<bool> faceFlipMap;
};

//- The ranks' coarsening steps of one level one after the other, a rank's coarse cells and faces
//  offset by the ranks' before it on the combined coarse level
struct CombinedCoarsening
{
    std::vector<int> restrictAddressing;
    std::vector<int> faceRestrictAddressing;
    //- bool, one per fine face (a plain array: GamgLevelView points into it)
    std::unique_ptr<bool[]> faceFlipMap;

    //- The step for makeGamgSystem, onto the combined coarse level
    GamgLevelView view(const CombinedLevel& coarse) const;
};

CombinedCoarsening combineCoarsening
(
    const std::vector<Coarsening>& ranks,
    const CombinedLevel& coarse
);

//- Whether the combined levels of a hierarchy can be one: every level holds all the patches
//  (none on the host, no host cell)
bool oneHierarchy(const std::vector<CombinedLevel>& levels);

//- The device coupling terms' coefficients from the ranks' terms one after the other
std::vector<double> termCoefficients(const std::vector<int>& termSource, const double* rankTerms);

//- The part (rank of the group) whose range [start[k], start[k+1]) holds index, and the index
//  there; part -1 (local the index) where none does
struct PartIndex
{
    int part = -1;
    int local = 0;
};
PartIndex locatePart(const std::vector<int>& start, int index);

// ---------------------------------------------------------------------------------------------
// The messages of a solve between the group's owner and its other ranks
// ---------------------------------------------------------------------------------------------

//- What the owner asks a rank of its group during a solve; a rank serves requests until done
enum class GroupRequestKind
{
    sum,        //!< hand value to OpenFOAM's sum reduce
    product,    //!< y -= a phase's interface terms of the rank's host patches; y comes back
    done,       //!< the solve's result; the rank's psi follows
    maximum     //!< hand value to OpenFOAM's max reduce
};

//- The interface products a product request asks for
enum class InterfaceProduct
{
    a,          //!< of A x (interfaceProduct)
    transposed, //!< of A^T x (interfaceProductT)
    rowSums     //!< of sumA (interfaceRowSums; no x)
};

//- A request of the owner to one rank of the group
struct GroupRequest
{
    GroupRequestKind kind = GroupRequestKind::done;
    //- product: which, and of which phase
    InterfaceProduct product = InterfaceProduct::a;
    InterfacePhase phase = InterfacePhase::early;
    //- sum, maximum: the rank's partial (its own value)
    double value = 0;
    //- product: x (not for rowSums) and y at the rank's host interface cells
    std::vector<double> x;
    std::vector<double> y;
    //- done: the solve's result (handOverSeconds: the owner's hand-over so far)
    SolveResult result;
};

//- The doubles a request travels as: kind, product, phase, then value (sum, maximum), x and y
//  (product) or the result's fields (done). Written into message (its size the request's).
void encodeRequest(const GroupRequest& request, std::vector<double>& message);

//- The request of a message of n doubles; throws std::runtime_error where the message is not
//  one (unknown kind, a product whose x and y differ in size)
GroupRequest decodeRequest(const double* message, int n);

//- The largest message of a request to a rank with nHostCells host interface cells
int maxRequestSize(int nHostCells);

} // namespace gpuLdu
