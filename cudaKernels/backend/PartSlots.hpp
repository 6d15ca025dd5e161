// SPDX-License-Identifier: GPL-3.0-or-later
// The parts of a system and their slots (Workspace::setParts of both backends): part p holds rows
// [starts[p], starts[p+1]) and sums into slot slots[p] of nSlots, the slots of every system that
// sums with this one, each slot one part's (their totals are taken in slot order).

#ifndef GPULDU_PART_SLOTS_HPP
#define GPULDU_PART_SLOTS_HPP

#include "gpuLdu/errors.hpp"

#include <string>
#include <vector>

namespace gpuLdu
{

//- Each slot's part (-1: no part of this system); throws where there is no part, a part has no
//  slot, or a slot lies outside [0, nSlots) or is given twice
inline std::vector<int> partOfSlots(const std::vector<int>& starts, const std::vector<int>& slots, int nSlots)
{
    const int nParts = int(starts.size()) - 1;
    std::vector<int> partOfSlot(std::size_t(nSlots > 0 ? nSlots : 0), -1);
    bool valid = nParts >= 1 && int(slots.size()) == nParts;
    for (int p = 0; valid && p < nParts; ++p)
    {
        valid = slots[p] >= 0 && slots[p] < nSlots && partOfSlot[std::size_t(slots[p])] < 0;
        if (valid)
        {
            partOfSlot[std::size_t(slots[p])] = p;
        }
    }
    if (!valid)
    {
        throw Error("gpuLdu: the " + std::to_string(nParts) + " parts of a system need distinct slots among "
            + std::to_string(nSlots));
    }
    return partOfSlot;
}

} // namespace gpuLdu

#endif
