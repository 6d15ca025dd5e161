#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# GAMGGPU against OpenFOAM's GAMG, solve by solve (compareNative.sh): the tutorials with their
# pressure (or velocity) solver turned into GAMGGPU, each of OpenFOAM's smoothers on at least
# one case, symmetric and asymmetric matrices, the optional steps of the V-cycle. With the cpu
# executor every solve line equals native's. Coupled patches: boxTurb16's cyclics serially, and
# decomposed runs (mpirun; processor patches on every level, with the cyclics on boxTurb16) line
# by line against native GAMG decomposed the same way. The plugin's own smoothers (l1Jacobi,
# Chebyshev), which native GAMG does not have: every solve reaches its tolerance, serially and
# decomposed, and checkNative with them is refused. Usage: gamg.sh [cpu|gpu]   (default cpu)
set -euo pipefail

executor=${1:-cpu}
# the gpu sums (scaling factors, residuals) in another order: pitzDaily's run
# then has a solve 2 V-cycles apart from native (2026-11-24, H100); the cavities, cavity3D and
# the elbow none
allow=1
[ "$executor" = gpu ] && allow=2
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
tutorials=$here/../../tutorials
work=$(mktemp -d "${TMPDIR:-/tmp}/gamg.XXXXXX")
passed=0
failed=0
# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/lib/fvSolutionEdit.sh
. "$here/../lib/fvSolutionEdit.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# shellcheck source=tests/lib/gamgChecks.sh
. "$here/../lib/gamgChecks.sh"

# the cavity's pressure with each of OpenFOAM's smoothers of symmetric matrices
for smoother in GaussSeidel symGaussSeidel DIC FDIC DICGaussSeidel nonBlockingGaussSeidel; do
    check - "$(gamgCase cavity "cavity-p-$smoother" 'p|pFinal' "$smoother")"
done
# the optional steps of the V-cycle: pre-smoothing, interpolation, no scaling
check - "$(gamgCase cavity cavity-p-preInterpolate 'p|pFinal' GaussSeidel 'nPreSweeps 2;interpolateCorrection yes;nPostSweeps 1;nFinestSweeps 3')"
check - "$(gamgCase cavity cavity-p-unscaled 'p|pFinal' DIC 'scaleCorrection no;nCellsInCoarsestLevel 4;mergeLevels 2')"
# the coarsest level by OpenFOAM's LU (directSolveCoarsest), symmetric and asymmetric
check - "$(gamgCase cavity cavity-p-direct 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')"
check - "$(gamgCase cavity cavity-U-direct U DILU 'directSolveCoarsest yes')"
# the cavity's velocity: asymmetric matrices (no scaling by default, PBiCGStab+DILU coarsest)
for smoother in GaussSeidel symGaussSeidel DILU DILUGaussSeidel; do
    check - "$(gamgCase cavity "cavity-U-$smoother" U "$smoother")"
done
check - "$(gamgCase cavity cavity-U-scaled U DILU 'scaleCorrection yes;nPreSweeps 1;interpolateCorrection yes')"
# larger and unstructured meshes; pitzDaily as OpenFOAM ships it (GAMG with GaussSeidel)
check - "$(gamgCase cavity3D cavity3D-p 'p|pFinal' GaussSeidel)"
check - "$(gamgCase elbow elbow-p 'p|pFinal' GaussSeidel)"
check - "$(gamgCase elbow elbow-p-algebraic 'p|pFinal' DICGaussSeidel 'agglomerator algebraicPair')"
check - "$(gamgCase pitzDaily pitzDaily-p p GaussSeidel)"
# cyclic patches on every level (boxTurb16: 6 cyclics)
check - "$(gamgCase boxTurb16 boxTurb16-p 'p' GaussSeidel)"
check - "$(gamgCase boxTurb16 boxTurb16-p-DIC 'p' DIC 'interpolateCorrection yes')"

# the plugin's own smoothers on the cavity's pressure (p: relTol 0.05, pFinal: 0) and velocity
for smoother in l1Jacobi Chebyshev; do
    ownSmoother "$(gamgCase cavity "cavity-p-$smoother" 'p|pFinal' "$smoother")" p 1e-06 "0.05 0"
    ownSmoother "$(gamgCase cavity "cavity-U-$smoother" U "$smoother")" 'Ux|Uy' 1e-05 0
done
ownSmoother "$(gamgCase cavity3D cavity3D-p-Chebyshev 'p|pFinal' Chebyshev)" p 1e-06 "0.05 0"

# processor patches on every level, with and without cyclics; symmetric and asymmetric; the
# optional steps of the V-cycle (pre-smoothing, interpolation) across them; the ranks of a device
# as one hierarchy, also with cyclics and with patches to another device's group (their terms
# read across: the groups' owners exchange x there on every level)
decomposed "$(gamgCase cavity cavity-p-decomposed 'p|pFinal' GaussSeidel)" icoFoam one
decomposed "$(gamgCase cavity cavity-p-preInterpolate-decomposed 'p|pFinal' DIC 'nPreSweeps 2;interpolateCorrection yes')" icoFoam one
decomposed "$(gamgCase cavity cavity-U-decomposed U DILUGaussSeidel)" icoFoam one
SPLIT="4 1 1" decomposed "$(gamgCase cavity cavity-U-symGS-decomposed U symGaussSeidel 'nPreSweeps 1;interpolateCorrection yes')" icoFoam one
# Two devices (a group each, their owners exchanging the faces between them on every level):
# executor cpu pretends them; executor gpu runs them where the host has two GPUs. 4 ranks, and 6
# (a group of 3 each) on two devices: the unstructured
# elbow split randomly, boxTurb16's cyclics (processorCyclic between a rank's processor patches:
# HALO=no, the faces between groups each rank's own interfaces, the log says so)
if [ "$executor" = cpu ] || [ "$(gpuCount)" -ge 2 ]; then
    decomposed "$(gamgCase cavity cavity-p-twoGroups-decomposed 'p|pFinal' GaussSeidel)" icoFoam one 2
    SPLIT=random decomposed "$(gamgCase cavity cavity-p-twoGroups-random-decomposed 'p|pFinal' DIC 'nPreSweeps 1;interpolateCorrection yes')" icoFoam one 2
    HALO=no decomposed "$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-twoGroups-decomposed p GaussSeidel)")" icoFoam one 2
    RANKS=6 SPLIT=random decomposed "$(gamgCase elbow elbow-p-6ranks-twoGroups 'p|pFinal' GaussSeidel)" icoFoam one 2
    RANKS=6 SPLIT=random HALO=no decomposed "$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-6ranks-twoGroups p DIC)")" icoFoam one 2
    # a rank alone on its device beside a group of two (3 ranks on two devices): a group of one,
    # every device's ranks one hierarchy, their faces read across
    RANKS=3 SPLIT="3 1 1" decomposed "$(gamgCase cavity cavity-p-3ranks-twoDevices 'p|pFinal' GaussSeidel)" icoFoam one 2
fi
# two pretended nodes of 3 ranks, a device each: with executor gpu each node's own GPU where the
# host has two, else both nodes on its one GPU (the devices told apart by PCI bus id: the owners
# then exchange through the host)
RANKS=6 SPLIT="3 2 1" NODE_RANKS=3 decomposed "$(gamgCase cavity3D cavity3D-p-6ranks-twoNodes 'p|pFinal' DIC)" icoFoam one 1
# two groups on one device (gpuLduRanksPerSystem 2 on 3 ranks: a group of two and one of one;
# with executor gpu their owners exchange through the host, NCCL taking one rank a device, and
# the coarsest level is gathered on each: GatheredCoarsest); the unstructured elbow split
# randomly into two groups of three
RANKS=3 SPLIT="3 1 1" RANKS_PER_SYSTEM=2 decomposed "$(gamgCase cavity cavity-p-3ranks-pairs 'p|pFinal' DIC)" icoFoam one
RANKS=6 SPLIT=random RANKS_PER_SYSTEM=3 decomposed "$(gamgCase elbow elbow-p-6ranks-twoGroupsOneDevice 'p|pFinal' GaussSeidel)" icoFoam one
# the levels below a size gathered on every group (gatheredLevelCells; by default with executor gpu
# only): every line native's with executor cpu too (a gathered level's sums are each rank's
# partial reduced as the distributed level reduces them); two devices, two pretended nodes
if [ "$executor" = cpu ] || [ "$(gpuCount)" -ge 2 ]; then
    GATHERED=yes SPLIT=random decomposed "$(gamgCase cavity cavity-p-twoGroups-gathered 'p|pFinal' DIC 'nPreSweeps 1;interpolateCorrection yes;gatheredLevelCells 100000')" icoFoam one 2
    GATHERED=yes RANKS=6 SPLIT=random decomposed "$(gamgCase elbow elbow-p-6ranks-twoGroups-gathered 'p|pFinal' GaussSeidel 'gatheredLevelCells 100000')" icoFoam one 2
fi
GATHERED=yes RANKS=6 SPLIT="3 2 1" NODE_RANKS=3 decomposed "$(gamgCase cavity3D cavity3D-p-6ranks-twoNodes-gathered 'p|pFinal' GaussSeidel 'gatheredLevelCells 100000')" icoFoam one 1
# 5 ranks on four devices: groups of 2, 1, 1, 1
if [ "$executor" = cpu ] || [ "$(gpuCount)" -ge 4 ]; then
    RANKS=5 SPLIT="5 1 1" decomposed "$(gamgCase cavity cavity-p-5ranks-fourDevices 'p|pFinal' GaussSeidel 'nPreSweeps 1;interpolateCorrection yes')" icoFoam one 4
fi
# Eight devices (issue 47's many groups, pretended): 16 ranks split 4 x 4, a group of two a
# device, each group's faces read across to two or three others on every level
if [ "$executor" = cpu ] || [ "$(gpuCount)" -ge 8 ]; then
    RANKS=16 SPLIT="4 4 1" decomposed "$(gamgCase cavity3D cavity3D-p-16ranks-eightGroups 'p|pFinal' GaussSeidel)" icoFoam one 8
fi
# the direct coarsest solve: the group's coarsest level by OpenFOAM's LU as LUscalarMatrix gathers
# every rank's (symmetric and asymmetric); a group of some of the ranks: each rank its own
decomposed "$(gamgCase cavity cavity-p-direct-decomposed 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')" icoFoam one
decomposed "$(gamgCase cavity cavity-U-direct-decomposed U DILU 'directSolveCoarsest yes')" icoFoam one
{ [ "$executor" = cpu ] || [ "$(gpuCount)" -ge 2 ]; } \
    && decomposed "$(gamgCase cavity cavity-p-direct-twoGroups-decomposed 'p|pFinal' GaussSeidel 'directSolveCoarsest yes')" icoFoam own 2
decomposed "$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-decomposed p DIC 'interpolateCorrection yes')")" icoFoam one
SPLIT=random decomposed "$(gamgCase cavity cavity-p-random-decomposed 'p|pFinal' DIC 'nPreSweeps 1')" icoFoam one
# every field by GAMGGPU: the group's Krylov system is built on first use only, so never here;
# with U by PBiCGStabGPU (cavity-p-decomposed above) it is (the check can fail)
onlyGamg=$(gamgCase cavity cavity-pU-decomposed 'p|pFinal|U' GaussSeidel)
decomposed "$onlyGamg" icoFoam one
if grep -q "the group's system built" "$work/cavity-p-decomposed/log.icoFoam" \
    && [ -f "$onlyGamg/log.icoFoam" ] && ! grep -q "the group's system built" "$onlyGamg/log.icoFoam"; then
    passed=$((passed + 1))
    echo "PASS the group's Krylov system built only where a Krylov solver runs"
else
    failed=$((failed + 1))
    echo "FAIL the group's Krylov system: built with GAMGGPU only, or not with PBiCGStabGPU (kept $work)"
fi
# the plugin's own smoother on the 4 ranks as one hierarchy (its bound a maximum over the ranks)
dir=$(gamgCase cavity cavity-p-Chebyshev-decomposed 'p|pFinal' Chebyshev)
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
if decomposedRun "$dir" icoFoam && grep -q 'one GAMG hierarchy for ranks' "$dir/log.icoFoam"; then
    toTolerance "$dir/log.icoFoam" p 1e-06 0.05
else
    failed=$((failed + 1))
    echo "FAIL $(basename "$dir"): the run failed or was not one hierarchy, kept $dir"
fi
# the plugin's own smoother across processor and cyclic patches
dir=$(boxTurbIcoFoam "$(gamgCase boxTurb16 boxTurb16-p-Chebyshev-decomposed p Chebyshev)")
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
if decomposedRun "$dir" icoFoam; then
    toTolerance "$dir/log.icoFoam" p 1e-06 0
else
    failed=$((failed + 1))
    echo "FAIL $(basename "$dir"): the run failed, kept $dir"
fi

# processorAgglomerator (the coarse levels of several ranks onto fewer): each rank keeps its own
# levels in GAMGGPU, so it is a FatalIOError that says so
dir=$(gamgCase cavity cavity-p-processorAgglomerator 'p|pFinal' GaussSeidel 'processorAgglomerator masterCoarsest')
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
decomposedRun "$dir" icoFoam || true
if grep -q 'FOAM FATAL IO ERROR' "$dir/log.icoFoam" \
    && grep -q 'processorAgglomerator for field p (solver GAMGGPU) is not available' "$dir/log.icoFoam"; then
    passed=$((passed + 1))
    echo "PASS processorAgglomerator is a FatalIOError"
else
    failed=$((failed + 1))
    echo "FAIL processorAgglomerator is not refused (kept $dir/log.icoFoam)"
fi

# checkNative compares with native GAMG, which has no such smoother: a FatalIOError
dir=$(gamgCase cavity cavity-p-checkChebyshev 'p|pFinal' Chebyshev)
editFvSolution "$dir/system/fvSolution" checkNative "$executor" "" > /dev/null
log=$dir/log.icoFoam
(cd "$dir" && ./Allrun > log.Allrun 2>&1) || true
if grep -q 'FOAM FATAL IO ERROR' "$log" && grep -q 'compares with native GAMG, which has no smoother Chebyshev' "$log"; then
    passed=$((passed + 1))
    echo "PASS checkNative with smoother Chebyshev is a FatalIOError"
else
    failed=$((failed + 1))
    echo "FAIL checkNative with smoother Chebyshev is not refused (kept $log)"
fi

# a negative gatheredLevelCells: a FatalIOError listing the valid values
dir=$(gamgCase cavity cavity-p-negativeGathered 'p|pFinal' GaussSeidel 'gatheredLevelCells -5')
editFvSolution "$dir/system/fvSolution" plugin "$executor" "" > /dev/null
log=$dir/log.icoFoam
(cd "$dir" && ./Allrun > log.Allrun 2>&1) || true
if grep -q 'FOAM FATAL IO ERROR' "$log" && grep -q 'gatheredLevelCells -5 for field p (solver GAMGGPU)' "$log" \
    && grep -q 'Valid values' "$log"; then
    passed=$((passed + 1))
    echo "PASS a negative gatheredLevelCells is a FatalIOError"
else
    failed=$((failed + 1))
    echo "FAIL a negative gatheredLevelCells is not refused (kept $log)"
fi

[ "$failed" -eq 0 ] && rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
