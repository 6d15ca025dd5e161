# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced (bash) by compareNative.sh and checkNative.sh: rewrites the plugin's solver
# dictionaries of a case. The plugin's solvers are PCGGPU, PBiCGGPU, PBiCGStabGPU and GAMGGPU; each one's
# native twin is its name without the GPU suffix.

gpuSolverRe='(PCG|PBiCG|PBiCGStab|GAMG)GPU'

# editFvSolution <fvSolution> <mode> <executor> <precond spec>
# Rewrites, in place, every solver dictionary that holds "solver <a GPU solver>;":
#   mode native      -> "solver <native twin>;", no executor and no checkNative entry
#   mode plugin      -> exactly one "executor <executor>;", no checkNative entry
#   mode checkNative -> as plugin, plus "checkNative true;"
# The precond spec is a list of words P (every such dictionary) or SOLVER:P (only the dictionaries
# of GPU solver SOLVER, e.g. PBiCGStabGPU:DILU); a later word wins. Prints the largest tolerance
# and the largest relTol of those dictionaries.
editFvSolution()
{
    local file=$1 mode=$2 before
    before=$(grep -cE "^\s*solver\s+$gpuSolverRe\s*;" "$file" || true)
    [ "$before" -gt 0 ] || { echo "FAIL: no 'solver PCGGPU|PBiCGGPU|PBiCGStabGPU|GAMGGPU;' in $file" >&2; return 1; }
    awk -v mode="$mode" -v executor="$3" -v spec="$4" -v re="^[ \t]*solver[ \t]+${gpuSolverRe}[ \t]*;" '
        { line[NR] = $0 }
        $0 ~ re { solver[NR] = $2; sub(/;.*/, "", solver[NR]) }
        /\{/ { stack[++sp] = NR }
        /\}/ {
            # innermost dictionary around each GPU solver line
            for (i = stack[sp]; i <= NR; i++)
                if ((i in solver) && !(i in blockEnd)) { blockStart[i] = stack[sp]; blockEnd[i] = NR }
            sp--
        }
        END {
            nSpec = split(spec, words, " ")
            for (s in blockEnd) {
                precond[s] = ""
                for (w = 1; w <= nSpec; w++) {
                    n = split(words[w], kv, ":")
                    if (n == 1) precond[s] = kv[1]; else if (kv[1] == solver[s]) precond[s] = kv[2]
                }
                for (i = blockStart[s]; i <= blockEnd[s]; i++) owner[i] = s
            }
            for (i = 1; i <= NR; i++) {
                l = line[i]; s = owner[i]
                if (s != "") {
                    if (l ~ /^[ \t]*(executor|checkNative)[ \t]+[^ \t;]+[ \t]*;/) continue
                    if (precond[s] != "" && l ~ /^[ \t]*preconditioner[ \t]+[^ \t;]+[ \t]*;/) continue
                    v = l; sub(/^[ \t]*/, "", v); split(v, kw, /[ \t;]+/)
                    if (kw[1] == "tolerance" && kw[2] + 0 > tol) tol = kw[2] + 0
                    if (kw[1] == "relTol" && kw[2] + 0 > relTol) relTol = kw[2] + 0
                }
                if (i in solver) {
                    indent = l; sub(/solver.*/, "", indent)
                    if (mode == "native") sub(/GPU[ \t]*;/, ";", l)
                    print l
                    if (mode != "native") printf "%s%-16s%s;\n", indent, "executor", executor
                    if (mode == "checkNative") printf "%s%-16s%s;\n", indent, "checkNative", "true"
                    if (precond[i] != "") printf "%s%-16s%s;\n", indent, "preconditioner", precond[i]
                    continue
                }
                print l
            }
            printf "%g %g\n", tol, relTol
        }' "$file" > "$file.new" || return 1
    tail -n 1 "$file.new"
    sed -i '$d' "$file.new"
    mv "$file.new" "$file"
    case $mode in
        native) [ "$(grep -cE "^\s*solver\s+$gpuSolverRe\s*;|^\s*(executor|checkNative)\s" "$file")" -eq 0 ] ;;
        plugin) [ "$(grep -cE "^\s*executor\s+$3\s*;" "$file")" -eq "$before" ] ;;
        *) [ "$(grep -cE '^\s*checkNative\s+true\s*;' "$file")" -eq "$before" ] ;;
    esac || { echo "FAIL: could not rewrite $file" >&2; return 1; }
}
