# shellcheck shell=bash
# SPDX-License-Identifier: GPL-3.0-or-later
# To be sourced by the integration test scripts: counting checks. The script sets passed=0,
# failed=0 and, for each check, log (the file a failing check points to).

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
