#!/usr/bin/env bash
# npm run test:setup — what the test suite needs beyond `npm ci`, installed only where it is missing:
#   - Debian's chromium, for the browser project (matrix.html in a real browser);
#   - a Python virtual environment with the pinned Python relays (targets/real/requirements.txt: FastMCP's proxy), for
#     the real-relay tests, and one for the Python SDK pass-through (targets/foreign/sdk-python/requirements.txt →
#     .venv-relays/sdk-python/). Without python3 the tests of those relays are skipped, saying why.
# Safe to run again: each step checks first and does nothing when its tool is there.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    echo "test:setup: installing Debian's chromium (apt-get install chromium)" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq chromium >/dev/null
  else
    echo "test:setup: chromium is missing and cannot be installed here (needs apt-get as root)." >&2
    echo "test:setup: install a Chromium at /usr/bin/chromium, or run 'npx vitest run --project unit' without the browser test." >&2
    exit 1
  fi
fi

VENV=.venv-relays
if ! command -v python3 >/dev/null 2>&1; then
  echo "test:setup: no python3: the Python relays (FastMCP, the Python SDK pass-through) are not installed; their tests are skipped." >&2
  exit 0
fi
if ! { [ -x "$VENV/bin/fastmcp" ] && cmp -s targets/real/requirements.txt "$VENV/requirements.txt"; }; then
  echo "test:setup: installing the Python relays into $VENV (targets/real/requirements.txt)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  # --retries 0: an index this machine cannot reach is passed over at once (the configured mirrors answer).
  if ! "$VENV/bin/pip" install --disable-pip-version-check --retries 0 -r targets/real/requirements.txt >"$VENV.log" 2>&1; then
    tail -n 20 "$VENV.log" >&2
    echo "test:setup: pip could not install targets/real/requirements.txt (the whole log: $VENV.log)" >&2
    exit 1
  fi
  cp targets/real/requirements.txt "$VENV/requirements.txt"
fi

# The sampling pass-through on the official MCP Python SDK (targets/foreign/sdk-python/), in a folder of its own.
SDK="$VENV/sdk-python"
if ! { [ -x "$SDK/bin/python" ] && cmp -s targets/foreign/sdk-python/requirements.txt "$SDK/requirements.txt"; }; then
  echo "test:setup: installing the Python SDK pass-through into $SDK (targets/foreign/sdk-python/requirements.txt)" >&2
  rm -rf "$SDK"
  python3 -m venv "$SDK"
  if ! "$SDK/bin/pip" install --disable-pip-version-check --retries 0 -r targets/foreign/sdk-python/requirements.txt >"$SDK.log" 2>&1; then
    tail -n 20 "$SDK.log" >&2
    echo "test:setup: pip could not install targets/foreign/sdk-python/requirements.txt (the whole log: $SDK.log)" >&2
    exit 1
  fi
  cp targets/foreign/sdk-python/requirements.txt "$SDK/requirements.txt"
fi
