#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# ./Allwmake with an unsupported OpenFOAM sourced (faked environments: the Foundation's dev
# branch and 11, ESI v2312 and v1906, 64-bit labels, single precision) stops at once, before
# anything is compiled, with one message that names the release it found and the supported
# ones; a supported release named the same way gets past that check (negative control: it then
# stops only at its missing headers). Prints "<P> passed, <F> failed" last.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
fake=$(mktemp -d "${TMPDIR:-/tmp}/unsupported.XXXXXX")
passed=0
failed=0

# allwmake <WM_PROJECT_VERSION> [VAR=value ...]: ./Allwmake in a faked release environment (a
# WM_PROJECT_DIR without headers); its output in $out, its exit status in $status
allwmake()
{
    local version=$1
    shift
    out=$(env -i PATH="$PATH" HOME="$fake" WM_PROJECT=OpenFOAM WM_PROJECT_VERSION="$version" \
        WM_PROJECT_DIR="$fake/OpenFOAM-$version" WM_OPTIONS=linux64GccDPInt32Opt \
        WM_PRECISION_OPTION=DP WM_LABEL_SIZE=32 FOAM_USER_LIBBIN="$fake/lib" "$@" \
        timeout 20 "$root/Allwmake" 2>&1)
    status=$?
}

refused()   # refused <description> <WM_PROJECT_VERSION> <what the message must name> [VAR=value ...]
{
    local what=$1 version=$2 named=$3
    shift 3
    allwmake "$version" "$@"
    if [ "$status" -eq 1 ] && [ "$(echo "$out" | grep -c .)" -le 5 ] \
        && echo "$out" | grep -qF -- "$named" \
        && echo "$out" | grep -q "supported: Debian's OpenFOAM v1912; ESI (openfoam.com) v2406" \
        && ! echo "$out" | grep -qi 'cmake\|wmake\|error:'; then
        passed=$((passed + 1))
        echo "PASS $what: refused at once, naming it ($named) and the supported releases"
    else
        failed=$((failed + 1))
        echo "FAIL $what: exit $status, output:"
        echo "$out" | head -n 8 | sed 's/^/    /'
    fi
}

refused "Foundation dev" dev "OpenFOAM 'dev'"
refused "Foundation 11" 11 "OpenFOAM-11 is not supported"
refused "ESI v2312" v2312 "OpenFOAM v2312 is not supported"
refused "ESI v1906" v1906 "OpenFOAM v1906 is not supported"
refused "64-bit labels" 14 "WM_LABEL_SIZE=64 is not supported" WM_LABEL_SIZE=64
refused "mixed precision" v2406 "WM_PRECISION_OPTION=SPDP is not supported" WM_PRECISION_OPTION=SPDP

# negative control: a supported release passes the check and stops at its missing headers
allwmake 14
if [ "$status" -eq 1 ] && echo "$out" | grep -q "OpenFOAM 14 headers not found" \
    && ! echo "$out" | grep -q "is not supported"; then
    passed=$((passed + 1))
    echo "PASS negative control: OpenFOAM-14 is accepted (then stops at its missing headers)"
else
    failed=$((failed + 1))
    echo "FAIL negative control: OpenFOAM-14 not accepted: exit $status"
    echo "$out" | head -n 5 | sed 's/^/    /'
fi

rm -rf "$fake"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
