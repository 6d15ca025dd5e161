#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Benchmark: tutorials/cavity3D (icoFoam, N^3 cells, K time steps) with native PCG, native GAMG
# (for p), the plugin's PCGGPU, with the chosen preconditioner and with diagonal, and the
# plugin's GAMGGPU (one rank: GaussSeidel, Chebyshev, l1Jacobi; with -np P also on the P ranks,
# the ranks of a GPU as one hierarchy: GaussSeidel, Chebyshev), all under
# OpenFOAM's profiling. Prints one table: p solves, p iterations (from
# the "Solving for p" log lines), p-solve time (profiling's fvMatrix::solve.p totalTime), per solve
# and per iteration, icoFoam's ExecutionTime, and native/plugin ratios. The same table goes to
# $OUT/cavity3D-<N>.txt when OUT is set. The mesh is built once (native run) and reused.
# Profiling times are wall-clock; ExecutionTime is icoFoam's CPU time. U is solved by
# PBiCGStabGPU+DILU in the plugin run and by native PBiCGStab+DILU in the native run.
# With CAVITY_DIRECT=1 (one rank) also p by LDLTGPU, the sparse direct solver: one line with its
# time per p-solve, per factored solve and per solve with the factor reused (its debug switch).
# Usage: cavity3D.sh [-n N] [-steps K] [-np P] [-executor auto|gpu|cpu] [-precond DIC|FDIC|diagonal|none]
# Defaults: 50^3 cells, 5 steps, 1 rank, executor gpu where nvidia-smi sees a GPU, else cpu. With
# -np P every run is decomposed into the same P blocks and runs on P MPI ranks (natively: all the
# host's cores with P = cores; the plugin: P ranks sharing the node's GPUs, the ranks of a GPU
# solving as one system), and the plugin runs once more on one rank.
set -euo pipefail

usage="Usage: $0 [-n N] [-steps K] [-np P] [-executor auto|gpu|cpu] [-precond DIC|FDIC|diagonal|none] [-keep]"
n=50
steps=5
np=1
executor=auto
precond=DIC
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        -n) n=$2; shift 2 ;;
        -steps) steps=$2; shift 2 ;;
        -np) np=$2; shift 2 ;;
        -executor) executor=$2; shift 2 ;;
        -precond) precond=$2; shift 2 ;;
        -keep) keep=1; shift ;;
        *) echo "$usage" >&2; exit 1 ;;
    esac
done
if [ "$executor" = auto ]; then
    executor=cpu
    nvidia-smi -L > /dev/null 2>&1 && executor=gpu
fi
case "$executor" in cpu|gpu) ;; *) echo "$usage" >&2; exit 1 ;; esac
case "$precond" in DIC|FDIC|diagonal|none) ;; *) echo "$usage" >&2; exit 1 ;; esac

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=etc/run-env.sh
. "$here/../../etc/run-env.sh"
# shellcheck source=tests/lib/checks.sh
. "$here/../lib/checks.sh"
tutorial=$here/../../tutorials/cavity3D
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=$(mktemp -d "${TMPDIR:-/tmp}/cavity3D-bench.XXXXXX")
native=$work/native
plugin=$work/plugin

# setPPreconditioner <fvSolution> <name>: the preconditioner of p and pFinal becomes <name>
setPPreconditioner()
{
    sed -i "/^\s*p\(Final\)\?\s*$/,/}/ s/^\(\s*preconditioner\s\+\)\S\+\s*;/\1$2;/" "$1"
    [ "$(grep -cE "^\s*preconditioner\s+$2\s*;" "$1")" -ge 2 ] \
        || { echo "FAIL: could not set the preconditioner of p and pFinal to $2 in $1" >&2; return 1; }
}

# setFvSolution <case> native|plugin: the GPU solvers of cavity3D (p and pFinal: PCGGPU, U:
# PBiCGStabGPU) become their native twins without executor, or keep "executor <executor>;"; the
# preconditioner of p and pFinal becomes <precond> (U's DILU stays).
setFvSolution()
{
    local file=$1/system/fvSolution mode=$2 n
    setPPreconditioner "$file" "$precond" || return 1
    if [ "$mode" = native ]; then
        sed -i -e 's/^\(\s*solver\s\+\S\+\)GPU\s*;/\1;/' -e '/^\s*executor\s/d' "$file"
        n=$(grep -cE '^\s*solver\s+(PCG|PBiCGStab)\s*;' "$file" || true)
    else
        sed -i "s/^\(\s*executor\s\+\)\S\+\s*;/\1$executor;/" "$file"
        n=$(grep -cE "^\s*executor\s+$executor\s*;" "$file" || true)
    fi
    [ "$n" -eq 3 ] || { echo "FAIL: could not rewrite $file for $mode" >&2; return 1; }
}

# fails with the end of the log when an application failed
check()
{
    local dir=$1 status=$2 log=$1/log.icoFoam
    if [ "$status" -ne 0 ] || ! grep -q '^End' "$log" 2>/dev/null; then
        echo "FAIL: $dir (exit $status); kept $work" >&2
        for f in "$dir"/log.*; do
            [ -f "$f" ] && { echo "== $f" >&2; { grep -A 6 'FOAM FATAL' "$f" || tail -n 8 "$f"; } >&2; }
        done
        exit 1
    fi
}

# runIcoFoam <case> <what>: icoFoam in the case (log.icoFoam), on np ranks; fails with the log's end
runIcoFoam()
{
    local status=0
    echo "cavity3D ${n}^3, $steps steps, $np rank(s): $2 (icoFoam) in $1"
    if [ "$np" -gt 1 ]; then
        (cd "$1" && mpirun --oversubscribe -np "$np" icoFoam -parallel > log.icoFoam 2>&1) || status=$?
    else
        (cd "$1" && icoFoam > log.icoFoam 2>&1) || status=$?
    fi
    check "$1" "$status"
}

# entry <profiling file> <description>: "calls totalTime" of that profiling entry, a dictionary
# { id N; parentId M; description "..."; calls C; totalTime T; childTime X; active B; }
entry()
{
    awk -v d="\"$2\";" '
        $1 == "description" && $2 == d { inEntry = 1 }
        inEntry && $1 == "calls" { sub(/;/, "", $2); c = $2 }
        inEntry && $1 == "totalTime" { sub(/;/, "", $2); t = $2 }
        inEntry && /}/ { inEntry = 0 }
        END { if (c == "") exit 1; print c, t }' "$1"
}

# summary <case>: "solves iterations solveTime calls executionTime lastStepTime wallTime uTime"
summary()
{
    local dir=$1 prof solves its calls total exec last wall
    # the master's profiling: <time>/uniform/profiling, or processor0's in a decomposed run
    prof=$(find "$dir" -maxdepth 4 -path '*/uniform/profiling' \
        | grep -E "^$dir/(processor0/)?[^/]+/uniform/profiling$" | sort -V | tail -n 1)
    [ -n "$prof" ] || { echo "FAIL: no */uniform/profiling in $dir; kept $work" >&2; exit 1; }
    read -r calls total < <(entry "$prof" "fvMatrix::solve.p") \
        || { echo "FAIL: no fvMatrix::solve.p in $prof; kept $work" >&2; exit 1; }
    read -r _ wall < <(entry "$prof" "application::main") || wall=0
    read -r _ uTime < <(entry "$prof" "fvMatrix::solve.U") || uTime=0
    read -r solves its < <(sed -n 's/.*Solving for p, .*No Iterations \([0-9]*\)$/\1/p' "$dir/log.icoFoam" \
        | awk '{ n++; s += $1 } END { print n+0, s+0 }')
    read -r exec last < <(sed -n 's/^ExecutionTime = \(\S*\) s.*/\1/p' "$dir/log.icoFoam" \
        | awk '{ prev = cur; cur = $1 } END { print cur, cur - prev }')
    echo "$solves $its $total $calls $exec $last $wall $uTime"
}

cp -r "$tutorial" "$native"
"$native/Allclean" > /dev/null 2>&1 || true
cat >> "$native/system/controlDict" <<'EOT'

profiling
{
    active      true;
    cpuInfo     false;
    memInfo     false;
    sysInfo     false;
}
EOT
setFvSolution "$native" native
echo "cavity3D ${n}^3, $steps steps, $np rank(s): native PCG+$precond (blockMesh + icoFoam) in $native"
status=0
(cd "$native" && ./Allrun -n "$n" -steps "$steps" -np "$np") > "$native/log.Allrun" 2>&1 || status=$?
check "$native" "$status"

# the plugin case: native's dictionaries (as Allrun set them) and mesh, the tutorial's fvSolution
copyCase "$native" "$plugin"
cp "$tutorial/system/fvSolution" "$plugin/system/fvSolution"
setFvSolution "$plugin" plugin
sed -i 's/^libs.*/&\nDebugSwitches { gpuLduSolver 1; }/' "$plugin/system/controlDict"
runIcoFoam "$plugin" "PCGGPU executor $executor + $precond"

# the plugin with the diagonal preconditioner for p: the same case otherwise
diag=$work/pluginDiagonal
copyCase "$plugin" "$diag"
setPPreconditioner "$diag/system/fvSolution" diagonal
runIcoFoam "$diag" "PCGGPU executor $executor + diagonal"

# with -np P > 1, the plugin on one rank too (the same mesh, undecomposed)
single=$work/pluginOneRank
if [ "$np" -gt 1 ]; then
    mkdir -p "$single/constant"
    cp -r "$plugin/0" "$plugin/system" "$single/"
    cp -r "$plugin/constant/." "$single/constant/"
    (np=1; runIcoFoam "$single" "PCGGPU executor $executor + $precond, one rank")
fi

# with CAVITY_DIRECT=1 (one rank), p by LDLTGPU, the sparse direct solver: the plugin case
# otherwise, with the debug switch that logs each solve's factorisations and time
direct=$work/pluginDirect
if [ -n "${CAVITY_DIRECT:-}" ] && [ "$np" -eq 1 ]; then
    copyCase "$plugin" "$direct"
    sed -i '/^\s*p\(Final\)\?\s*$/,/}/ { /preconditioner/d; s/^\(\s*solver\s\+\)\S\+\s*;/\1LDLTGPU;/ }' \
        "$direct/system/fvSolution"
    [ "$(grep -cE '^\s*solver\s+LDLTGPU\s*;' "$direct/system/fvSolution")" -eq 2 ] \
        || { echo "FAIL: could not set LDLTGPU in $direct/system/fvSolution" >&2; exit 1; }
    sed -i 's/^DebugSwitches { gpuLduSolver 1; }/DebugSwitches { gpuLduSolver 1; LDLTGPU 1; }/' "$direct/system/controlDict"
    runIcoFoam "$direct" "LDLTGPU executor $executor"
fi

# native GAMG for p, OpenFOAM's other choice: the same mesh, dictionaries and tolerances
gamg=$work/gamg
copyCase "$native" "$gamg"
sed -i '/^\s*p\(Final\)\?\s*$/,/}/ { /preconditioner/d; s/^\(\s*solver\s\+\)\S\+\s*;/\1GAMG;\n        smoother        GaussSeidel;/ }' \
    "$gamg/system/fvSolution"
[ "$(grep -cE '^\s*solver\s+GAMG\s*;' "$gamg/system/fvSolution")" -eq 2 ] \
    || { echo "FAIL: could not set GAMG in $gamg/system/fvSolution" >&2; exit 1; }
runIcoFoam "$gamg" "native GAMG"

# GAMGGPU (OpenFOAM's GAMG on the device) on one rank:
# the native GAMG run's dictionaries, undecomposed, with GaussSeidel as the native GAMG run and with
# the plugin's own smoothers Chebyshev and l1Jacobi; each with the debug switch that logs every
# solve's time and one-off set-up (gpuLduSolver 1), and GaussSeidel and Chebyshev once more with
# the V-cycle's parts timed (gpuLduSolver 2, which synchronises the device between parts)
gamgGpu=$work/gamgGpu
mkdir -p "$gamgGpu/constant"
cp -r "$gamg/0" "$gamg/system" "$gamgGpu/"
cp -r "$gamg/constant/." "$gamgGpu/constant/"
sed -i "/^\s*p\(Final\)\?\s*$/,/}/ s/^\(\s*solver\s\+\)GAMG\s*;/\1GAMGGPU;\n        executor        $executor;/" \
    "$gamgGpu/system/fvSolution"
grep -q '^libs' "$gamgGpu/system/controlDict" || sed -i 's/^application.*/&\nlibs ("libgpuLduSolvers.so");/' "$gamgGpu/system/controlDict"
[ "$(grep -cE '^\s*solver\s+GAMGGPU\s*;' "$gamgGpu/system/fvSolution")" -eq 2 ] \
    || { echo "FAIL: could not set GAMGGPU in $gamgGpu/system/fvSolution" >&2; exit 1; }
# the same dictionaries on the native GAMG run's decomposition (-np P > 1)
gamgGpuNp=$work/gamgGpuNp
copyCase "$gamg" "$gamgGpuNp"
cp "$gamgGpu/system/fvSolution" "$gamgGpu/system/controlDict" "$gamgGpuNp/system/"

# runGamgGpu <smoother> <debug level> [np]: GAMGGPU with that smoother for p and pFinal in
# $work/gamgGpu-<smoother>-<debug level>, on one rank, or on the np ranks of the decomposition
# (then in $work/gamgGpu-<smoother>-<debug level>-np)
runGamgGpu()
{
    local dir=$work/gamgGpu-$1-$2${3:+-np} ranks=${3:-1}
    copyCase "$([ -n "${3:-}" ] && echo "$gamgGpuNp" || echo "$gamgGpu")" "$dir"
    sed -i "/^\s*p\(Final\)\?\s*$/,/}/ s/^\(\s*smoother\s\+\)\S\+\s*;/\1$1;/" "$dir/system/fvSolution"
    [ "$(grep -cE "^\s*smoother\s+$1\s*;" "$dir/system/fvSolution")" -eq 2 ] \
        || { echo "FAIL: could not set smoother $1 in $dir/system/fvSolution" >&2; exit 1; }
    sed -i "s/^libs.*/&\nDebugSwitches { gpuLduSolver $2; }/" "$dir/system/controlDict"
    (np=$ranks; runIcoFoam "$dir" "GAMGGPU executor $executor + $1, $ranks rank(s), gpuLduSolver $2")
}
smoothers=${GAMG_SMOOTHERS:-GaussSeidel Chebyshev l1Jacobi}
for s in $smoothers; do runGamgGpu "$s" 1; done
for s in GaussSeidel Chebyshev; do runGamgGpu "$s" 2; done
npSmoothers=""
[ "$np" -gt 1 ] && npSmoothers=${GAMG_NP_SMOOTHERS:-GaussSeidel Chebyshev}
for s in $npSmoothers; do runGamgGpu "$s" 1 "$np"; done

# gamgLine <smoother> [-np]: one line of the GAMGGPU table from its runs' logs and profiling
# (-np: the decomposed run; its solve times are the first rank's)
gamgLine()
{
    local run=$work/gamgGpu-$1-1${2:-} timed=$work/gamgGpu-$1-2${2:-} S I T W
    read -r S I T _ _ _ W _ < <(summary "$run")
    # per solve: "solve X ms: agglomeration A ms, level systems L ms, upload U ms, coarse
    # matrices C ms, smoother set-up M ms, V-cycles V ms"
    sed -n 's/^gpuLduSolver: GAMGGPU p: .*, solve \(\S*\) ms: agglomeration \(\S*\) ms, level systems \(\S*\) ms, upload \(\S*\) ms, coarse matrices \(\S*\) ms, smoother set-up \(\S*\) ms.*/\1 \2 \3 \4 \5 \6/p' \
        "$run/log.icoFoam" > "$run/solves.txt"
    # per timed run: V-cycle parts summed over its solves
    local parts
    parts=$([ -f "$timed/log.icoFoam" ] && sed -n 's/^gpuLduSolver: GAMGGPU p: V-cycles: smoothing finest \(\S*\) ms, coarse \(\S*\) ms, restriction+prolongation \(\S*\) ms, coarsest \(\S*\) ms; \(\S*\) dependent sweep levels/\1 \2 \3 \4 \5/p' \
        "$timed/log.icoFoam" | awk '{ a += $1; b += $2; c += $3; d += $4; e += $5 } END { print a+0, b+0, c+0, d+0, e+0 }' || echo "0 0 0 0 0")
    local tI=0
    [ -f "$timed/log.icoFoam" ] && read -r _ tI _ < <(summary "$timed")
    awk -v name="$1${2:+ np$np}" -v S="$S" -v I="$I" -v T="$T" -v W="$W" -v gPS="$gPS" -v gI="$gI" -v gS="$gS" -v parts="$parts" -v tI="$tI" '
        function ratio(a, b) { return b > 0 ? sprintf("%.2f", a/b) : "-" }
        { n++; if (n == 1) { first = $1; agg = $2; sys = $3 } else { later += $1 }
          up += $4; cm += $5; ss += $6 }
        END {
            steady = n > 1 ? later/(n - 1) : 0
            split(parts, p, " ")
            printf "%-12s %7d %9d %10.5g %10.4g %10.5g %10.5g %9.4g %9.4g %7.1f%% %7s %7s %7.4g %7.4g %7.4g %7.4g %7.0f %8.4g\n", \
                name, S, I, 1000*T/S, 1000*T/I, steady, first, agg, sys, 100*(up + cm + ss)/(1000*T), \
                ratio(gPS, 1000*T/S), ratio(gPS, steady), \
                tI ? p[1]/tI : 0, tI ? p[2]/tI : 0, tI ? p[3]/tI : 0, tI ? p[4]/tI : 0, tI ? p[5]/tI : 0, W
        }' "$run/solves.txt"
}

read -r nS nI nT nC nE nL nW nU < <(summary "$native")
read -r gS gI gT gC gE gL gW gU < <(summary "$gamg")
read -r pS pI pT pC pE pL pW pU < <(summary "$plugin")
read -r dS dI dT dC dE dL dW dU < <(summary "$diag")
sS=0 sI=0 sT=0 sW=0
[ "$np" -gt 1 ] && read -r sS sI sT _ _ _ sW _ < <(summary "$single")
if [ "$nS" != "$nC" ] || [ "$pS" != "$pC" ]; then
    echo "WARNING: 'Solving for p' lines ($nS native, $pS plugin) differ from profiling calls" \
         "($nC, $pC)" >&2
fi

# the plugin's own phase timings (ms, summed over the p-solves): upload+convert, set-up,
# iterations, hand-over (ranks of a group to its system and back)
read -r pUp pSet pIt pHand < <(sed -n 's/^gpuLduSolver: .* p: upload+convert \(\S*\) ms, preconditioner set-up \(\S*\) ms, iterations \(\S*\) ms.*hand-over \(\S*\) ms.*/\1 \2 \3 \4/p' \
    "$plugin/log.icoFoam" | awk '{ u += $1; s += $2; i += $3; h += $4 } END { print u+0, s+0, i+0, h+0 }')

table=$(awk -v pUp="$pUp" -v pSet="$pSet" -v pIt="$pIt" -v pHand="$pHand" -v sS="$sS" -v sI="$sI" -v sT="$sT" -v sW="$sW" -v n="$n" -v k="$steps" -v np="$np" -v e="$executor" -v pc="$precond" \
    -v nS="$nS" -v nI="$nI" -v nT="$nT" -v nE="$nE" -v nL="$nL" -v nW="$nW" \
    -v gS="$gS" -v gI="$gI" -v gT="$gT" -v gE="$gE" -v gL="$gL" -v gW="$gW" -v gU="$gU" \
    -v nU="$nU" -v pU="$pU" -v pS="$pS" -v pI="$pI" -v pT="$pT" -v pE="$pE" -v pL="$pL" -v pW="$pW" -v date="$(date -u +%FT%TZ)" \
    -v dS="$dS" -v dI="$dI" -v dT="$dT" -v dE="$dE" -v dL="$dL" -v dW="$dW" -v dU="$dU" \
    -v host="$(hostname)" -v gpu="$(nvidia-smi -L 2>/dev/null | head -n 1 || true)" '
    function ratio(a, b) { return b > 0 ? sprintf("%.2f", a/b) : "-" }
    BEGIN {
        nPS = nS ? 1000*nT/nS : 0; pPS = pS ? 1000*pT/pS : 0; gPS = gS ? 1000*gT/gS : 0
        nPI = nI ? 1000*nT/nI : 0; pPI = pI ? 1000*pT/pI : 0; gPI = gI ? 1000*gT/gI : 0
        dPS = dS ? 1000*dT/dS : 0; dPI = dI ? 1000*dT/dI : 0
        printf "cavity3D %d^3 = %d cells, %d steps, %d rank(s), precond %s, plugin executor %s (%s, %s%s)\n", \
            n, n*n*n, k, np, pc, e, date, host, gpu != "" ? ", " gpu : ""
        fmt = "%-22s %12s %12s %12s %10s %10s %12s\n"
        printf fmt, "", "native PCG", "native GAMG", "PCGGPU " e, "PCG/plug", "GAMG/plug", "PCGGPU diag"
        printf fmt, "p solves", nS, gS, pS, "", "", dS
        printf fmt, "p iterations", nI, gI, pI, ratio(nI, pI), "", dI
        printf fmt, "p-solve time (s)", sprintf("%.4g", nT), sprintf("%.4g", gT), sprintf("%.4g", pT), ratio(nT, pT), ratio(gT, pT), sprintf("%.4g", dT)
        printf fmt, "ms per p-solve", sprintf("%.5g", nPS), sprintf("%.5g", gPS), sprintf("%.5g", pPS), ratio(nPS, pPS), ratio(gPS, pPS), sprintf("%.5g", dPS)
        printf fmt, "ms per p iteration", sprintf("%.4g", nPI), sprintf("%.4g", gPI), sprintf("%.4g", pPI), ratio(nPI, pPI), "", sprintf("%.4g", dPI)
        printf fmt, "U-solve time (s)", sprintf("%.4g", nU), sprintf("%.4g", gU), sprintf("%.4g", pU), ratio(nU, pU), "", sprintf("%.4g", dU)
        printf fmt, "icoFoam wall (s)", sprintf("%.4g", nW), sprintf("%.4g", gW), sprintf("%.4g", pW), ratio(nW, pW), ratio(gW, pW), sprintf("%.4g", dW)
        printf fmt, "ExecutionTime (cpu s)", nE, gE, pE, ratio(nE, pE), ratio(gE, pE), dE
        printf fmt, "last step (cpu s)", sprintf("%.4g", nL), sprintf("%.4g", gL), sprintf("%.4g", pL), ratio(nL, pL), ratio(gL, pL), sprintf("%.4g", dL)
        if (sS > 0) {
            printf "PCGGPU %s on one rank: %d p solves, %d iterations, %.5g ms per p-solve, %.4g ms per iteration, icoFoam wall %.4g s; %d ranks against one: p-solve %s, wall %s\n", \
                pc, sS, sI, 1000*sT/sS, sI ? 1000*sT/sI : 0, sW, np, ratio(1000*sT/sS, pPS), ratio(sW, pW)
        }
        if (pS > 0) {
            other = 1000*pT - pUp - pSet - pIt
            printf "PCGGPU per p-solve: upload+convert %.3g ms, preconditioner set-up %.3g ms, iterations %.4g ms, hand-over %.3g ms (%.1f%% of the p-solve time); " \
                "upload+convert+set-up = %.1f%% of the p-solve time; rest (addressing cache built at the first solve, OpenFOAM side) %.4g ms in all\n", \
                pUp/pS, pSet/pS, pIt/pS, pHand/pS, 100*pHand/(1000*pT), 100*(pUp + pSet)/(1000*pT), other - pHand
        }
        print "p-solve time: profiling fvMatrix::solve.p totalTime (wall, first-solve set-up included);" \
              " icoFoam wall: application::main; PCGGPU diag: the plugin with p preconditioned by diagonal" \
              " (its own iteration count; the ratios are against PCGGPU " pc ")"
    }')
gPS=$(awk -v t="$gT" -v s="$gS" 'BEGIN { print s ? 1000*t/s : 0 }')
gamgTable=$(
    printf "GAMGGPU one rank (np%d: on the %d ranks), executor %s, against native GAMG GaussSeidel on %d rank(s) (%d p solves, %d V-cycles, %.5g ms per p-solve, first solve's agglomeration included):\n" \
        "$np" "$np" "$executor" "$np" "$gS" "$gI" "$gPS"
    printf "%-12s %7s %9s %10s %10s %10s %10s %9s %9s %8s %7s %7s %7s %7s %7s %7s %7s %8s\n" smoother "solves" "V-cycles" "ms/solve" "ms/Vcycle" \
        "steady ms" "first ms" "agglom ms" "levels ms" "set-up" "GAMG/x" "steady" "smFine" "smCoarse" "transfer" "coarsest" "chain" "wall s"
    for s in $smoothers; do gamgLine "$s"; done
    for s in $npSmoothers; do gamgLine "$s" -np; done
    echo "ms/solve, ms/Vcycle: profiling fvMatrix::solve.p (all solves, first included); steady ms: the plugin's own time of the solves after the first;" \
         "first ms: the first solve, of which agglom ms (OpenFOAM's GAMGAgglomeration, one core) and levels ms (the level systems built);" \
         "set-up: upload + coarse matrices + smoother set-up, share of the p-solve time; GAMG/x: native GAMG's ms per p-solve over this one's," \
         "steady: over the steady ms; smFine .. coarsest: ms per V-cycle of another run with the parts timed (device synchronised);" \
         "chain: dependent sweep levels per V-cycle (the steps of the level-scheduled Gauss-Seidel sweeps, one after another)"
)
table="$table
$gamgTable"
if [ -f "$direct/log.icoFoam" ]; then
    read -r xS xI xT _ _ _ xW _ < <(summary "$direct")
    # per solve: "LDLTGPU: p: N refinement steps, F factorisations, direct solves D ms, whole solve W ms"
    directLine=$(sed -n 's/^LDLTGPU: p: \(\S*\) refinement steps, \(\S*\) factorisations, direct solves \(\S*\) ms, whole solve \(\S*\) ms.*/\2 \4/p' \
        "$direct/log.icoFoam" | awk -v S="$xS" -v I="$xI" -v T="$xT" -v W="$xW" -v e="$executor" -v pc="$precond" \
            -v pPS="$(awk -v t="$pT" -v s="$pS" 'BEGIN { print s ? 1000*t/s : 0 }')" -v gPS="$gPS" '
        function ratio(a, b) { return b > 0 ? sprintf("%.2f", a/b) : "-" }
        { if ($1 > 0) { nf++; tf += $2 } else { nr++; tr += $2 } }
        END {
            printf "LDLTGPU executor %s (p and pFinal): %d p solves, %d refinement steps, %.5g ms per p-solve (PCGGPU+%s/LDLTGPU %s, native GAMG/LDLTGPU %s); " \
                   "%d solves factored (%.5g ms each, the first with the symbolic analysis), %d with the factor reused (%.4g ms each: PCGGPU+%s/reused %s); icoFoam wall %.4g s\n", \
                e, S, I, 1000*T/S, pc, ratio(pPS, 1000*T/S), ratio(gPS, 1000*T/S), nf, nf ? tf/nf : 0, nr, nr ? tr/nr : 0, pc, ratio(pPS, nr ? tr/nr : 0), W
        }')
    table="$table
$directLine"
fi
echo "$table"
if [ -n "${OUT:-}" ]; then
    mkdir -p "$OUT"
    echo "$table" > "$OUT/cavity3D-$n$([ "$np" -gt 1 ] && echo "-np$np").txt"
fi
if [ "$keep" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
