#!/usr/bin/env bash
# npm run test:setup — what the test suite needs beyond `npm ci`, each step only where it is missing or stale:
#   - Debian's chromium, for the browser project (matrix.html and the report site in a real browser);
#   - the published relays of other registries, each pinned, into git-ignored folders of their own:
#       targets/real/pypi/NAME.txt              pip requirements (a whole pinned set)  → .venv-relays/NAME/
#       targets/real/go.txt                     MODULE/CMD@VERSION a line              → .go-relays/bin/ (go install)
#       targets/real/crates.txt                 CRATE VERSION [FLAGS] a line           → .cargo-relays/bin/ (cargo install --locked)
#   - the official-SDK pass-throughs under targets/foreign/sdk-*/ (built from their own lock files):
#       sdk-python/requirements.txt → .venv-relays/sdk-python/   sdk-go/go.mod → .go-relays/bin/sdk-go-relay
#       sdk-rust/Cargo.lock         → .cargo-relays/bin/sdk-rust-relay   sdk-java/pom.xml → .java-relays/sdk-java-relay.jar
# A toolchain that is missing (python3, go, cargo, mvn) is said once and its relays are left out: their tests skip,
# naming this script. A step is redone only when its pinned input changed (a copy of it is kept beside the install).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
say() { echo "test:setup: $*" >&2; }
# Runs a step quietly into LOG; on failure prints its tail and stops the setup (a pinned install must not fail).
quietly() {
  local log=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 25 "$log" >&2
    say "failed: $* (the whole log: $log)"
    exit 1
  fi
}
# True when STAMP holds the same bytes as INPUT (the step already ran on this input).
current() { [ -f "$2" ] && cmp -s "$1" "$2"; }

if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    say "installing Debian's chromium (apt-get install chromium)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
  else
    say "chromium is missing and cannot be installed here (needs apt-get as root)."
    say "install a Chromium at /usr/bin/chromium, or run 'npx vitest run --project unit' without the browser test."
    exit 1
  fi
fi

# ── Python: one virtual environment per requirements file ─────────────────────────────────────────────────────────
python_venv() { # NAME REQUIREMENTS
  local venv=.venv-relays/$1
  current "$2" "$venv/requirements.txt" && return 0
  say "installing $2 into $venv"
  rm -rf "$venv"
  mkdir -p .venv-relays
  quietly ".venv-relays/$1.log" python3 -m venv "$venv"
  # --retries 0: an index this machine cannot reach is passed over at once (the configured mirrors answer).
  quietly ".venv-relays/$1.log" "$venv/bin/pip" install --disable-pip-version-check --retries 0 -r "$2"
  cp "$2" "$venv/requirements.txt"
}
setup_python() {
  if ! command -v python3 >/dev/null 2>&1; then
    say "no python3: the Python relays and the Python SDK pass-through are not installed; their tests are skipped."
    return 0
  fi
  for req in targets/real/pypi/*.txt; do [ -e "$req" ] && python_venv "$(basename "$req" .txt)" "$req"; done
  for req in targets/foreign/sdk-python/requirements.txt; do [ -e "$req" ] && python_venv sdk-python "$req"; done
  return 0
}

# ── Go: `go install` of pinned commands, `go build` of the SDK pass-through ─────────────────────────────────────────
setup_go() {
  if ! command -v go >/dev/null 2>&1; then
    say "no go: the Go relays and the Go SDK pass-through are not installed; their tests are skipped."
    return 0
  fi
  mkdir -p .go-relays/bin
  export GOBIN=$ROOT/.go-relays/bin
  if [ -f targets/real/go.txt ] && ! current targets/real/go.txt .go-relays/go.txt; then
    grep -v '^\s*\(#\|$\)' targets/real/go.txt | while read -r module; do
      say "go install $module"
      quietly .go-relays/install.log go install "$module"
    done
    cp targets/real/go.txt .go-relays/go.txt
  fi
  if [ -f targets/foreign/sdk-go/go.mod ]; then
    cat targets/foreign/sdk-go/go.mod targets/foreign/sdk-go/go.sum targets/foreign/sdk-go/*.go >.go-relays/sdk-go.next
    if ! current .go-relays/sdk-go.next .go-relays/sdk-go.built; then
      say "building targets/foreign/sdk-go"
      (cd targets/foreign/sdk-go && GOFLAGS=-mod=readonly quietly "$ROOT/.go-relays/sdk-go.log" go build -o "$ROOT/.go-relays/bin/sdk-go-relay" .)
      mv .go-relays/sdk-go.next .go-relays/sdk-go.built
    fi
  fi
}

# ── Rust: `cargo install --locked` of pinned crates, `cargo build --locked` of the SDK pass-through ─────────────────
setup_rust() {
  if ! command -v cargo >/dev/null 2>&1; then
    say "no cargo: the Rust relays and the Rust SDK pass-through are not installed; their tests are skipped."
    return 0
  fi
  mkdir -p .cargo-relays
  # Unoptimised builds without debug info (crates.txt says why): a fraction of a release build's compile.
  export CARGO_PROFILE_DEV_DEBUG=false
  # Compiled dependencies are kept in the user's cache, outside the clone (a build cache only: what runs is installed
  # into .cargo-relays/), so a second clone on the same machine, as CI's is, rebuilds in seconds instead of minutes.
  CARGO_CACHE=${MCPX_CONFORM_CARGO_TARGET:-${XDG_CACHE_HOME:-$HOME/.cache}/mcpx-conform/cargo-target}
  mkdir -p "$CARGO_CACHE"
  if [ -f targets/real/crates.txt ] && ! current targets/real/crates.txt .cargo-relays/crates.txt; then
    grep -v '^\s*\(#\|$\)' targets/real/crates.txt | while read -r crate version rest; do
      say "cargo install --locked --version $version $crate $rest"
      # --force: this runs only when crates.txt changed, and a changed line (its flags) must rebuild what is installed.
      # shellcheck disable=SC2086 # rest: extra words of the line (--bin NAME, --features …)
      quietly .cargo-relays/install.log cargo install --locked --force --root .cargo-relays --target-dir "$CARGO_CACHE" \
        --version "$version" "$crate" $rest
    done
    cp targets/real/crates.txt .cargo-relays/crates.txt
  fi
  if [ -f targets/foreign/sdk-rust/Cargo.lock ]; then
    # The dev profile, as for the crates above (crates.txt says why): a pass-through needs no optimiser.
    { cat targets/foreign/sdk-rust/Cargo.toml targets/foreign/sdk-rust/Cargo.lock targets/foreign/sdk-rust/src/*.rs
      echo "profile: dev, no debug info"; } >.cargo-relays/sdk-rust.next
    if ! current .cargo-relays/sdk-rust.next .cargo-relays/sdk-rust.built; then
      say "building targets/foreign/sdk-rust"
      quietly .cargo-relays/sdk-rust.log cargo build --locked \
        --manifest-path targets/foreign/sdk-rust/Cargo.toml --target-dir "$CARGO_CACHE"
      mkdir -p .cargo-relays/bin
      cp "$CARGO_CACHE/debug/sdk-rust-relay" .cargo-relays/bin/sdk-rust-relay
      mv .cargo-relays/sdk-rust.next .cargo-relays/sdk-rust.built
    fi
  fi
}

# ── Java: the SDK pass-through, one jar with its dependencies ─────────────────────────────────────────────────────────
setup_java() {
  [ -f targets/foreign/sdk-java/pom.xml ] || return 0
  if command -v mvn >/dev/null 2>&1 && command -v java >/dev/null 2>&1; then
    mkdir -p .java-relays
    cat targets/foreign/sdk-java/pom.xml $(find targets/foreign/sdk-java/src -name '*.java' | sort) >.java-relays/sdk-java.next
    if ! current .java-relays/sdk-java.next .java-relays/sdk-java.built; then
      say "building targets/foreign/sdk-java"
      quietly .java-relays/sdk-java.log mvn -q -B -f targets/foreign/sdk-java/pom.xml \
        -DbuildDirectory="$ROOT/.java-relays/target" package
      cp .java-relays/target/sdk-java-relay.jar .java-relays/sdk-java-relay.jar
      mv .java-relays/sdk-java.next .java-relays/sdk-java.built
    fi
  else
    say "no mvn or java: the Java SDK pass-through is not built; its tests are skipped."
  fi
}

# ── The four registries at once ─────────────────────────────────────────────────────────────────────────────────────
# pip and Maven mostly wait on the network and Go and cargo on the compiler (whose last crates and links use one core),
# so side by side a fresh machine's set-up takes about the longest group, not their sum. Each group logs to its own
# files; a group that fails stops the set-up with its name once all have ended (none is left running).
declare -A GROUP_PID
for group in python go rust java; do
  (
    start=$SECONDS
    "setup_$group"
    say "$group: done in $((SECONDS - start)) s"
  ) &
  GROUP_PID[$group]=$!
done
failed=""
for group in python go rust java; do
  wait "${GROUP_PID[$group]}" || failed="$failed $group"
done
if [ -n "$failed" ]; then
  say "failed:$failed (see the log named above)"
  exit 1
fi
