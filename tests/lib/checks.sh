# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced by the integration test scripts and the benchmarks: counting checks (the script
# sets passed=0, failed=0 and, for each check, log: the file a failing check points to), the
# cell splits of method manual, and copies of a meshed case.

# expect <description> <condition...>: counts a check
expect()
{
    local what=$1
    shift
    if "$@"; then
        passed=$((passed + 1))
        echo "PASS $what"
    else
        failed=$((failed + 1))
        echo "FAIL $what (see $log)"
    fi
}

logHas()
{
    grep -qF -- "$1" "$log"
}

# cellDecomposition <nCells> <nRanks> <awk expression of cell c (i, j: its column and row on the
# cavity's 20x20 grid; random(): uniform in [0, 1))>: a labelList for method manual. random() is
# the Park-Miller generator written out, so that every awk gives the same split (mawk's srand(7)
# does not repeat on every version, and the native and plugin runs must share their split).
cellDecomposition()
{
    echo 'FoamFile { version 2.0; format ascii; class labelList; object cellDecomposition; }'
    echo "$1"
    echo '('
    awk -v cells="$1" -v n="$2" "
        function random() { seed = (seed*16807) % 2147483647; return seed/2147483647 }
        BEGIN { seed = 7; for (c = 0; c < cells; ++c) { i = c % 20; j = int(c/20); print $3 } }"
    echo ')'
}

# copyCase <from> <to>: the mesh, initial fields and dictionaries (decomposed ones too)
copyCase()
{
    mkdir -p "$2/constant"
    cp -r "$1/0" "$1/system" "$2/"
    cp -r "$1/constant/." "$2/constant/"
    for proc in "$1"/processor*; do
        [ -d "$proc" ] || continue
        mkdir -p "$2/${proc##*/}"
        cp -r "$proc/constant" "$proc/0" "$2/${proc##*/}/"
    done
}
