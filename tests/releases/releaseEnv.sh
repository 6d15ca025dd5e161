# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced: the environment of a user of a built OpenFOAM release and nothing of Debian's
# v1912. The releases are those built for Debian 12 in ../shared/openfoam (their BUNDLE files):
#   openfoam14   the Foundation's OpenFOAM-14   (openfoam14-bundle.tar.xz, unpacks into OpenFOAM-14/)
#   esi2506      ESI's OpenFOAM v2506           (esi2506-bundle.tar.xz, into OpenFOAM-v2506/)
# releaseEnv <release>: the bundle <release>-bundle.tar.xz of $GPULDU_BUNDLES (default
# ../shared/openfoam, or $GPULDU_SHARED/openfoam) unpacked once into
# $GPULDU_DEPS/<release>-bundle (default ~/.cache/gpuLduSolvers), every WM_/FOAM_ variable dropped,
# its etc/bashrc sourced, and GPULDU_LIBDIR set to its $FOAM_USER_LIBBIN (where the integration
# scripts' run-env.sh looks). Returns 1, saying why, where the bundle is missing.

releaseEnv()
{
    local release=$1 root archive bundle top v
    root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
    case $release in
        openfoam14) top=OpenFOAM-14 ;;
        esi2506) top=OpenFOAM-v2506 ;;
        *) echo "releaseEnv: unknown release '$release' (openfoam14, esi2506)"; return 1 ;;
    esac
    archive=${GPULDU_BUNDLES:-${GPULDU_SHARED:-$root/../shared}/openfoam}/$release-bundle.tar.xz
    bundle=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}/$release-bundle
    if [ ! -d "$bundle/$top" ]; then
        if [ ! -f "$archive" ]; then
            echo "$release bundle missing: $archive (../shared/openfoam, or set GPULDU_SHARED)"
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
    . "$bundle/$top/etc/bashrc"
    set -u
    export GPULDU_LIBDIR=$FOAM_USER_LIBBIN
}
