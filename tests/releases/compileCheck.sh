#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Compile check of the OpenFOAM layer against every supported release's own headers: each source
# of Make/files through `g++ -fsyntax-only` with the flags of that release's wmake rules (ESI:
# -DOPENFOAM=<api> and its C++ standard; Foundation: -std=c++14, no version macro). A check
# passes with no error and no warning from the plugin's own code (src/, cudaKernels/include).
# The release sources come from ../shared/openfoam/src (openfoam-<release>.tar.xz); each is
# unpacked once into $GPULDU_DEPS/releases (default ~/.cache/gpuLduSolvers/releases, outside the
# tree, where wmake's lnInclude of the plugin would link its headers) and given its lnInclude
# folders as wmakeLnInclude makes them. Logs go to build/releases.
# Usage: compileCheck.sh [release ...]   (default: v2406 v2412 v2506 12 13 14)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
shared=${GPULDU_SHARED:-$root/../shared}/openfoam/src
work=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}/releases
logs=$root/build/releases
releases=("$@")
[ ${#releases[@]} -gt 0 ] || releases=(v2406 v2412 v2506 12 13 14)
passed=0
failed=0

if [ ! -d "$shared" ]; then
    echo "FAIL the release sources are missing: $shared (../shared/openfoam/src, or set GPULDU_SHARED)"
    echo "0 passed, 1 failed"
    exit 1
fi

# lnInclude <library dir>: every header and template source below it linked flat into lnInclude/
lnInclude()
{
    local lib=$1
    mkdir -p "$lib/lnInclude"
    find "$lib" \( -name lnInclude -o -name Make -o -name config -o -name noLink \) -prune -o \
        -type f \( -name '*.H' -o -name '*.C' -o -name '*.h' -o -name '*.hpp' -o -name '*.txx' \
        -o -name '*.type' \) -print0 \
        | xargs -0 -r ln -sf -t "$lib/lnInclude"
}

# flags <release>: the release's own compile flags (../shared/openfoam/README.md lists them; the
# warnings below are the c++WARN of every release's wmake rules)
flags()
{
    local common="-m64 -DWM_DP -DWM_LABEL_SIZE=32 -DNoRepository -ftemplate-depth-256 -fPIC"
    case $1 in
        v2406) echo "$common -DOPENFOAM=2406 -std=c++14" ;;
        v*)    echo "$common -DOPENFOAM=${1#v} -std=c++17" ;;
        *)     echo "$common -std=c++14" ;;
    esac
}

mkdir -p "$work" "$logs"
sources=$(grep -v '^LIB' "$root/Make/files" | grep '\.C$')
includes=$(sed -n 's/^ *-I\(src\/[^ ]*\|cudaKernels\/[^ ]*\).*/-I\1/p' "$root/Make/options")
# Make/options' own definitions, WM_PROJECT_VERSION being the release's (v2406 ..., 12 ...)
definesOf()
{
    sed -n 's/^ *\(-D[A-Za-z_]*=\)$(WM_PROJECT_VERSION).*/\1/p' "$root/Make/options" | sed "s/\$/$1/"
}
# check <release> <source>: one source against one release's headers; prints its PASS or FAIL
# line (a FAIL with the first diagnostics)
check()
{
    local release=$1 source=$2 lib=$work/openfoam-$1/src log status own
    log=$logs/$release-$(basename "$source" .C).log
    # shellcheck disable=SC2046,SC2086
    (cd "$root" && g++ -fsyntax-only $(flags "$release") $(definesOf "$release") -Wall -Wextra -Wold-style-cast \
        -Wnon-virtual-dtor -Wno-unused-parameter -Wno-invalid-offsetof -Wno-attributes \
        -Wno-unknown-pragmas \
        -I"$lib/finiteVolume/lnInclude" -I"$lib/meshTools/lnInclude" \
        -I"$lib/OpenFOAM/lnInclude" -I"$lib/OSspecific/POSIX/lnInclude" \
        $includes "$source") > "$log" 2>&1
    status=$?
    # the plugin's own diagnostics: those whose location is in src/ or cudaKernels/
    own=$(grep -cE '^(src|cudaKernels)/[^:]*:[0-9]+:[0-9]+: (fatal error|error|warning)' "$log")
    if [ $status -eq 0 ] && [ "$own" -eq 0 ]; then
        echo "PASS release $release: $source"
    else
        echo "FAIL release $release: $source (exit $status, $own diagnostics of the plugin's own code; see $log)"
        grep -E '(error|warning):' "$log" | head -n 5 | sed 's/^/    /'
    fi
}

# Each release unpacked once, then every check, as many at a time as there are cores (each one
# compiler, its own log and result), their lines printed in order
ready=()
for release in "${releases[@]}"; do
    tree=$work/openfoam-$release
    archive=$shared/openfoam-$release.tar.xz
    if [ ! -f "$tree/.unpacked" ]; then
        if [ ! -f "$archive" ]; then
            failed=$((failed + 1))
            echo "FAIL release $release: $archive is missing"
            continue
        fi
        rm -rf "$tree"
        tar -xJf "$archive" -C "$work"
        for lib in OpenFOAM OSspecific/POSIX finiteVolume meshTools; do
            lnInclude "$tree/src/$lib"
        done
        touch "$tree/.unpacked"
    fi
    ready+=("$release")
done
results=()
for release in "${ready[@]}"; do
    for source in $sources; do
        while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do
            wait -n
        done
        result=$logs/$release-$(basename "$source" .C).result
        results+=("$result")
        check "$release" "$source" > "$result" &
    done
done
wait
for result in "${results[@]}"; do
    cat "$result"
    if grep -q '^PASS' "$result"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
