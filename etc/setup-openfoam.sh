#!/bin/bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Installs what a fresh Debian 12 needs to build and run gpuLduSolvers: the OpenFOAM v1912
# binary packages and build tools from apt (Open MPI's development package too: a sourced
# OpenFOAM release asks mpicc for its MPI), plus the matching v1912 headers and wmake taken from
# the Debian source package. Idempotent: every step is skipped when already done.
set -euo pipefail

P=openfoam-OpenFOAM-v1912.200626
TARBALL=openfoam_1912.200626.orig.tar.bz2
SHA256=c75ca0f04cc4f49708296c1926cbde9d0138b3fef298fed54270dfe29e2df404
DEPS=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}
PKGS=(openfoam libopenfoam openfoam-examples libgtest-dev cmake g++ make bzip2 xz-utils
      libsuitesparse-dev libmetis-dev libblas-dev libopenmpi-dev openmpi-bin)

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "need root or sudo" >&2; exit 1; }
    SUDO=sudo
fi

# 1. apt packages (skipped when all are installed)
missing=()
for p in "${PKGS[@]}"; do
    dpkg -s "$p" 2>/dev/null | grep -q '^Status: install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]}"
    $SUDO apt-get update
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y "${missing[@]}"
fi

# 2. v1912 sources (headers + wmake) from the Debian source package
if [ ! -f "$DEPS/$P/.gpuldu-setup-done" ]; then
    mkdir -p "$DEPS/srcapt/lists/partial" "$DEPS/dl"
    if [ ! -f "$DEPS/dl/$TARBALL" ]; then
        # private deb-src list derived from the system's own sources; system apt config untouched
        if [ -f /etc/apt/sources.list.d/debian.sources ]; then
            sed 's/^Types: deb$/Types: deb-src/' /etc/apt/sources.list.d/debian.sources \
                > "$DEPS/srcapt/src.sources"
        else
            sed -n 's/^deb /deb-src /p' /etc/apt/sources.list > "$DEPS/srcapt/src.list"
        fi
        APTO=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$DEPS/srcapt"
              -o "Dir::State::Lists=$DEPS/srcapt/lists")
        $SUDO apt-get "${APTO[@]}" update
        (cd "$DEPS/dl" && $SUDO apt-get "${APTO[@]}" source --download-only openfoam=1912.200626-1)
        [ -z "$SUDO" ] || $SUDO chown -R "$(id -u):$(id -g)" "$DEPS"
    fi
    echo "$SHA256  $DEPS/dl/$TARBALL" | sha256sum -c -
    rm -rf "${DEPS:?}/$P"
    tar xjf "$DEPS/dl/$TARBALL" -C "$DEPS" --wildcards \
        "$P/etc" "$P/bin" "$P/wmake" \
        "$P/src/OpenFOAM" "$P/src/OSspecific" "$P/src/finiteVolume" "$P/src/meshTools"
    # wmake helper programs and lnInclude header links, in the build environment
    (
        export GPULDU_DEPS=$DEPS
        # shellcheck source=etc/build-env.sh
        . "$(dirname "${BASH_SOURCE[0]}")/build-env.sh"
        "$WM_DIR/src/Allmake"
        for lib in OpenFOAM OSspecific/POSIX finiteVolume meshTools; do
            wmakeLnInclude -s "$WM_PROJECT_DIR/src/$lib"
        done
    )
    touch "$DEPS/$P/.gpuldu-setup-done"
fi
echo "OpenFOAM v1912 build tree ready: $DEPS/$P"
