# Sourced by scripts/build (and its test): one line per phase of a long job.
#   LOG: if set, each phase says what runs on stderr and sends its output to
#        that file, then says how long it took; on failure it prints the
#        log's tail and path, and exits 2.
#   WHO: the name the lines start with.

say() { echo "$WHO: $*" >&2; }

# phase NAME COMMAND...
phase() {
  local name="$1"
  shift
  if [ -z "$LOG" ]; then
    "$@"
    return
  fi
  say "$name (log: $LOG)"
  local start=$SECONDS
  if ! "$@" >> "$LOG" 2>&1; then
    say "$name failed after $((SECONDS - start)) s; the end of the log:"
    tail -n 40 "$LOG" >&2
    say "$name failed; full log: $LOG"
    exit 2
  fi
  say "$name: done in $((SECONDS - start)) s"
}
