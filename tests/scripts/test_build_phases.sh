#!/usr/bin/env bash
# scripts/lib/phase.sh, which scripts/build (so scripts/sus on a fresh
# machine) uses: with a log, one line per phase on stderr naming the log,
# the details only in the log; a failed phase prints the log's tail and
# path and exits 2; without a log, output passes through.
#   test_build_phases.sh SCRIPTS_DIR
set -uo pipefail
SCRIPTS="$1"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=0
check() {  # check NAME CONDITION...
  local name="$1"
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}

LOG="$WORK/build.log"
: > "$LOG"
run_phases() {  # runs "$@" in a shell that sourced phase.sh, as scripts/sus would
  LOG="$LOG" WHO="scripts/sus" bash -c '. "$0/lib/phase.sh"; "$@"' "$SCRIPTS" "$@"
}

run_phases phase "installing dependencies" bash -c 'echo apt details; echo apt warning >&2' \
  > "$WORK/out" 2> "$WORK/err"
code=$?
check "a phase that succeeds returns 0" [ "$code" -eq 0 ]
check "it says a line naming the phase and the log" \
  [ "$(head -n 1 "$WORK/err")" = "scripts/sus: installing dependencies (log: $LOG)" ]
check "and a line saying how long it took" \
  bash -c "[ \"\$(wc -l < '$WORK/err')\" -eq 2 ] && tail -n 1 '$WORK/err' | grep -Eq '^scripts/sus: installing dependencies: done in [0-9]+ s$'"
check "its output and errors go to the log only" \
  bash -c "[ ! -s '$WORK/out' ] && grep -q 'apt details' '$LOG' && grep -q 'apt warning' '$LOG'"

run_phases phase "building" bash -c 'echo compiler error: boom; exit 3' > "$WORK/out" 2> "$WORK/err"
code=$?
check "a phase that fails exits 2" [ "$code" -eq 2 ]
check "it says which phase failed, shows the end of the log and its path" \
  bash -c "grep -Eq '^scripts/sus: building failed after [0-9]+ s; the end of the log:' '$WORK/err' &&
           grep -q 'compiler error: boom' '$WORK/err' &&
           grep -q '^scripts/sus: building failed; full log: $LOG' '$WORK/err'"

LOG="" run_phases phase "configuring" bash -c 'echo plain' > "$WORK/out" 2> "$WORK/err"
check "without a log the output passes through, with no phase line" \
  bash -c "[ \"\$(cat '$WORK/out')\" = plain ] && [ ! -s '$WORK/err' ]"

for name in "installing dependencies" "configuring" "building"; do
  check "scripts/build has the phase '$name'" grep -q "^phase \"$name\"" "$SCRIPTS/build"
done
check "scripts/sus gives scripts/build a log and its own name" \
  grep -q 'TESSERA_BUILD_LOG="$LOG" TESSERA_BUILD_WHO="scripts/sus"' "$SCRIPTS/sus"
check "scripts/sus builds sus and the tools that read its runs, not the tests (scripts/test's)" \
  grep -q 'TESSERA_BUILD_TARGETS="sus tessera-inspect tessera-compare"' "$SCRIPTS/sus"
check "scripts/build builds the targets it is given" \
  grep -q 'TESSERA_BUILD_TARGETS' "$SCRIPTS/build"

echo "$failures failed"
[ "$failures" -eq 0 ]
