#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# The whole time step, native against the plugin, on any supported release (it reads only
# icoFoam's log): tutorials/cavity3D (icoFoam, N^3 cells, K steps) for each size, meshed and
# decomposed once (hierarchical, P blocks: all the host's cores by default), then run on the P
# ranks with p (and pFinal) solved by
#   nativeGAMG          GAMG, smoother GaussSeidel            U: PBiCGStab+DILU
#   nativePCG           PCG+DIC                               U: PBiCGStab+DILU
#   GAMGGPUChebyshev    GAMGGPU, smoother Chebyshev           U: PBiCGStabGPU+DILU
#   GAMGGPUGaussSeidel  GAMGGPU, smoother GaussSeidel         U: PBiCGStabGPU+DILU
#   PCGGPUDIC           PCGGPU+DIC                            U: PBiCGStabGPU+DILU
# (the plugin's runs: the ranks of a GPU as one system or one hierarchy, executor gpu). Every
# solver runs inside the stopwatch of tests/benchmark/solveTimer ("solver timed; timedSolver X;",
# built here with wmake when missing), which logs each solve's wall time and its start.
# Per run and size one line: the first step (wall time between the first solves of steps 1 and 2:
# the solvers' set-up; not icoFoam's ExecutionTime, rank 0's CPU time, which counts each thread
# of a group's owner), the steady step (wall time between the first solves of steps 2 and K,
# over K-2 steps) and its breakdown (p-solves, U-solves, of which the hand-over of the ranks' values to
# their group's system and back, and the rest: OpenFOAM's own work on the cores); per p-solve of
# steps 2..K its time, iterations (V-cycles for GAMG) and time per iteration; native GAMG's steady
# step and p-solve over this run's; the peak of the GPUs' memory in use during the run (nvidia-smi,
# where it answers). The tables go to $OUT/timeStep-<N>.txt when OUT is set, the
# runs' logs to $OUT/timeStep-<N>-<run>.log.gz, each as soon as its run ends.
# With -base DIR each plugin run runs once more, as <run>@base, with the plugin and core of DIR
# (another build: before and after a change, in one run on one machine). A plugin run named
# <run>+opt (nativeGAMG+opt too) has the lines of -options added to its p and pFinal
# dictionaries (a keyword's effect in the same run, e.g. -runs "GAMGGPUChebyshev
# GAMGGPUChebyshev+opt" -options "scaleCorrection false;").
# With -gpus "G ..." (or G,G,...) each plugin run runs once for each G, as <run>-<G>gpu, on the host's first G
# GPUs (CUDA_VISIBLE_DEVICES=0,...,G-1: the ranks of each GPU one group, the groups one system
# or hierarchy together): 1 and 2 on a host of two GPUs give both in one call.
# With -ranksPerSystem N the plugin's runs group each GPU's ranks N at a time (OptimisationSwitch
# gpuLduRanksPerSystem): with 2N ranks on one GPU, two groups that exchange their faces and sums
# as two GPUs' groups do (through the host: one device has no NCCL between its groups).
# With -debug 2 the plugin's solves log the parts of their V-cycles or iterations (DebugSwitches
# gpuLduSolver 2): each part waited for and timed, so no V-cycle is replayed as a CUDA graph and
# the table's times are not the solver's (where the time goes, not how fast).
# Usage: timeStep.sh [-sizes "N ..."] [-steps K] [-np P] [-executor gpu|cpu] [-runs "name ..."]
#                    [-base DIR] [-options "keyword value; ..."] [-gpus "G ..."] [-debug 1|2]
#                    [-ranksPerSystem N]
#   defaults: -sizes "100 200" -steps 10 -np <cores> -executor gpu, every run above
# Needs the run environment: a sourced OpenFOAM release, or . etc/run-env.sh (Debian's v1912);
# the timer library in $GPULDU_LIBDIR (or platforms/lib), else wmake to build it.
set -euo pipefail

sizes="100 200"
steps=10
np=$(nproc)
executor=gpu
runs="nativeGAMG nativePCG GAMGGPUChebyshev GAMGGPUGaussSeidel PCGGPUDIC"
base=
options=
gpus=
debug=1
ranksPerSystem=
usage="Usage: $0 [-sizes \"N ...\"] [-steps K] [-np P] [-executor gpu|cpu] [-runs \"name ...\"] [-base DIR] [-options \"keyword value; ...\"] [-gpus \"G ...\"] [-debug 1|2] [-ranksPerSystem N]"
while [ $# -gt 0 ]; do
    case "$1" in
        -sizes) sizes=${2//,/ }; shift 2 ;;
        -steps) steps=$2; shift 2 ;;
        -np) np=$2; shift 2 ;;
        -executor) executor=$2; shift 2 ;;
        -runs) runs=$2; shift 2 ;;
        -base) base=$(cd "$2" && pwd) || exit 1; shift 2 ;;
        -options) options=$2; shift 2 ;;
        -gpus) gpus=${2//,/ }; shift 2 ;;
        -debug) debug=$2; shift 2 ;;
        -ranksPerSystem) ranksPerSystem=$2; shift 2 ;;
        *) echo "$usage" >&2; exit 1 ;;
    esac
done
[ "$steps" -ge 3 ] || { echo "need at least 3 steps (the first one is set-up; the steady step is the wall time from step 2 to K)" >&2; exit 1; }
case "$executor" in cpu|gpu) ;; *) echo "$usage" >&2; exit 1 ;; esac
case "$debug" in 1|2) ;; *) echo "$usage" >&2; exit 1 ;; esac
[ -z "$ranksPerSystem" ] || [[ $ranksPerSystem =~ ^[1-9][0-9]*$ ]] \
    || { echo "-ranksPerSystem: '$ranksPerSystem' is not a number of ranks; $usage" >&2; exit 1; }
for r in $runs; do
    case "$r" in nativeGAMG|nativePCG|GAMGGPUChebyshev|GAMGGPUGaussSeidel|PCGGPUDIC) ;;
        nativeGAMG+opt|GAMGGPUChebyshev+opt|GAMGGPUGaussSeidel+opt|PCGGPUDIC+opt)
            [ -n "$options" ] || { echo "run '$r' without -options; $usage" >&2; exit 1; } ;;
        *) echo "unknown run '$r'; $usage" >&2; exit 1 ;; esac
done
if [ -n "$base" ]; then
    [ -f "$base/libgpuLduSolvers.so" ] || { echo "no libgpuLduSolvers.so in $base" >&2; exit 1; }
    withBase=
    for r in $runs; do
        case "$r" in native*) withBase="$withBase $r" ;; *) withBase="$withBase $r $r@base" ;; esac
    done
    runs=$withBase
fi
if [ -n "$gpus" ]; then
    onGpus=
    for r in $runs; do
        case "$r" in native*) onGpus="$onGpus $r"; continue ;; esac
        for g in $gpus; do
            [[ $g =~ ^[1-9][0-9]*$ ]] || { echo "-gpus: '$g' is not a number of GPUs; $usage" >&2; exit 1; }
            onGpus="$onGpus $r-${g}gpu"
        done
    done
    runs=$onGpus
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=etc/run-env.sh
. "$root/etc/run-env.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# the stopwatch library: where the plugin is, built by wmake when missing (in the environment
# that built the plugin: the sourced release's, else etc/build-env.sh's v1912)
libDir=${GPULDU_LIBDIR:-$root/platforms/lib}
if [ ! -f "$libDir/libgpuLduSolveTimer.so" ]; then
    (
        command -v wmake > /dev/null || . "$root/etc/build-env.sh"
        # (objects of another release's build removed first: wmake keeps them by WM_OPTIONS only)
        cd "$here/solveTimer" && { [ -z "${WM_OPTIONS:-}" ] || rm -rf "Make/$WM_OPTIONS"; } \
            && FOAM_USER_LIBBIN=$libDir wmake libso
    ) > "$libDir/log.solveTimer" 2>&1 \
        || { echo "FAIL: building tests/benchmark/solveTimer: see $libDir/log.solveTimer" >&2; exit 1; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/timeStep.XXXXXX")

# solverDict <name> <timed solver> <executor or empty> <tolerance> <relTol> <line ...>
solverDict()
{
    local name=$1 solver=$2 exec=$3 tol=$4 rel=$5
    shift 5
    printf '    %s\n    {\n        solver          timed;\n        timedSolver     %s;\n' "$name" "$solver"
    for line in "$@"; do printf '        %s\n' "$line"; done
    [ -z "$exec" ] || printf '        executor        %s;\n' "$exec"
    printf '        tolerance       %s;\n        relTol          %s;\n    }\n' "$tol" "$rel"
}

# writeFvSolution <case> <run>: p, pFinal and U of the run (tolerances of the tutorial)
writeFvSolution()
{
    local p line exec="" u=PBiCGStab run=${2%-[0-9]*gpu}
    run=${run%@base}
    case "${run%+opt}" in
        nativeGAMG) p=GAMG; line="smoother        GaussSeidel;" ;;
        nativePCG) p=PCG; line="preconditioner  DIC;" ;;
        GAMGGPUChebyshev) p=GAMGGPU; line="smoother        Chebyshev;" ;;
        GAMGGPUGaussSeidel) p=GAMGGPU; line="smoother        GaussSeidel;" ;;
        PCGGPUDIC) p=PCGGPU; line="preconditioner  DIC;" ;;
    esac
    case "$2" in native*) ;; *) exec=$executor; u=PBiCGStabGPU ;; esac
    case "$run" in *+opt) line="$line $options" ;; esac
    {
        echo 'FoamFile { version 2.0; format ascii; class dictionary; object fvSolution; }'
        echo 'solvers'
        echo '{'
        solverDict p "$p" "$exec" 1e-06 0.05 "$line"
        solverDict pFinal "$p" "$exec" 1e-06 0 "$line"
        solverDict U "$u" "$exec" 1e-05 0 "preconditioner  DILU;"
        echo '}'
        echo 'PISO { nCorrectors 2; nNonOrthogonalCorrectors 0; pRefCell 0; pRefValue 0; }'
    } > "$1/system/fvSolution"
}

# sampleMemory <file>: the largest memory in use on the host's GPUs together (MiB, nvidia-smi every
# 0.5 s) less what was in use at the start, written to file whenever it grows, until killed
sampleMemory()
{
    local start now peak=0
    used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
    start=$(used)
    while :; do
        now=$(( $(used) - start ))
        if [ "$now" -gt "$peak" ]; then peak=$now; echo "$peak" > "$1"; fi
        sleep 0.5
    done
}

# runCase <case> <run>: icoFoam on the case's ranks into log.<run>, no field written; fails with
# the log's end; the peak of the GPUs' memory in mem.<run> (where nvidia-smi answers)
runCase()
{
    local dir=$1 log=$1/log.$2 status=0 libs='"libgpuLduSolveTimer.so"' path=$LD_LIBRARY_PATH g
    local visible=${CUDA_VISIBLE_DEVICES-all}
    writeFvSolution "$dir" "$2"
    # a run on the first G GPUs
    case "$2" in *-[0-9]*gpu) g=${2##*-}; visible=$(seq -s, 0 $((${g%gpu} - 1))) ;; esac
    # a base run (<run>@base, or <run>@base-<G>gpu): the other build's plugin and core first on
    # the library path
    case "${2%-[0-9]*gpu}" in *@base) path=$base:$LD_LIBRARY_PATH ;; esac
    case "$2" in native*) ;; *) libs='"libgpuLduSolvers.so" "libgpuLduSolveTimer.so"' ;; esac
    sed -i -e "s/^libs.*/libs            ($libs);/" -e '/^DebugSwitches/d' -e '/^OptimisationSwitches/d' \
        -e "s/^writeInterval .*/writeInterval   $((steps + 1));/" "$dir/system/controlDict"
    # the plugin's debug lines of each solve: its phases, the group's hand-over (ESI's releases
    # read them from controlDict, the Foundation's from configDict)
    rm -f "$dir/system/configDict"
    case "$2" in
        native*) ;;
        *)
            local switches="DebugSwitches { gpuLduSolver $debug; gpuLduRankGroup 1; }"
            [ -z "$ranksPerSystem" ] \
                || switches="$switches OptimisationSwitches { gpuLduRanksPerSystem $ranksPerSystem; }"
            echo "$switches" >> "$dir/system/controlDict"
            { echo 'FoamFile { version 2.0; format ascii; class dictionary; object configDict; }'
              echo "$switches"; } > "$dir/system/configDict"
            ;;
    esac
    echo "cavity3D $(basename "$dir"), $steps steps, $np rank(s): $2" >&2
    local sampler=
    rm -f "$dir/mem.$2"
    if nvidia-smi -L > /dev/null 2>&1; then sampleMemory "$dir/mem.$2" & sampler=$!; fi
    if [ "$np" -gt 1 ]; then
        (cd "$dir" && { [ "$visible" = all ] || export CUDA_VISIBLE_DEVICES=$visible; } \
            && LD_LIBRARY_PATH=$path mpirun --oversubscribe -np "$np" icoFoam -parallel > "$log" 2>&1) \
            || status=$?
    else
        (cd "$dir" && { [ "$visible" = all ] || export CUDA_VISIBLE_DEVICES=$visible; } \
            && LD_LIBRARY_PATH=$path icoFoam > "$log" 2>&1) || status=$?
    fi
    [ -z "$sampler" ] || { kill "$sampler"; wait "$sampler" 2> /dev/null || true; }
    if [ "$status" -ne 0 ] || ! grep -q '^End' "$log"; then
        echo "FAIL: $2 in $dir (exit $status); kept $work" >&2
        { grep -A 6 'FOAM FATAL' "$log" || tail -n 8 "$log"; } >&2
        exit 1
    fi
    [ "$(grep -c '^solveTimer: ' "$log")" -eq $((5*steps)) ] \
        || { echo "FAIL: $log has not 5 timed solves a step (Ux Uy Uz p p); kept $work" >&2; exit 1; }
}

# summary <log> <run>: one line of numbers for the table (see the header)
summary()
{
    awk -v name="$2" -v K="$steps" '
        /^Time = / { step++ }
        /^solveTimer: / {
            ms = $4; at = $(NF - 1)
            if (!(step in start)) start[step] = at
            if (step < 2) next
            if ($2 == "p") { pMs += ms; pN++ } else uMs += ms
        }
        /Solving for p,/ && step >= 2 { it += $NF }
        # the hand-over: the line of the group owner, one per solve; a build without it: the solver
        # line (the GAMGGPU levels line repeats the figure)
        /^gpuLduRankGroup: hand-over of / && step >= 2 { groupHand += $6; groupLines++ }
        /^gpuLduSolver: .*hand-over / && !/ levels \(/ && step >= 2 {
            for (i = 1; i < NF; i++) if ($i == "hand-over") solverHand += $(i + 1)
        }
        END {
            first = start[2] - start[1]
            hand = groupLines ? groupHand : solverHand
            wall = (start[K] - start[2])/(K - 2)
            # the timed solves of steps 2..K against the K-2 steps between the starts: the
            # per-step sums are over K-1 steps
            n = K - 1
            printf "%s %g %g %g %g %g %g %g %g %s\n", name, first, wall, pMs/n/1e3, uMs/n/1e3, \
                hand/n/1e3, pN, it, pMs, mem
        }' mem="$(cat "$(dirname "$1")/mem.$2" 2> /dev/null || echo -)" "$1"
}

# table <N> <run ...>: the size's runs (those done) as one table
table()
{
    local n=$1 dir=$work/$1
    shift
    local build ended="$*"
    build=$(for r in $ended; do sed -n 's/^Build *: *//p' "$dir/log.$r"; break; done | head -n 1)
    printf 'cavity3D %d^3 = %d cells, %d steps, %d rank(s), executor %s, OpenFOAM %s (%s), %s, %s\n' \
        "$n" $((n*n*n)) "$steps" "$np" "$executor" "${build:-?}" "$WM_PROJECT_DIR" \
        "$(date -u +%FT%TZ)" "$(nvidia-smi -L 2>/dev/null | head -n 1 || hostname)"
    for r in $ended; do summary "$dir/log.$r" "$r"; done | awk '
        { name[NR] = $1; first[NR] = $2; wall[NR] = $3; p[NR] = $4; u[NR] = $5; hand[NR] = $6
          pN[NR] = $7; it[NR] = $8; pMs[NR] = $9; mem[NR] = $10; if ($1 == "nativeGAMG") ref = NR }
        function ratio(a, b) { return (ref && b > 0) ? sprintf("%.2fx", a/b) : "-" }
        END {
            fmt = "%-22s %8s %8s %8s %8s %8s %8s %10s %8s %9s %9s %9s %8s\n"
            printf fmt, "", "first", "steady", "p-solves", "U-solves", "hand-", "rest", "per", "iters", "ms per", "native", "native", "GPU mem"
            printf fmt, "run", "step (s)", "step (s)", "(s)", "(s)", "over (s)", "(s)", "p-solve ms", "(mean)", "iteration", "GAMG step", "GAMG p", "(GiB)"
            for (i = 1; i <= NR; i++) {
                per = pN[i] ? pMs[i]/pN[i] : 0
                its = pN[i] ? it[i]/pN[i] : 0
                printf fmt, name[i], sprintf("%.3g", first[i]), sprintf("%.3g", wall[i]), \
                    sprintf("%.3g", p[i]), sprintf("%.3g", u[i]), sprintf("%.3g", hand[i]), \
                    sprintf("%.3g", wall[i] - p[i] - u[i]), sprintf("%.4g", per), sprintf("%.1f", its), \
                    sprintf("%.3g", its ? per/its : 0), ratio(wall[ref], wall[i]), \
                    ratio(pMs[ref]/pN[ref], per), mem[i] == "-" ? "-" : sprintf("%.3g", mem[i]/1024)
            }
        }'
    echo "first step: wall time between the first solves of steps 1 and 2; steady step: wall time between the first solves of steps 2 and $steps;"
    echo "p-solves, U-solves, hand-over (the plugin's, inside its solves): per step, steps 2..$steps; rest = steady - p - U"
    echo "GPU mem: the peak of the memory in use on the host's GPUs together during the run, less that at its start (nvidia-smi every 0.5 s)"
}

for n in $sizes; do
    dir=$work/$n
    cp -r "$root/tutorials/cavity3D" "$dir"
    "$dir/Allclean" > /dev/null 2>&1 || true
    echo "cavity3D ${n}^3: blockMesh, decomposePar" >&2
    (cd "$dir" && ./Allrun -n "$n" -steps "$steps" -np "$np" -mesh) > "$dir/log.Allrun" 2>&1 \
        || { echo "FAIL: $dir/log.Allrun; kept $work" >&2; tail -n 5 "$dir/log.Allrun" >&2; exit 1; }
    ended=
    for r in $runs; do
        rm -rf "$dir"/processor*/[1-9]* "$dir"/processor*/0.[0-9]* "$dir"/[1-9]* "$dir"/0.[0-9]*
        runCase "$dir" "$r"
        ended="$ended $r"
        # the table of the runs done so far and each run's log as soon as it ends (a call cut
        # short by its time limit keeps them)
        if [ -n "${OUT:-}" ]; then
            table "$n" $ended > "$OUT/timeStep-$n.txt"
            gzip -c "$dir/log.$r" > "$OUT/timeStep-$n-$(echo "$r" | tr '@+' '--').log.gz"
        fi
    done
    table "$n" $runs
done
[ -n "${CAVITY_KEEP:-}" ] || rm -rf "$work"
