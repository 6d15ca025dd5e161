# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced: the environment of a user of the Foundation's OpenFOAM-14 and nothing of Debian's
# v1912: the release built for Debian 12 (../shared/openfoam/openfoam14-bundle.tar.xz, or
# $GPULDU_OPENFOAM14_BUNDLE; its BUNDLE.md) unpacked once into $GPULDU_DEPS (default
# ~/.cache/gpuLduSolvers), every WM_/FOAM_ variable dropped, its etc/bashrc sourced, and
# GPULDU_LIBDIR set to its $FOAM_USER_LIBBIN (where the integration scripts' run-env.sh looks).
# Returns 1, saying why, where the bundle is missing.

openfoam14Env()
{
    local root archive bundle v
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    archive=${GPULDU_OPENFOAM14_BUNDLE:-${GPULDU_SHARED:-$root/../shared}/openfoam/openfoam14-bundle.tar.xz}
    bundle=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}/openfoam14-bundle
    if [ ! -d "$bundle/OpenFOAM-14" ]; then
        if [ ! -f "$archive" ]; then
            echo "OpenFOAM-14 bundle missing: $archive (../shared/openfoam, or set GPULDU_SHARED)"
            return 1
        fi
        rm -rf "$bundle.partial"
        mkdir -p "$bundle.partial"
        tar -xJf "$archive" -C "$bundle.partial" && mv "$bundle.partial" "$bundle" || return 1
    fi
    for v in $(env | sed -n 's/^\(WM_[A-Za-z_]*\|FOAM_[A-Za-z_]*\)=.*/\1/p'); do
        unset "$v"
    done
    export USER=${USER:-$(id -un)}
    set +u
    # shellcheck source=/dev/null
    . "$bundle/OpenFOAM-14/etc/bashrc"
    set -u
    export GPULDU_LIBDIR=$FOAM_USER_LIBBIN
}
