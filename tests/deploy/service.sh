#!/usr/bin/env bash
# The systemd unit the project ships (deploy/makruk.service) passes
# `systemd-analyze verify`, with its paths pointed at this build; and the
# server starts with the arguments the unit gives it (on a loopback port).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
binary=${1:-$root/build/makruk}
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$tmp"' EXIT
pid=
unit="$tmp/makruk.service"
sed -e "s|/opt/makruk/build/makruk|$binary|" -e "s|/opt/makruk|$root|g" "$root/deploy/makruk.service" >"$unit"
# The unit's user exists on a server; here, root stands in (verify checks the rest).
sed -i -e 's/^User=makruk/User=root/' -e 's/^Group=makruk/Group=root/' "$unit"
out=$(systemd-analyze verify "$unit" 2>&1) || { echo "$out"; echo "FAIL: systemd-analyze verify"; exit 1; }
# Anything it says about our unit is a finding (it may speak of the host's own units).
if echo "$out" | grep -q "makruk.service"; then echo "$out"; echo "FAIL: systemd-analyze has findings"; exit 1; fi
# ExecStart, as the unit writes it, with a port of our own and a data folder of our own.
exec_line=$(sed -n '/^ExecStart=/,/[^\\]$/p' "$unit" | sed -e 's/^ExecStart=//' -e 's/\\$//' | tr -d '\n')
exec_line=$(echo "$exec_line" | sed -e "s|--port 8081|--port 0|" -e "s|--data /var/lib/makruk|--data $tmp/data|")
$exec_line >"$tmp/log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do
  grep -q "makruk serve: http" "$tmp/log" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$tmp/log"; echo "FAIL: the server did not start"; exit 1; }
  sleep 0.1
done
grep -q "makruk serve: http" "$tmp/log" || { cat "$tmp/log"; echo "FAIL: the server never said it listens"; exit 1; }
# SIGTERM, as systemd stops it: the server drains and ends by itself, in time.
kill -TERM "$pid"
for _ in $(seq 1 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
if kill -0 "$pid" 2>/dev/null; then echo "FAIL: still running 30 s after SIGTERM"; exit 1; fi
wait "$pid" || { cat "$tmp/log"; echo "FAIL: exit status $? after SIGTERM"; exit 1; }
echo "deploy: the unit verifies, starts and stops on SIGTERM"
