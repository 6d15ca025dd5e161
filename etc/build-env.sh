# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced (bash): the minimal wmake environment for building gpuLduSolvers against the
# OpenFOAM v1912 source tree prepared by etc/setup-openfoam.sh. No OpenFOAM etc/bashrc needed.

GPULDU_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GPULDU_ROOT

export WM_PROJECT=OpenFOAM
export WM_PROJECT_VERSION=v1912
export WM_PROJECT_DIR=${GPULDU_DEPS:-$HOME/.cache/gpuLduSolvers}/openfoam-OpenFOAM-v1912.200626
export WM_DIR=$WM_PROJECT_DIR/wmake
export WM_ARCH=linux64
export WM_COMPILER=Gcc
export WM_COMPILER_TYPE=system
export WM_COMPILE_OPTION=Opt
export WM_PRECISION_OPTION=DP
export WM_LABEL_SIZE=32
export WM_LABEL_OPTION=Int32
export WM_OPTIONS=linux64GccDPInt32Opt
export WM_OSTYPE=POSIX
export WM_MPLIB=SYSTEMOPENMPI
export FOAM_USER_LIBBIN=$GPULDU_ROOT/platforms/lib
export FOAM_USER_APPBIN=$GPULDU_ROOT/platforms/bin

case ":$PATH:" in
    *":$WM_DIR:"*) ;;
    *) export PATH=$WM_DIR:$PATH ;;
esac
