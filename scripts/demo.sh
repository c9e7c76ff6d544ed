#!/usr/bin/env bash
# The main job: a demo session against a bundled local page.
# Installs Chromium (Debian package) when no browser is found, then runs the demo example.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ -z "${ACTIONBOOK_BROWSER_EXECUTABLE_PATH:-}" ] && ! command -v chromium >/dev/null 2>&1 \
   && ! command -v chromium-browser >/dev/null 2>&1 && ! command -v google-chrome >/dev/null 2>&1; then
  echo "no Chromium found; installing the Debian package 'chromium'" >&2
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium
fi
exec cargo run --quiet --release --example demo -- "$@"
