#!/usr/bin/env bash
# Sanitizer builds give their tests more time. `ctest --timeout` cannot (it
# only sets a default for tests without a TIMEOUT property, and every
# tessera_add_test has one), so tests/CMakeLists.txt scales the TIMEOUT
# property by TESSERA_TEST_TIMEOUT_SCALE, set from TESSERA_SANITIZER. This
# configures one throwaway build tree three ways (configure only, nothing is
# compiled) and reads the TIMEOUT of the tests from ctest's JSON:
# the scheduler tests (and one with its own TIMEOUT) get the same integer
# factor times their unsanitized timeout, more than 1 under AddressSanitizer
# and more still under ThreadSanitizer; scripts/test-sanitizers does not pass
# a `ctest --timeout` that would look like it decides.
# The tree the test runs in (BUILD_DIR, configured with SANITIZER: thread,
# address or none) gives its own list, and is not configured again: each
# configure costs 4 to 8 s, most of it FindMPI's and FindHDF5's test compiles.
#   test_sanitizer_timeouts.sh SOURCE_DIR [CMAKE] [CTEST] [BUILD_DIR SANITIZER]
set -uo pipefail
SOURCE="$1"
CMAKE="${2:-cmake}"
CTEST="${3:-ctest}"
OWN_TREE="${4:-}"
OWN_SANITIZER="${5:-}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
failures=0
check() {  # check NAME CONDITION...
  local name="$1"
  shift
  if "$@"; then echo "ok   $name"; else echo "FAIL $name"; failures=$((failures + 1)); fi
}

timeouts() {  # timeouts SANITIZER: configures $WORK/tree, writes $WORK/SANITIZER.json
  local sanitizer="$1"
  if [ -n "$OWN_TREE" ] && [ "${sanitizer:-none}" = "$OWN_SANITIZER" ]; then
    (cd "$OWN_TREE" && "$CTEST" -N --show-only=json-v1) > "$WORK/${sanitizer:-none}.json"
    return
  fi
  if ! "$CMAKE" -S "$SOURCE" -B "$WORK/tree" -G "Unix Makefiles" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DTESSERA_SANITIZER="$sanitizer" > "$WORK/configure.log" 2>&1; then
    echo "configuring with TESSERA_SANITIZER='$sanitizer' failed:"
    tail -n 30 "$WORK/configure.log"
    return 1
  fi
  (cd "$WORK/tree" && "$CTEST" -N --show-only=json-v1) > "$WORK/${sanitizer:-none}.json"
}

configured=true
for sanitizer in thread address ""; do
  timeouts "$sanitizer" || configured=false
done
check "the tree configures without a sanitizer, with thread and with address" $configured

if $configured; then
  # Prints one line per finding; empty when the timeouts are scaled as they must be.
  findings="$(python3 - "$WORK" <<'EOF'
import json, pathlib, sys
work = pathlib.Path(sys.argv[1])

def timeouts(which):
    tests = json.loads((work / f"{which}.json").read_text())["tests"]
    found = {}
    for t in tests:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        if "scheduler" in (props.get("LABELS") or []) or t["name"].startswith("test_Agreement_"):
            found[t["name"]] = props.get("TIMEOUT")
    return found

plain, address, thread = timeouts("none"), timeouts("address"), timeouts("thread")
if not any(name.startswith("test_HostScheduler_") for name in plain):
    print(f"no test_HostScheduler_* among the scheduler tests: {sorted(plain)}")
if not any(name.startswith("test_Agreement_") for name in plain):
    print(f"no test_Agreement_* (a test with its own TIMEOUT): {sorted(plain)}")
factors = {}
for which, scaled in (("address", address), ("thread", thread)):
    if sorted(scaled) != sorted(plain):
        print(f"{which}: other tests than without a sanitizer: {sorted(set(scaled) ^ set(plain))}")
        continue
    ratios = {name: scaled[name] / plain[name] for name in plain if plain[name] and scaled[name]}
    missing = [name for name in plain if not plain[name] or not scaled[name]]
    if missing:
        print(f"{which}: tests without a TIMEOUT: {missing}")
    distinct = sorted(set(ratios.values()))
    if len(distinct) != 1 or distinct[0] != int(distinct[0]):
        print(f"{which}: not one integer factor: " +
              ", ".join(f"{n} {plain[n]:g} s -> {scaled[n]:g} s" for n in sorted(ratios)))
        continue
    factors[which] = distinct[0]
    name = min(n for n in ratios if n.startswith("test_HostScheduler_"))
    print(f"# {which}: factor {distinct[0]:g} ({name}: {plain[name]:g} s -> {scaled[name]:g} s)",
          file=sys.stderr)
if "address" in factors and factors["address"] <= 1:
    print(f"address: factor {factors['address']:g}, not more than 1")
if "address" in factors and "thread" in factors and factors["thread"] <= factors["address"]:
    print(f"thread: factor {factors['thread']:g}, not more than address's {factors['address']:g}")
EOF
)"
  check "sanitizer builds scale every scheduler test's TIMEOUT, thread more than address" [ -z "$findings" ]
  [ -z "$findings" ] || echo "$findings" | sed 's/^/     /'
fi

if $configured; then
  # scripts/test-sanitizers builds the target scheduler_tests alone: it must
  # depend on the executable behind every scheduler test (read from the last
  # tree's Makefile2, where each dependency is one "all:" rule).
  missing="$(python3 - "$WORK" <<'EOF'
import json, pathlib, re, sys
work = pathlib.Path(sys.argv[1])
tests = json.loads((work / "none.json").read_text())["tests"]
wanted = set()
for t in tests:
    props = {p["name"]: p["value"] for p in t.get("properties", [])}
    if "scheduler" in (props.get("LABELS") or []):  # test_X, test_X_np2, test_X_np2_t2: test_X
        wanted.add(re.match(r"test_[A-Za-z]+", t["name"]).group(0))
rules = (work / "tree" / "CMakeFiles" / "Makefile2").read_text()
built = set(re.findall(r"^\S*/scheduler_tests\.dir/all: \S*/(test_\w+)\.dir/all$", rules, re.M))
print(" ".join(sorted(wanted - built)) if wanted else "no scheduler tests")
EOF
)" || missing="(could not read the tree: $missing)"
  check "the target scheduler_tests builds every scheduler test's executable" [ -z "$missing" ]
  [ -z "$missing" ] || echo "     not built by scheduler_tests: $missing"
fi

check "scripts/test-sanitizers passes no ctest --timeout (the TIMEOUT property would override it)" \
  bash -c "! grep -q -- '^[^#]*ctest.*--timeout' '$SOURCE/scripts/test-sanitizers'"

echo "$failures failed"
[ "$failures" -eq 0 ]
