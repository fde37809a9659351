#!/usr/bin/env bash
# Tests how scripts/install-deps finds the Debian mirror in the apt
# configuration (--print-apt-source), against fake apt trees.
#   tests/scripts/test_install_deps_sources.sh [path/to/install-deps]
set -euo pipefail
INSTALL_DEPS="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/scripts/install-deps}"
DEFAULT_KEYRING="/usr/share/keyrings/debian-archive-keyring.gpg"

TMP="$(mktemp -d /tmp/test-install-deps-sources.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
FAILURES=0

# A fresh fake apt configuration directory named $1; prints its path.
fake_etc() {
  mkdir -p "$TMP/$1/sources.list.d"
  echo "$TMP/$1"
}

# check NAME ETC EXPECTED: the output for suite bookworm is EXPECTED.
check() {
  local name="$1" etc="$2" expected="$3" out
  if out="$(TESSERA_APT_ETC="$etc" bash "$INSTALL_DEPS" --print-apt-source bookworm 2>&1)" \
      && [ "$out" = "$expected" ]; then
    echo "ok   $name"
  else
    echo "FAIL $name: expected '$expected', got '$out'"
    FAILURES=$((FAILURES + 1))
  fi
}

# check_fails NAME ETC TEXT: no entry is found; the message contains TEXT.
check_fails() {
  local name="$1" etc="$2" text="$3" out rc=0
  out="$(TESSERA_APT_ETC="$etc" bash "$INSTALL_DEPS" --print-apt-source bookworm 2>&1)" || rc=$?
  if [ "$rc" -ne 0 ] && [[ "$out" == *"$text"* ]]; then
    echo "ok   $name"
  else
    echo "FAIL $name: expected failure mentioning '$text', got exit $rc and '$out'"
    FAILURES=$((FAILURES + 1))
  fi
}

etc="$(fake_etc deb822-single)"
cat > "$etc/sources.list.d/mirror.sources" <<'SRC'
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /etc/apt/keyrings/mirror.gpg
SRC
check "deb822, one stanza, any file name" "$etc" "http://mirror.example/debian /etc/apt/keyrings/mirror.gpg"

etc="$(fake_etc deb822-skip)"
cat > "$etc/sources.list.d/debian.sources" <<'SRC'
# A comment before the first stanza
Types: deb
URIs: http://disabled.example/debian
Suites: bookworm
Components: main
Enabled: no
Signed-By: /disabled.gpg

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main
Signed-By: /security.gpg

types: deb-src deb
# a comment inside a stanza
uris: http://mirror.example/debian
  http://second.example/debian
suites: bookworm
 bookworm-updates
components: main
SRC
check "deb822, disabled and security stanzas first, no Signed-By" "$etc" \
  "http://mirror.example/debian $DEFAULT_KEYRING"

etc="$(fake_etc deb822-inline-key)"
cat > "$etc/sources.list.d/debian.sources" <<'SRC'
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm
Components: main
Signed-By:
 -----BEGIN PGP PUBLIC KEY BLOCK-----
 .
 mQINBGPL0BUBEADmW5NdOOHwPIJlgPu6JDcKw/NZJPR8lsD9K5bJ5J8/lpGr2N9m
 -----END PGP PUBLIC KEY BLOCK-----
SRC
check "deb822, inline key: default keyring" "$etc" "http://mirror.example/debian $DEFAULT_KEYRING"

etc="$(fake_etc one-line-options)"
cat > "$etc/sources.list" <<'SRC'
deb [signed-by=/usr/share/keyrings/mirror.gpg arch=amd64] http://mirror.example/debian bookworm main contrib
deb [ arch=amd64 signed-by=/other.gpg ] http://second.example/debian bookworm main
SRC
check "one-line, [signed-by=... arch=...] options" "$etc" \
  "http://mirror.example/debian /usr/share/keyrings/mirror.gpg"

etc="$(fake_etc one-line-spaced-options)"
cat > "$etc/sources.list" <<'SRC'
deb [ arch=amd64 signed-by=/other.gpg ] http://mirror.example/debian bookworm main
SRC
check "one-line, [ spaced options ]" "$etc" "http://mirror.example/debian /other.gpg"

etc="$(fake_etc one-line-parts)"
echo "deb-src http://mirror.example/debian bookworm main" > "$etc/sources.list.d/mirror.list"
echo "deb http://ignored.example/debian bookworm main" > "$etc/sources.list.d/old.list.disabled"
check "one-line, deb-src in sources.list.d/*.list only" "$etc" \
  "http://mirror.example/debian $DEFAULT_KEYRING"

etc="$(fake_etc one-line-comments)"
cat > "$etc/sources.list" <<'SRC'
# deb http://commented.example/debian bookworm main
   #deb http://indented-comment.example/debian bookworm main
deb cdrom:[Debian GNU/Linux 12.0.0 _Bookworm_ - Official amd64 DVD Binary-1]/ bookworm main

deb http://security.example/debian-security bookworm-security main
deb http://mirror.example/debian bookworm main # trailing comment
SRC
check "one-line, comments, cdrom and other suites skipped" "$etc" \
  "http://mirror.example/debian $DEFAULT_KEYRING"

etc="$(fake_etc order)"
echo "deb http://list.example/debian bookworm main" > "$etc/sources.list"
printf 'Types: deb\nURIs: http://sources.example/debian\nSuites: bookworm\n' > "$etc/sources.list.d/a.sources"
check "sources.list comes before sources.list.d" "$etc" "http://list.example/debian $DEFAULT_KEYRING"

etc="$(fake_etc empty)"
check_fails "no apt configuration at all" "$etc" "$etc/sources.list.d/*.sources"

etc="$(fake_etc other-suite)"
echo "deb http://mirror.example/debian trixie main" > "$etc/sources.list"
check_fails "no entry for the suite" "$etc" "suite 'bookworm' in $etc/sources.list"

if [ "$FAILURES" -ne 0 ]; then
  echo "$FAILURES FAILED"
  exit 1
fi
echo "all passed"
