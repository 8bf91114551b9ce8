# SPDX-License-Identifier: BSD-3-Clause
# What the Slurm test scripts share (sourced, not run): checks that count
# failures, polling, the step a job printed, and the verdict at the end.
fails=0
check() { # check WHAT COMMAND...
    local what=$1
    shift
    if "$@"; then echo "ok: $what"; else echo "FAILED: $what"; fails=$((fails + 1)); fi
}
poll() { # poll SECONDS COMMAND...: until it succeeds
    local until=$((SECONDS + $1))
    shift
    until "$@"; do ((SECONDS < until)) || return 1; sleep 0.2; done
}
ids() { awk -F'[ =]' '/^STEP /{print $2; exit}' "$1"; } # the step a job printed
finish_checks() { # the verdict; exits 1 when any check failed
    if ((fails)); then
        echo "$fails check(s) failed"
        exit 1
    fi
    echo "all checks passed"
}
