# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced (bash): the environment for running OpenFOAM binaries with the plugin.
# Keeps an existing WM_PROJECT_DIR that has etc/controlDict (ESI's; e.g. a packed runtime in
# /tmp/ofrt) or etc/configDict (the Foundation's: a sourced release), otherwise uses Debian's
# v1912 in /usr/share/openfoam; puts <repo>/platforms/lib on LD_LIBRARY_PATH, or
# $GPULDU_LIBDIR when set (another build of the plugin and core, e.g. .gpu/platforms/lib).

GPULDU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GPULDU_ROOT

if [ -z "${WM_PROJECT_DIR:-}" ] || { [ ! -f "$WM_PROJECT_DIR/etc/controlDict" ] \
    && [ ! -f "$WM_PROJECT_DIR/etc/configDict" ]; }; then
    export WM_PROJECT_DIR=/usr/share/openfoam
fi

gpuLduLibDir=${GPULDU_LIBDIR:-$GPULDU_ROOT/platforms/lib}
case ":${LD_LIBRARY_PATH:-}:" in
    *":$gpuLduLibDir:"*) ;;
    *) export LD_LIBRARY_PATH=$gpuLduLibDir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} ;;
esac
unset gpuLduLibDir
