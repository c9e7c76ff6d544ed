#!/usr/bin/env bash
# The main job: a demo session with the actionbook CLI against a bundled local page.
# Installs Chromium (Debian package) when no browser is found, builds the CLI, then drives one
# session: start, snapshot, fill, click (by ref, into an iframe too), eval, close.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ACTIONBOOK_BROWSER_EXECUTABLE_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1 \
   && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
  echo "no Chromium found; installing the Debian package 'chromium'" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium
fi
cargo --quiet build-cli
AB="${CARGO_TARGET_DIR:-target}/release/actionbook"
PAGE="file://$(pwd)/crates/manuals/demo/index.html"

# A private home for the demo, removed at the end (the daemon and browser go with it).
export ACTIONBOOK_HOME="$(mktemp -d)/actionbook"
cleanup() {
  "$AB" browser close --session demo >/dev/null 2>&1 || true
  if [ -f "$ACTIONBOOK_HOME/daemon.pid" ]; then kill "$(cat "$ACTIONBOOK_HOME/daemon.pid")" 2>/dev/null || true; fi
  rm -rf "$(dirname "$ACTIONBOOK_HOME")"
}
trap cleanup EXIT

run() { echo "\$ actionbook $*"; "$AB" "$@"; echo; }
T=(--session demo --tab t1)

run browser start --headless --set-session-id demo --open-url "$PAGE"
run browser snapshot "${T[@]}"
SNAP="$(ls -t "$ACTIONBOOK_HOME"/sessions/demo/snapshot_*.yaml | head -1)"
cat "$SNAP"; echo; echo
NAME_REF="@$(grep -o 'textbox "Your name" \[ref=e[0-9]*\]' "$SNAP" | grep -o 'e[0-9]*' | tail -1)"
GREET_REF="@$(grep -o 'button "Greet" \[ref=e[0-9]*\]' "$SNAP" | grep -o 'e[0-9]*' | tail -1)"
INNER_REF="@$(grep -o 'button "Inner button" \[ref=e[0-9]*\]' "$SNAP" | grep -o 'e[0-9]*' | tail -1)"
run browser fill "$NAME_REF" "Ada Lovelace" "${T[@]}"
run browser click "$GREET_REF" "${T[@]}"
run browser eval "document.getElementById('out').textContent" "${T[@]}"
run browser title "${T[@]}"
run browser click "$INNER_REF" "${T[@]}"
run browser eval "document.getElementById('out').textContent" "${T[@]}"
run browser list-tabs --session demo
run browser close --session demo
