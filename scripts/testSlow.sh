#!/usr/bin/env bash
# The slow part of the suite (`npm run test:slow`) in two lanes at once, one file at a time each:
# vitest's `slow` project (the files that wait out timeouts, drive peers that must answer within
# seconds, or follow a broker's wall clock) and its `slow-pairs` project (installs, builds, browsers
# and in-process campaigns against limits of minutes), each in a vitest process of its own, so that
# no file ever runs beside more than one other and two files of the `slow` lane never run together
# (vitest.config.ts). The `slow` lane prints as it goes; the other lane's output follows when it
# ends, under a line that names it. The exit status is the first lane's that failed.
#
#   bash scripts/testSlow.sh [--reports DIR]
#
# With --reports, each lane also writes vitest's JSON report and its exit status into DIR
# (slow.json, slow.status, slow-pairs.json, slow-pairs.status), as .ci/run reads them.
# Ended by a signal, it ends the other lane too: no vitest process outlives it.
set -uo pipefail
cd "$(dirname "$0")/.."

reports=""
if [ "${1:-}" = "--reports" ]; then
  [ -n "${2:-}" ] && [ -d "$2" ] || { echo "testSlow.sh: --reports needs an existing folder, got '${2:-}'" >&2; exit 2; }
  reports="$2"
elif [ "$#" -gt 0 ]; then
  echo "testSlow.sh: unknown argument '$1' (usage: bash scripts/testSlow.sh [--reports DIR])" >&2
  exit 2
fi

# lane PROJECT: runs vitest on one project, with the JSON report beside the default one when asked.
lane() {
  local args=(run --project "$1")
  [ -z "$reports" ] || args+=(--reporter=default --reporter=json "--outputFile.json=$reports/$1.json")
  npx --no-install vitest "${args[@]}"
}

alone_log="$(mktemp)"
beside_log="$(mktemp)"
pids=()
# Ends both lanes (each a process group of its own) and removes the logs.
stop_lanes() {
  local pid
  for pid in "${pids[@]}"; do
    kill -0 "$pid" 2>/dev/null || continue
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null
  done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -f "$alone_log" "$beside_log"
}
trap stop_lanes EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Both lanes in the background, each in a process group of its own (set -m), so that the shell's
# wait returns to the traps above at a signal and a signal reaches every process of a lane. The
# `slow` lane's output is followed as it is written.
set -m
lane slow >"$alone_log" 2>&1 &
alone_pid=$!
lane slow-pairs >"$beside_log" 2>&1 &
beside_pid=$!
set +m
pids=("$alone_pid" "$beside_pid")
tail -n +1 -f --pid="$alone_pid" "$alone_log" &
tail_pid=$!

wait "$alone_pid"
alone_status=$?
wait "$tail_pid"
[ -z "$reports" ] || echo "$alone_status" >"$reports/slow.status"

wait "$beside_pid"
beside_status=$?
[ -z "$reports" ] || echo "$beside_status" >"$reports/slow-pairs.status"
echo
echo "testSlow.sh: the slow-pairs lane, which ran beside the files above (exit $beside_status):"
cat "$beside_log"

if [ "$alone_status" -ne 0 ]; then exit "$alone_status"; fi
exit "$beside_status"
