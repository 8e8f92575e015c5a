#!/usr/bin/env bash
# Runs a command beside a throw-away PostgreSQL server: `scripts/pg.sh npm test`.
#
# Finds PostgreSQL's server binaries (on PATH, else under /usr/lib/postgresql/<version>/bin); when
# there are none, stops (exit 2) naming Debian's `postgresql` package, or installs it with
# JOBCHECK_INSTALL_PACKAGES=1 (scripts/installPackages.sh). Creates a cluster in a new temporary folder (initdb, trust authentication: the
# server listens on a unix socket in that folder only, no TCP port), starts it with fsync on,
# creates a database, runs the command with PGHOST (the socket folder), PGDATABASE and PGUSER set,
# and always stops the server (by its pid when the folder was removed first) and removes the
# folder, whatever the command's outcome. The exit status is the command's. initdb refuses to run as root, so as root the cluster belongs to the
# `postgres` user (else `nobody`) and the server runs as that user.
set -euo pipefail

if [ "$#" -eq 0 ]; then
  echo "usage: scripts/pg.sh <command> [args...]   (e.g. scripts/pg.sh npm test)" >&2
  exit 2
fi

find_bin() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1; then
    # /usr/local/bin may hold links to a few of them only: follow them to the folder of all.
    dirname "$(readlink -f "$(command -v initdb)")"
    return 0
  fi
  local d
  for d in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
    if [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then
      echo "$d"
      return 0
    fi
  done
  return 1
}

# install_packages: installs a Debian package only with JOBCHECK_INSTALL_PACKAGES=1.
. "$(dirname "${BASH_SOURCE[0]}")/installPackages.sh"

if ! bin="$(find_bin)"; then
  install_packages pg.sh "no PostgreSQL server binaries found (initdb, pg_ctl)" postgresql || exit 2
  bin="$(find_bin)" || { echo "pg.sh: postgresql was installed but initdb is not found" >&2; exit 2; }
fi

root="$(mktemp -d "${TMPDIR:-/tmp}/jobcheck-pg-XXXXXX")"
data="$root/data"
sock="$root/sock"
mkdir -p "$sock"

# As root, every server step runs as an unprivileged user that owns the folder.
as_user=()
pg_user="$(id -un)"
if [ "$(id -u)" -eq 0 ]; then
  if id postgres >/dev/null 2>&1; then pg_user=postgres; else pg_user=nobody; fi
  chown -R "$pg_user" "$root"
  as_user=(runuser -u "$pg_user" --)
fi

cmd_pid=""
pm_pid=""

# tree_of PID: that process and every process descended from it.
. "$(dirname "${BASH_SOURCE[0]}")/processTree.sh"

stop() {
  local status=$?
  trap '' INT TERM
  if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
    # The command and everything it started get TERM, and KILL after 10 s, before the server stops.
    local tree p deadline
    tree="$(tree_of "$cmd_pid")"
    for p in $tree; do kill -TERM "$p" 2>/dev/null || true; done
    deadline=$((SECONDS + 10))
    while kill -0 "$cmd_pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    for p in $tree $(tree_of "$cmd_pid"); do kill -KILL "$p" 2>/dev/null || true; done
    wait "$cmd_pid" 2>/dev/null || true
  fi
  if [ -f "$data/postmaster.pid" ]; then
    "${as_user[@]}" "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null 2>&1 || true
  elif [ -n "$pm_pid" ] && kill -0 "$pm_pid" 2>/dev/null; then
    # The folder went from under the server (a parent removed it first): pg_ctl cannot find the
    # server, its pid can. SIGINT is PostgreSQL's fast shutdown; KILL after 10 s.
    kill -INT "$pm_pid" 2>/dev/null || true
    local until=$((SECONDS + 10))
    while kill -0 "$pm_pid" 2>/dev/null && [ "$SECONDS" -lt "$until" ]; do sleep 0.1; done
    kill -KILL "$pm_pid" 2>/dev/null || true
  fi
  rm -rf "$root"
  exit "$status"
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

"${as_user[@]}" "$bin/initdb" -D "$data" -U "$pg_user" --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$root/initdb.log" 2>&1 ||
  { cat "$root/initdb.log" >&2; exit 2; }
"${as_user[@]}" "$bin/pg_ctl" -D "$data" -l "$root/server.log" -w -t 60 \
  -o "-k $sock -c listen_addresses='' -c fsync=on -c synchronous_commit=on -c max_connections=200" start >/dev/null ||
  { cat "$root/server.log" >&2; exit 2; }
pm_pid="$(head -n 1 "$data/postmaster.pid")"
"${as_user[@]}" "$bin/createdb" -h "$sock" -U "$pg_user" jobcheck

echo "pg.sh: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') on unix socket $sock (database jobcheck, user $pg_user)" >&2
# The command runs in the background with this script's stdin, so that a signal to this script is
# handled at once (bash runs a trap only after a foreground child returns) and stops it in turn.
status=0
PGHOST="$sock" PGDATABASE=jobcheck PGUSER="$pg_user" "$@" <&0 &
cmd_pid=$!
wait "$cmd_pid" || status=$?
cmd_pid=""
exit "$status"
