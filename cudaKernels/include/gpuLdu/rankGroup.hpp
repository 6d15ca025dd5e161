// SPDX-License-Identifier: GPL-3.0-or-later
// The ranks of a group (the ranks that share a device) as one system, as plain index work: no
// OpenFOAM type crosses this header (C++11: the OpenFOAM layer of v1912 includes it). The OpenFOAM layer (gpuLduRankGroup) gathers each rank's
// addressing and coupled patches, combines them here (the finest level for the Krylov solvers,
// every level of a GAMG hierarchy by the same function) and moves values by the typed messages
// below; what keeps the result that of native mpirun -np N is in gpuLduRankGroup.H.

#pragma once

#include "gpuLdu/gpuLdu.hpp"

#include <algorithm>
#include <cstddef>
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

//- A plain processor patch to mesh rank s of another group: -3 - s (remotePatch). Its faces are
//  device terms whose columns are halo values, x across the faces that the group's owner and the
//  other group's exchange (GroupHalo), so that every processor patch of the group is a device term
inline int remotePatch(int meshRank) { return -3 - meshRank; }
inline bool isRemotePatch(int neighbour) { return neighbour <= -3; }
inline int remoteRank(int neighbour) { return -3 - neighbour; }

//- Patch patchi's place among the patches to the same neighbour before it (0: the first): the
//  q-th patch between two ranks meets the other rank's q-th face for face
inline int patchOrdinal(const std::vector<int>& patchNeighbour, int patchi)
{
    return int(std::count(patchNeighbour.begin(), patchNeighbour.begin() + patchi, patchNeighbour[patchi]));
}

//- Whether a patch neighbour is a processor patch the system holds: to a rank of the group or to
//  one of another group
inline bool processorTerms(int neighbour) { return neighbour >= 0 || isRemotePatch(neighbour); }

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

//- Where a group's ranks stand among the mesh's (its processor patches to other groups): each
//  group rank's mesh rank, and the owner (its group's first rank) of every mesh rank
struct GroupWorld
{
    std::vector<int> rank;
    std::vector<int> ownerOf;
};

//- A level's exchange with the other groups: the owner sends x at the cells of its faces to each
//  neighbouring group and receives x across them (the halo), one message each way per neighbour.
//  A message from group A to B holds, for the pairs (rank a of A, rank b of B, the q-th patch of
//  a to b) in ascending order, x at the patch's face cells in face order; b's q-th patch to a
//  meets that patch face for face (OpenFOAM numbers a processor patch's faces, and a
//  processorGAMGInterface's coarse faces, alike on both sides), so both owners place the values
//  without asking each other. The device terms of a patch to another group read the halo
//  (DeviceCouplings::cols >= the level's cells).
struct GroupHalo
{
    //- The neighbouring groups' owners (mesh ranks), ascending
    std::vector<int> neighbours;
    //- Neighbour k's values: [sendStart[k], sendStart[k+1]) of DeviceCouplings::haloSend, and
    //  [recvStart[k], recvStart[k+1]) of the halo
    std::vector<int> sendStart{0};
    std::vector<int> recvStart{0};

    int nSend() const { return sendStart.back(); }
    int nHalo() const { return recvStart.back(); }
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
    //- The exchange with other groups of the device terms of patches to them (couplings' halo)
    GroupHalo halo;
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

//- A combined level's host interface cells of each rank, kept without its addressing: where
//  rank r's start among the level's (hostCellStart) and whether it has host patches of each
//  InterfacePhase (hasPhase)
struct HostPhases
{
    std::vector<int> cellStart{0};
    std::vector<bool> has[2];
    //- The level's exchange with the other groups (the owner's coupling makes it)
    GroupHalo halo;

    //- Whether some rank has host patches of the phase
    bool any(InterfacePhase phase) const;
};
HostPhases hostPhases(const CombinedLevel& level);

//- Whether a rank's processor patches in a system (to the group and to other groups:
//  processorTerms) are one stretch of its patch list: no host patch between them
bool groupPatchesContiguous(const std::vector<int>& patchNeighbour);

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

//- The ranks' levels combined (see CombinedLevel); ranks[r] is group rank r. Their faces are
//  copied on up to threads threads (onHostThreads), a rank each. world: where the ranks stand
//  among the mesh's, needed (else Error) where a rank has patches to other groups (remotePatch)
CombinedLevel combineRanks
(
    const std::vector<RankLevel>& ranks,
    int threads = 1,
    const GroupWorld* world = nullptr
);

//- The exchange of a level with other groups (GroupHalo) for the ranks' patches to them, the
//  ranks' rows from rowStart; haloStart[r][patchi]: where rank r's patch patchi's faces start in
//  the halo (-1: not a patch to another group). Throws Error where a patch leads to a rank
//  outside world or to the group itself.
GroupHalo planHalo
(
    const std::vector<RankLevel>& ranks,
    const std::vector<int>& rowStart,
    const GroupWorld& world,
    std::vector<int>& haloSend,
    std::vector<std::vector<int>>& haloStart
);

//- One coarsening step of OpenFOAM's agglomeration (GAMGAgglomeration, level k to k+1): fine
//  cell to coarse cell, fine face to coarse face (>= 0) or -1 - the coarse cell that holds it,
//  and per fine face whether it is flipped on the coarse face (1, else 0: a byte a face, as
//  OpenFOAM's boolList, packed and unpacked word by word, not bit by bit as std::vector<bool>)
struct Coarsening
{
    std::vector<int> restrictAddressing;
    std::vector<int> faceRestrictAddressing;
    std::vector<char> faceFlipMap;
};

//- Flags 32 to an int (flag k is bit k % 32 of int k / 32), as a rank's set-up message carries
//  its steps' flip maps: a thirty-second of the ints, millions of faces at 8M cells
std::vector<int> packFlags(const std::vector<char>& flags);

//- The n flags of packed (packFlags), each 1 or 0; throws Error where packed does not hold n
//  flags
std::vector<char> unpackFlags(const std::vector<int>& packed, std::size_t n);

//- What a rank brings to its group's set-up: whether it can join (GAMG: its patches allow one
//  hierarchy), its levels (one for the Krylov system; GAMG's coarse levels, its finest being
//  the Krylov system's) and the coarsening steps between
struct RankSetup
{
    bool eligible = true;
    std::vector<RankLevel> levels;
    std::vector<Coarsening> steps;
};

//- A rank's set-up as one message of ints, sent as raw bytes and read straight into the owner's
//  buffer (no stream, no list copied twice): whether eligible; per level its cells, lower,
//  upper, patch neighbours, patch cells and patch order; per step its restrict maps and its
//  flips 32 to an int (packFlags); every list after its length. Written into message.
void packRankSetup(const RankSetup& setup, std::vector<int>& message);

//- The set-up of a message of n ints (packRankSetup); throws Error where it is not one (a
//  length past its end or negative, ints left over, flips that do not fit)
RankSetup unpackRankSetup(const int* message, std::size_t n);

//- The ranks' coarsening steps of one level one after the other, a rank's coarse cells and faces
//  offset by the ranks' before it on the combined coarse level
struct CombinedCoarsening
{
    std::vector<int> restrictAddressing;
    std::vector<int> faceRestrictAddressing;
    //- bool, one per fine face (a plain array: GamgLevelView points into it)
    std::unique_ptr<bool[]> faceFlipMap;

    //- The step for makeGamgHierarchy, onto the combined coarse level
    GamgLevelView view(const CombinedLevel& coarse) const;
};

CombinedCoarsening combineCoarsening
(
    const std::vector<Coarsening>& ranks,
    const CombinedLevel& coarse
);

//- Whether the combined levels of a hierarchy can be one: every level places the ranks'
//  patches alike (patchPlaces with the finest level's onHost), so that each rank's couplings of
//  every level take its host patches in the finest level's phases; host cells (cyclics, patches
//  to ranks of other groups) are evaluated by each rank's OpenFOAM interfaces on every level
bool oneHierarchy(const std::vector<const CombinedLevel*>& levels);

//- Where each of the ranks' terms goes among the device coupling terms: the inverse of
//  termSource (dest[termSource[k]] = k); throws std::runtime_error where termSource is not a
//  permutation
std::vector<int> termDestinations(const std::vector<int>& termSource);

//- The part (rank of the group) whose range [start[k], start[k+1]) holds index, and the index
//  there; part -1 (local the index) where none does
struct PartIndex
{
    int part = -1;
    int local = 0;
};
PartIndex locatePart(const std::vector<int>& start, int index);

// ---------------------------------------------------------------------------------------------
// The values and messages of a solve between the group's owner and its other ranks. The values
// of the finest level (psi, source, the matrix, the interface coefficients) live in host memory
// the group's processes share (SharedHostBuffer; layout: sharedValues): each rank writes its own
// at its places (writeRankValues), in parallel with the others, and reads its psi back from there;
// no MPI copy of them. The messages are one typed message each: a struct here, packed into one
// contiguous buffer of doubles (the one place that knows its layout: group/groupMessages.cpp)
// that the OpenFOAM layer sends as one message. Every message starts with its kind (a
// GroupRequestKind, or MessageKind's values and reply), so a message read where another was due
// fails loudly instead of being taken for numbers.
//   rank -> owner, once per solve:     RankValues (packRankValues / unpackRankValues): the
//                                      sizes of the parts written, GAMG's coarse coefficients
//   owner -> rank, until done:         GroupRequest (encodeRequest / decodeRequest)
//   rank -> owner, per product:        ProductReply (encodeReply / decodeReply)
// ---------------------------------------------------------------------------------------------

//- n doubles at data, held elsewhere (a rank's field, the owner's buffers or a received message)
struct DoublesView
{
    const double* data = nullptr;
    int size = 0;

    const double* begin() const { return data; }
    const double* end() const { return data + size; }
};

//- What a rank hands the group's owner for a solve, in its own numbering. diag, upper and lower
//  are left out (size 0) where the shared values hold them from the rank's last solve bit for
//  bit, lower also where the matrix is symmetric. Unpacked on the owner, the finest level's parts
//  have their sizes only (their values are at the rank's places of the shared values).
struct RankValues
{
    DoublesView psi;
    DoublesView source;
    DoublesView diag;
    DoublesView upper;
    DoublesView lower;
    //- The coefficients of its patches in the system (interfaceBouCoeffs, interfaceIntCoeffs),
    //  patch after patch
    DoublesView interfaceBou;
    DoublesView interfaceInt;
    //- GAMG: its coarse levels' coefficients of its patches to the group (A's, then A^T's, level
    //  after level from level 1); empty for a Krylov solve
    DoublesView levelCoeffs;
    //- When the rank came to the hand-over, before writing its values: gpuLdu::clockSeconds
    //  (gpuLdu/clock.hpp), one clock for the processes of a host (a group's ranks share
    //  a node), so that the owner tells its wait for the ranks from the hand-over itself
    double arrivedAt = 0;
};

//- The message of a rank's values: its kind, when it arrived, the parts' sizes in RankValues'
//  order, then the coarse levels' coefficients. Written into message (its size the message's).
void packRankValues(const RankValues& values, std::vector<double>& message);

//- The values of a message of n doubles (levelCoeffs a view into it, the other parts their sizes
//  only); throws std::runtime_error where it is not a rank's values
RankValues unpackRankValues(const double* message, int n);

//- Where a rank's values go among the group's: its first cell, face and term on the combined
//  finest level, and how many it has; for the whole group (the sizes of the shared values) every
//  first is 0
struct RankPlaces
{
    int cell = 0;
    int nCells = 0;
    int face = 0;
    int nFaces = 0;
    int term = 0;
    int nTerms = 0;
};

//- Group rank r's places on the combined finest level; throws std::runtime_error for no such rank
RankPlaces rankPlaces(const CombinedLevel& finest, int r);

//- Where the owner keeps the group's values: the ranks' parts one after the other, at their
//  places on the combined finest level (rowStart, faceStart, termStart); and the device
//  coupling terms' coefficients of A and A^T (termBou[k], termInt[k]) of the finest level (k =
//  0) and, for GAMG, of each coarse level k >= 1 (the ranks' terms there from levelTermStart[k])
//  in the order of the level's device couplings: rank r's j-th term of level k goes to
//  termDest[k][first + j], first its first term (the finest level's: its places' term).
struct GroupValues
{
    double* psi = nullptr;
    double* source = nullptr;
    double* diag = nullptr;
    double* upper = nullptr;
    double* lower = nullptr;
    double* interfaceBou = nullptr;
    double* interfaceInt = nullptr;
    //- GAMG (null for a Krylov solve): per level the ranks' first term (size ranks + 1); index
    //  0 (the finest level's: its places) unused
    const std::vector<std::vector<int>>* levelTermStart = nullptr;
    //- Per level (one, the finest, for a Krylov solve; none: the terms are not placed) the
    //  termDestinations of its termSource, and where its device coupling terms' coefficients go
    const std::vector<std::vector<int>>* termDest = nullptr;
    std::vector<double*> termBou;
    std::vector<double*> termInt;
};

//- The number of doubles of the group's shared values (group: the sizes of the whole group)
std::size_t sharedValuesSize(const RankPlaces& group);

//- The finest level's arrays in shared values of sharedValuesSize(group) doubles at base: psi,
//  source, diag (cells), upper, lower (faces), interfaceBou, interfaceInt (terms), in this order
GroupValues sharedValues(double* base, const RankPlaces& group);

//- A rank's finest-level values into the shared values at its places (the parts of size 0 left
//  as they are); throws std::runtime_error where a part's size is not the rank's
void writeRankValues(const RankValues& values, const RankPlaces& at, GroupValues& into);

//- The owner's check of group rank r's values message (every part's size the rank's; diag,
//  upper, lower: the rank's or 0, not written), and the rank's terms to their device coupling
//  terms (GroupValues::termDest): the finest level's from the shared values (written there by
//  the rank), the coarse levels' from the message. Done as each rank's message comes, so that
//  what is left when the last one is in is that rank's own. Throws std::runtime_error naming the
//  part that does not fit
void placeRankValues
(
    const RankValues& values,
    int r,
    const CombinedLevel& finest,
    GroupValues& into
);

//- The largest values message of group rank r (the owner's receive buffer for it)
int maxRankValuesSize(int r, const GroupValues& into);

//- What the owner asks a rank of its group during a solve; a rank serves requests until done
enum class GroupRequestKind
{
    sum,        //!< hand value to OpenFOAM's sum reduce
    product,    //!< y -= a phase's interface terms of the rank's host patches; y comes back
    done,       //!< the solve's result (the rank's psi: at its places of the shared values)
    maximum     //!< hand value to OpenFOAM's max reduce
};

//- The kinds of the messages that are not requests (after GroupRequestKind's)
enum class MessageKind
{
    values = int(GroupRequestKind::maximum) + 1,  //!< RankValues
    reply                                         //!< ProductReply
};

//- The interface products a product request asks for
enum class InterfaceProduct
{
    a,          //!< of A x (interfaceProduct)
    transposed, //!< of A^T x (interfaceProductT)
    rowSums,    //!< of sumA (interfaceRowSums; no x)
    residual,   //!< of b - A x (interfaceResidual: the terms added)
    magnitudes  //!< the coefficients' magnitudes (interfaceMagnitudes; no x)
};

//- Whether a product reads x (rowSums and magnitudes do not)
inline bool productTakesX(InterfaceProduct product)
{
    return product != InterfaceProduct::rowSums && product != InterfaceProduct::magnitudes;
}

//- A request of the owner to one rank of the group
struct GroupRequest
{
    GroupRequestKind kind = GroupRequestKind::done;
    //- product: which, of which phase, on which level of a GAMG hierarchy (0: the finest, and
    //  the Krylov system's one level)
    InterfaceProduct product = InterfaceProduct::a;
    InterfacePhase phase = InterfacePhase::early;
    int level = 0;
    //- sum, maximum: the rank's partial (its own value)
    double value = 0;
    //- product: x (not for rowSums) and y at the rank's host interface cells
    std::vector<double> x;
    std::vector<double> y;
    //- done: the solve's result (times.handOver: the owner's hand-over so far)
    SolveResult result;
};

//- The doubles a request travels as: kind, product, phase, level, then value (sum, maximum), x
//  and y (product) or the result's fields (done). Written into message (its size the request's).
void encodeRequest(const GroupRequest& request, std::vector<double>& message);

//- The request of a message of n doubles; throws std::runtime_error where the message is not
//  one (unknown kind, a product whose x and y differ in size)
GroupRequest decodeRequest(const double* message, int n);

//- The largest message of a request to a rank with nHostCells host interface cells
int maxRequestSize(int nHostCells);

//- A rank's reply to a product request: y at its host interface cells, the phase's interface
//  terms subtracted
struct ProductReply
{
    DoublesView y;
};

//- A reply as doubles: its kind, then y. Written into message (its size the reply's).
void encodeReply(const ProductReply& reply, std::vector<double>& message);

//- The reply of a message of n doubles (y a view into it); throws std::runtime_error where the
//  message is not one
ProductReply decodeReply(const double* message, int n);

} // namespace gpuLdu
