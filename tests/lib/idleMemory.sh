# SPDX-License-Identifier: GPL-3.0-or-later
# Sourced by driver.sh (fuzz.sh's runner measures its own). idleKiB <gpuLduSolve>: the virtual memory (KiB, VmPeak) the
# binary has mapped before it reads its file: its shared libraries, which a CUDA build makes
# large (the toolkit's cuBLAS alone maps over 500 MB; a CPU-only build about 50 MB). The
# hostile-input runs limit what a run may take on top of that (ulimit -v idle + budget), so the
# same budget holds for both builds. The binary is started on a named pipe that nobody writes:
# it blocks opening it, its libraries loaded, and is killed after the reading.
idleKiB()
{
    local fifo pid kib= last= i
    fifo=$(mktemp -u "${TMPDIR:-/tmp}/idleKiB.XXXXXX")
    mkfifo "$fifo" || { echo 0; return; }
    "$1" "$fifo" -executor cpu > /dev/null 2>&1 &
    pid=$!
    # until two readings agree (the loader done), at most 10 s
    for i in $(seq 50); do
        sleep 0.2
        kib=$(awk '/^VmPeak:/ { print $2 }' "/proc/$pid/status" 2>/dev/null)
        [ -n "$kib" ] && [ "$kib" = "$last" ] && break
        last=$kib
    done
    kill "$pid" 2> /dev/null
    wait "$pid" 2> /dev/null
    rm -f "$fifo"
    echo "${kib:-0}"
}
