#!/usr/bin/env bash
# Installs what the web client's build and browser tests need on Debian 12: Node (checked,
# >= 20.19), Chromium (and its headless shell), and Thai and Khmer fonts for readable screenshots. Repeatable: it
# installs only what is missing.
set -euo pipefail

need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
# the headless shell: the same Blink without the browser around it, for most browser tests
[ -x /usr/bin/chromium-headless-shell ] || need+=(chromium-headless-shell)
dpkg -s fonts-thai-tlwg >/dev/null 2>&1 || need+=(fonts-thai-tlwg)
dpkg -s fonts-khmeros >/dev/null 2>&1 || need+=(fonts-khmeros)
if ! command -v node >/dev/null 2>&1; then need+=(nodejs npm); fi

if [ ${#need[@]} -gt 0 ]; then
  echo "install-web-deps: installing ${need[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! command -v node >/dev/null 2>&1; then
  echo "install-web-deps: node is not installed; install Node 20.19 or newer" >&2
  exit 1
fi
ver=$(node -p 'process.versions.node')
IFS=. read -r major minor _ <<<"$ver"
if [ "$major" -lt 20 ] || { [ "$major" -eq 20 ] && [ "$minor" -lt 19 ]; }; then
  echo "install-web-deps: Node $ver is too old: the web client (Vite 8) needs Node 20.19 or newer." >&2
  echo "install-web-deps: Debian 12's nodejs package is 18; install a newer Node (e.g. NodeSource's nodejs 20 or 22)." >&2
  exit 1
fi
echo "install-web-deps: node $ver, $(/usr/bin/chromium --version 2>/dev/null | head -n1)"
