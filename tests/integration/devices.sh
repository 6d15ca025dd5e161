#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Which device each MPI rank uses: the cavity decomposed onto 4 ranks (hierarchical 2x2), one
# icoFoam step, and the table the plugin logs once. With executor cpu (CI) the nodes and devices
# are pretended (GPULDU_PRETEND_DEVICES, GPULDU_PRETEND_RANKS_PER_NODE): neighbouring ranks of
# each node share a device, counted per node, never by global rank; a bad value is a FatalError.
# The OptimisationSwitch gpuLduRanksPerSystem (all, none, N, a bad value) groups the ranks of a
# device into systems; DebugSwitches { gpuLduRankGroup 1; } logs the owner's hand-over of every
# solve. With executor gpu the node's real devices (nvidia-smi -L): 4 ranks over G devices, and
# with two or more the solve lines of 10 steps on one GPU and on two equal to the digit.
# Usage: devices.sh [cpu|gpu]. Prints "<P> passed, <F> failed" last.
set -uo pipefail

executor=${1:-cpu}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/devices.XXXXXX")
passed=0
failed=0

case=$work/cavity
cp -r "$here/../../tutorials/cavity" "$case"
sed -i -e 's/^endTime .*/endTime         0.005;/' "$case/system/controlDict"
sed -i -e "s/executor .*;/executor        $executor;/" "$case/system/fvSolution"
cat > "$case/system/decomposeParDict" <<'EOD'
FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }
numberOfSubdomains 4;
method hierarchical;
hierarchicalCoeffs { n (2 2 1); order xyz; }
EOD
(cd "$case" && blockMesh > log.blockMesh 2>&1 && decomposePar > log.decomposePar 2>&1) \
    || echo "FAIL: cannot prepare $case"

# run <name> [VAR=value ...]: one icoFoam step on 4 ranks, its log in $work/log.<name>
run()
{
    local name=$1 vars=()
    shift
    for v in "$@"; do vars+=(-x "$v"); done
    (cd "$case" && env "$@" mpirun --oversubscribe -np 4 "${vars[@]}" icoFoam -parallel \
        > "$work/log.$name" 2>&1)
}

# expect <name> <description> <line>...: each line is in the table of log.<name>
expect()
{
    local name=$1 what=$2 ok=yes
    shift 2
    for line in "$@"; do
        grep -qF -- "$line" "$work/log.$name" || { ok=no; echo "    missing: $line"; }
    done
    if [ $ok = yes ] && grep -q 'Solving for p' "$work/log.$name"; then
        echo "PASS $what"
        passed=$((passed + 1))
    else
        echo "FAIL $what (see $work/log.$name)"
        failed=$((failed + 1))
    fi
}

if [ "$executor" = cpu ]; then
    unused="(executor cpu: not used)"
    run oneNodeTwo GPULDU_PRETEND_DEVICES=2
    expect oneNodeTwo "one node, 2 devices: ranks 0 1 on device 0, 2 3 on device 1" \
        "4 rank(s) on 1 node(s)" "device 0 $unused: ranks 0 1" "device 1 $unused: ranks 2 3"
    run twoNodesTwo GPULDU_PRETEND_DEVICES=2 GPULDU_PRETEND_RANKS_PER_NODE=2
    expect twoNodesTwo "2 nodes of 2 ranks, 2 devices each: counted per node, not by global rank" \
        "4 rank(s) on 2 node(s)" "node node0, device 0 $unused: ranks 0" \
        "node node0, device 1 $unused: ranks 1" "node node1, device 0 $unused: ranks 2" \
        "node node1, device 1 $unused: ranks 3"
    run unevenNodes GPULDU_PRETEND_DEVICES=2 GPULDU_PRETEND_RANKS_PER_NODE=3
    expect unevenNodes "nodes of 3 and 1 ranks, 2 devices each" \
        "node node0, device 0 $unused: ranks 0 1" "node node0, device 1 $unused: ranks 2" \
        "node node1, device 0 $unused: ranks 3"
    # the OptimisationSwitch gpuLduRanksPerSystem (case controlDict): groups of the device's ranks
    switchTo()
    {
        sed -i '/^OptimisationSwitches/d' "$case/system/controlDict"
        [ -n "$1" ] && echo "OptimisationSwitches { gpuLduRanksPerSystem $1; }" >> "$case/system/controlDict"
    }
    switchTo ""
    # (with the group's debug switch: its hand-over line, checked below)
    echo 'DebugSwitches { gpuLduRankGroup 1; }' >> "$case/system/controlDict"
    run allOne GPULDU_PRETEND_DEVICES=1
    sed -i '/^DebugSwitches/d' "$case/system/controlDict"
    expect allOne "default (all): the 4 ranks of one device solve as one system" \
        "device 0 $unused: ranks 0 1 2 3" "ranks of a device solve as one system (OptimisationSwitch gpuLduRanksPerSystem all)"
    switchTo 2
    run pairs GPULDU_PRETEND_DEVICES=1
    expect pairs "gpuLduRanksPerSystem 2: two systems of two ranks" "gpuLduRanksPerSystem 2)"
    # DebugSwitches { gpuLduRankGroup 1; }: the owner's hand-over, one line per solve of the
    # plugin, in the format a benchmark parses; none without the switch
    number='[0-9.e+-]+'
    handOver="^gpuLduRankGroup: hand-over of 4 ranks $number ms \\(values $number ms after the last rank came, psi back $number ms; before it the ranks' own work $number ms; own values written in $number ms, the last rank's message after $number ms\\)\$"
    solves=$(grep -cE '^[A-Za-z]+GPU:  Solving for ' "$work/log.allOne")
    lines=$(grep -cE "$handOver" "$work/log.allOne")
    if [ "$solves" -gt 0 ] && [ "$lines" -eq "$solves" ] \
        && ! grep -q 'gpuLduRankGroup: hand-over' "$work/log.pairs"; then
        echo "PASS debug switch gpuLduRankGroup: one hand-over line per solve ($lines)"
        passed=$((passed + 1))
    else
        echo "FAIL debug switch gpuLduRankGroup: $lines hand-over lines for $solves solves, or lines without the switch (see $work/log.allOne, log.pairs)"
        failed=$((failed + 1))
    fi
    switchTo none
    run none GPULDU_PRETEND_DEVICES=1
    if grep -q 'Solving for p' "$work/log.none" && ! grep -q 'solve as one system' "$work/log.none"; then
        echo "PASS gpuLduRanksPerSystem none: a system per rank"
        passed=$((passed + 1))
    else
        echo "FAIL gpuLduRanksPerSystem none (see $work/log.none)"
        failed=$((failed + 1))
    fi
    switchTo two
    run badSwitch GPULDU_PRETEND_DEVICES=1
    switchTo ""
    if grep -q 'Unknown value two of OptimisationSwitch gpuLduRanksPerSystem' "$work/log.badSwitch" \
        && grep -q 'FOAM FATAL IO ERROR' "$work/log.badSwitch" && grep -q 'none   one system per rank' "$work/log.badSwitch"; then
        echo "PASS a bad gpuLduRanksPerSystem is a FatalIOError naming the valid values"
        passed=$((passed + 1))
    else
        echo "FAIL a bad gpuLduRanksPerSystem is not a clear FatalIOError (see $work/log.badSwitch)"
        failed=$((failed + 1))
    fi

    run badValue GPULDU_PRETEND_DEVICES=two
    if grep -q 'GPULDU_PRETEND_DEVICES=two is not a positive integer' "$work/log.badValue" \
        && grep -q 'FOAM FATAL ERROR' "$work/log.badValue"; then
        echo "PASS a bad GPULDU_PRETEND_DEVICES is a FatalError naming it"
        passed=$((passed + 1))
    else
        echo "FAIL a bad GPULDU_PRETEND_DEVICES is not a clear FatalError (see $work/log.badValue)"
        failed=$((failed + 1))
    fi
else
    nGpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
    run real
    # the 4 ranks over min(G, 4) devices in blocks of neighbouring ranks, the first 4 % G blocks
    # one rank larger (gpuLdu::deviceOfLocalRanks), each device its own PCI id
    groups=$((nGpus < 4 ? nGpus : 4))
    lines=("4 rank(s) on 1 node(s)")
    rank=0
    for ((g = 0; g < groups; ++g)); do
        ranks=
        for ((k = 0; k < 4/groups + (g < 4 % groups ? 1 : 0); ++k)); do ranks="$ranks $rank"; rank=$((rank + 1)); done
        lines+=(", device $g (")
        grep -E "device $g .*: ranks$ranks\$" "$work/log.real" > /dev/null || lines+=("device $g ...: ranks$ranks")
    done
    [ "$(grep -oE 'PCI [0-9A-Fa-f:.]+' "$work/log.real" | sort -u | wc -l)" -ge "$groups" ] \
        || lines+=("$groups PCI ids")
    expect real "executor gpu, $nGpus device(s): neighbouring ranks share a device" "${lines[@]}"
    if [ "$nGpus" -ge 2 ]; then
        # one GPU and two take the same steps (each rank's sums in its slot, totalled in slot
        # order, whichever GPU holds it): every solve line of 10 steps equal to the digit
        sed -i -e 's/^endTime .*/endTime         0.05;/' "$case/system/controlDict"
        run twoGpus CUDA_VISIBLE_DEVICES=0,1
        run oneGpu CUDA_VISIBLE_DEVICES=0
        grep 'Solving for' "$work/log.twoGpus" > "$work/lines.twoGpus"
        grep 'Solving for' "$work/log.oneGpu" > "$work/lines.oneGpu"
        if [ "$(grep -c 'Solving for p' "$work/lines.oneGpu")" -ge 20 ] \
            && grep -q 'device 1 (' "$work/log.twoGpus" && ! grep -q 'device 1 (' "$work/log.oneGpu" \
            && cmp -s "$work/lines.oneGpu" "$work/lines.twoGpus"; then
            echo "PASS one GPU and two: every solve line equal ($(wc -l < "$work/lines.oneGpu") lines)"
            passed=$((passed + 1))
        else
            echo "FAIL one GPU and two: the solve lines differ (see $work/lines.oneGpu, lines.twoGpus)"
            diff "$work/lines.oneGpu" "$work/lines.twoGpus" | head -6
            failed=$((failed + 1))
        fi
    fi
fi

[ "$failed" -gt 0 ] || rm -rf "$work"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
