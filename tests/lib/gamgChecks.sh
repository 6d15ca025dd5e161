# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced: the GAMG checks of gamg.sh and of the release tests (tests/releases), native GAMG
# against GAMGGPU. The caller sets executor, allow (V-cycles a solve may differ by), tutorials,
# work (a scratch folder), passed=0, failed=0, and sources checks.sh, etc/run-env.sh and
# fvSolutionEdit.sh; OMPI_ALLOW_RUN_AS_ROOT for the decomposed runs.

testsLib=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# gamgCase <tutorial> <name> <field regex> <smoother> [extra keyword lines]: a copy of the
# tutorial whose dictionaries of the fields (p and pFinal, or U) solve with GAMGGPU and the
# smoother (their preconditioner and smoother lines dropped), the extra lines (e.g.
# "nPreSweeps 1;") added
gamgCase()
{
    local from=$1 name=$2 fields=$3 smoother=$4 extra=${5:-}
    rm -rf "${work:?}/$name"
    cp -r "$tutorials/$from" "$work/$name"
    awk -v fields="$fields" -v smoother="$smoother" -v extra="$extra" '
        $0 ~ "^    (" fields ")$" { inside = 1 }
        inside && /^    }/ { inside = 0 }
        inside && /^ *(preconditioner|smoother) / { next }
        inside && /^ *solver / {
            print "        solver          GAMGGPU;"
            print "        smoother        " smoother ";"
            n = split(extra, e, ";")
            for (i = 1; i <= n; i++) if (e[i] ~ /[^ ]/) { sub(/^ */, "", e[i]); print "        " e[i] ";" }
            next
        }
        { print }' "$tutorials/$from/system/fvSolution" > "$work/$name/system/fvSolution"
    echo "$work/$name"
}

# check <oracle "field=total" or -> <caseDir>: one compareNative.sh test; an oracle is native's
# total
check()
{
    local expected=$1 caseDir=$2 out pair
    if out=$("$testsLib/compareNative.sh" "$caseDir" --executor "$executor" --allow "$allow" 2>&1); then
        for pair in $expected; do
            [ "$pair" = - ] || [ "$(echo "$out" | grep "field ${pair%=*}: " | grep -o 'iterations [0-9]*' | head -n 1)" \
                = "iterations ${pair#*=}" ] \
                || out="$out
FAIL: iterations of ${pair%=*} differ from the oracle ${pair#*=}"
        done
        if ! echo "$out" | grep -q '^FAIL'; then
            passed=$((passed + 1))
            echo "$out" | sed "s|^|PASS $(basename "$caseDir") |"
            return
        fi
    fi
    failed=$((failed + 1))
    echo "FAIL $(basename "$caseDir")"
    while IFS= read -r line; do echo "    $line"; done <<< "$out"
}

# ownSmoother <caseDir> <field regex> <tolerance> <relTol of the 1st, 2nd, ... solve of a time
# step>: runs the case with the plugin; passes when it ends and every solve of the fields
# reaches its tolerance (Final residual <= tolerance, or <= relTol * Initial residual)
ownSmoother()
{
    local caseDir=$1 log=$1/log.icoFoam
    editFvSolution "$caseDir/system/fvSolution" plugin "$executor" "" > /dev/null
    if ! (cd "$caseDir" && ./Allrun > log.Allrun 2>&1) || ! grep -q '^End' "$log"; then
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir"): the run failed, kept $log"
        return
    fi
    toTolerance "$log" "${@:2}"
}

# toTolerance <log> <field regex> <tolerance> <relTols>: passes when every GAMGGPU solve of the
# fields in the log reaches its tolerance (ownSmoother)
toTolerance()
{
    local log=$1 fields=$2 tolerance=$3 relTols=$4 out
    if out=$(awk -v fields="^($fields)," -v shown="$fields" -v tol="$tolerance" -v relTols="$relTols" '
        BEGIN { nRel = split(relTols, rel, " ") }
        /^Time = / { k = 0 }
        /^GAMGGPU:  Solving for / && $4 ~ fields {
            initial = $8; final = $12; sub(/,/, "", initial); sub(/,/, "", final)
            r = rel[(k++ % nRel) + 1]; n++
            if (!(final + 0 <= tol || final + 0 <= r*initial)) {
                printf "FAIL: solve %d (%s): Final residual %s above tolerance %s and relTol %s\n", n, $4, final, tol, r
                bad = 1
            }
            its += $15
        }
        END {
            if (n == 0) { print "FAIL: no GAMGGPU solve of " shown; exit 1 }
            printf "%d solves of %s, %d V-cycles, each to its tolerance\n", n, shown, its
            exit bad
        }' "$log" 2>&1); then
        passed=$((passed + 1))
        echo "PASS $(basename "$(dirname "$log")") executor $executor: $out"
    else
        failed=$((failed + 1))
        echo "FAIL $(basename "$(dirname "$log")") executor $executor (kept $log)"
        echo "$out" | sed 's/^/    /'
    fi
}

# decomposedRun <caseDir> <application> [devices]: the case meshed (the elbow from its Fluent
# mesh; boxTurb16: its initial field made by boxTurb too), split hierarchically 2x2 (or as SPLIT
# says: "4 1 1" gives the ranks different numbers of processor patches; "random" each cell to a
# random rank, an irregular split with many patches) and run on RANKS ranks (default 4: SPLIT's
# product where hierarchical); devices: as if each node had that many (GPULDU_PRETEND_DEVICES: a
# group of ranks per device, with executor cpu too; default 1: one group of all the node's
# ranks); RANKS_PER_SYSTEM: the OptimisationSwitch gpuLduRanksPerSystem (groups of that many
# ranks, several on a device); NODE_RANKS: as if each node had that many ranks (GPULDU_PRETEND_RANKS_PER_NODE: the
# groups of different nodes meet through MPI; executor gpu on a host with a GPU for each pretended
# node: each node's ranks see only its own, as a site's wrapper narrows CUDA_VISIBLE_DEVICES)
decomposedRun()
{
    local caseDir=$1 app=$2 pretend method ranks=${RANKS:-4} run
    pretend=(-x "GPULDU_PRETEND_DEVICES=${3:-1}")
    run=("$app" -parallel)
    if [ -n "${NODE_RANKS:-}" ]; then
        pretend+=(-x "GPULDU_PRETEND_RANKS_PER_NODE=$NODE_RANKS")
        [ "$executor" = gpu ] && [ "$(gpuCount)" -ge $((ranks/NODE_RANKS)) ] \
            && run=(bash -c "CUDA_VISIBLE_DEVICES=\$((OMPI_COMM_WORLD_RANK/$NODE_RANKS)) exec $app -parallel")
    fi
    method="method hierarchical; hierarchicalCoeffs { n (${SPLIT:-2 2 1}); order xyz; }"
    [ "${SPLIT:-}" = random ] && method='method manual; manualCoeffs { dataFile "cellDecomposition"; }'
    printf 'FoamFile { version 2.0; format ascii; class dictionary; object decomposeParDict; }\n%s\n' \
        "numberOfSubdomains $ranks; $method" > "$caseDir/system/decomposeParDict"
    [ -z "${RANKS_PER_SYSTEM:-}" ] || grep -q gpuLduRanksPerSystem "$caseDir/system/controlDict" \
        || echo "OptimisationSwitches { gpuLduRanksPerSystem $RANKS_PER_SYSTEM; }" >> "$caseDir/system/controlDict"
    (cd "$caseDir" && meshOf "$caseDir" \
        && { [ "${SPLIT:-}" != random ] || cellDecomposition "$(sed -n 's/.*nCells: *\([0-9]*\).*/\1/p' \
            constant/polyMesh/owner | head -n 1)" "$ranks" 'int(random()*n)' > constant/cellDecomposition; } \
        && decomposePar > log.decomposePar 2>&1 \
        && mpirun --oversubscribe "${pretend[@]}" -np "$ranks" "${run[@]}" > "log.$app" 2>&1)
}

# gpuCount: the GPUs nvidia-smi sees (0 without one)
gpuCount()
{
    nvidia-smi -L 2> /dev/null | grep -c '^GPU' || true
}

# meshOf <caseDir>: the case's mesh and initial fields, in it
meshOf()
{
    if [ -f elbow.msh.gz ]; then
        gunzip -kf elbow.msh.gz && fluentMeshToFoam elbow.msh > log.fluentMeshToFoam 2>&1
    else
        blockMesh > log.blockMesh 2>&1 && { [ ! -f constant/boxTurbDict ] || boxTurb > log.boxTurb 2>&1; }
    fi
}

# decomposed <caseDir> <application> <one|own> [devices]: native GAMG and GAMGGPU on the case
# split 2x2, solve line by solve line. cpu: every solve line (all fields) equals native's. gpu:
# the plugin runs with checkNative (each GAMGGPU system also solved natively from the same
# state): each solve's initial residual is native's and its V-cycles within $allow of native's.
# one: the ranks of a group solve as one hierarchy (their processor patches to each other all
# the coupled patches they have); own: each rank keeps its own (cyclics, patches to another
# group; directSolveCoarsest with a group of some of the ranks); the log must say which.
decomposed()
{
    local caseDir=$1 app=$2 hierarchy=$3 devices=${4:-} native plugin lines off shared=own
    rm -rf "$caseDir-native"
    cp -r "$caseDir" "$caseDir-native"
    editFvSolution "$caseDir-native/system/fvSolution" native "" "" > /dev/null
    editFvSolution "$caseDir/system/fvSolution" "$([ "$executor" = gpu ] && echo checkNative || echo plugin)" \
        "$executor" "" > /dev/null
    if ! decomposedRun "$caseDir-native" "$app" || ! decomposedRun "$caseDir" "$app" "$devices"; then
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir") decomposed: a run failed, kept $caseDir*"
        return
    fi
    native=$(grep -E 'Solving for ' "$caseDir-native/log.$app" | sed 's/^.*Solving for/Solving for/')
    plugin=$(grep -E 'Solving for ' "$caseDir/log.$app" | sed 's/^.*Solving for/Solving for/')
    lines=$(echo "$native" | grep -c . || true)
    if [ "$executor" = cpu ]; then
        off=$(diff <(echo "$native") <(echo "$plugin") | grep -c '^<' || true)
    else
        off=$(grep '^checkNative: ' "$caseDir/log.$app" | awk -v allow="$allow" \
            '{ d = $6 - $(NF-4); if (d < 0) d = -d; if ($8 != $(NF-2) || d > allow) ++bad; ++n }
             END { print (n > 0 ? bad + 0 : 999) }')
    fi
    # one: every rank in some group's "one GAMG hierarchy for ranks ..." line (each group's owner
    # logs its own), none keeping its own; with several groups (devices or nodes), each group's
    # processor faces to the others read across (their owners' exchange: "N across to M"), or
    # with HALO=no (processorCyclic between a rank's processor patches) each rank's interfaces
    local across='terms in the system ([1-9][0-9]* across to [1-9]'
    [ "${HALO:-yes}" = no ] && across='faces to each other are each rank.s own interfaces'
    if ! grep -q 'keeps its own GAMG hierarchy' "$caseDir/log.$app" \
        && [ "$(sed -n 's/.*one GAMG hierarchy for ranks\([0-9 ]*\):.*/\1/p' "$caseDir/log.$app" | tr ' ' '\n' \
            | grep . | sort -u | wc -l)" -eq "${RANKS:-4}" ] \
        && { [ "${devices:-1}" -lt 2 ] && [ -z "${NODE_RANKS:-}${RANKS_PER_SYSTEM:-}" ] \
            || grep -q "$across" "$caseDir/log.$app"; }; then
        shared=one
    fi
    # with executor gpu, groups of some of a device's ranks (RANKS_PER_SYSTEM): the groups'
    # coarsest levels (GatheredCoarsest), or their levels below a size (GatheredLevels), gathered
    # on each and solved whole there
    local gathered=
    [ "$executor" = gpu ] && [ -n "${RANKS_PER_SYSTEM:-}" ] \
        && ! grep -Eq '(coarsest level|levels from level [0-9]+) of every group gathered' "$caseDir/log.$app" \
        && gathered=", coarsest not gathered"
    # GATHERED=yes (gatheredLevelCells in the case): the levels below a size gathered on each
    [ -n "${GATHERED:-}" ] && ! grep -Eq 'levels from level [0-9]+ of every group gathered' "$caseDir/log.$app" \
        && gathered=", levels not gathered"
    if [ "$lines" -ge 20 ] && [ "$off" = 0 ] && grep -q '^GAMGGPU:  Solving for' "$caseDir/log.$app" \
        && [ "$shared" = "$hierarchy" ] && [ -z "$gathered" ]; then
        passed=$((passed + 1))
        echo "PASS $(basename "$caseDir") decomposed ${SPLIT:-2 2 1} executor $executor: $lines solve lines, $off off, hierarchy $shared"
    else
        failed=$((failed + 1))
        echo "FAIL $(basename "$caseDir") decomposed ${SPLIT:-2 2 1} executor $executor: $lines solve lines, $off off, hierarchy $shared (expected $hierarchy$gathered; kept $caseDir*)"
        diff <(echo "$native") <(echo "$plugin") | head -n 4 | sed 's/^/    /'
    fi
}

# boxTurbIcoFoam <caseDir>: boxTurb16 for icoFoam (dnsFoam does not run decomposed): 20 steps,
# p's level set in cell 0 (all its patches are cyclic), pFinal as p
boxTurbIcoFoam()
{
    sed -i 's/^endTime .*/endTime         0.5;/' "$1/system/controlDict"
    sed -i 's/^    U$/    pFinal\n    {\n        $p;\n    }\n\n    U/' "$1/system/fvSolution"
    sed -i 's/^\(\s*nNonOrthogonalCorrectors.*\)$/\1\n    pRefCell        0;\n    pRefValue       0;/' "$1/system/fvSolution"
    echo "$1"
}
