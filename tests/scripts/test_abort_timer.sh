#!/usr/bin/env bash
# An AbortTimer that fires while its rank waits inside a collective ends
# the whole job with its exit code and one message, calling no MPI function
# from its own thread under MPI_THREAD_SERIALIZED (abort_timer_probe.cc).
#   test_abort_timer.sh PROBE MPIRUN [MPIRUN FLAGS...]
set -u
probe="$1"; mpirun="$2"; shift 2
err="$(mktemp)"
trap 'rm -f "$err"' EXIT
timeout 50 "$mpirun" "$@" -n 2 "$probe" 2> "$err"
rc=$?
fail() { echo "FAIL: $*"; cat "$err"; echo "0 passed, 1 failed"; exit 1; }
[ "$rc" -ne 124 ] || fail "the job hung (the timer never ended it)"
[ "$rc" -ne 99 ] || fail "the timer called MPI from its own thread without MPI_THREAD_MULTIPLE"
[ "$rc" -eq 2 ] || fail "exit code $rc, not the timer's 2"
count=$(grep -c "the probe's barrier did not finish within 1 s" "$err")
[ "$count" -eq 1 ] || fail "$count timer messages, not one"
! grep -q "the barrier completed" "$err" || fail "the barrier completed"
echo "ok: exit 2, one message, no MPI call from the timer's thread"
echo "1 passed, 0 failed"
