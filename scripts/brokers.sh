#!/usr/bin/env bash
# Runs a command beside throw-away message brokers:
#   bash scripts/brokers.sh [redis] [rabbitmq] [nats] [beanstalkd] [all] -- <command> [args...]
# For each broker named (`all`: the four) it finds the server (absent: exit 2 naming Debian's
# package, or with JOBCHECK_INSTALL_PACKAGES=1 installs it through scripts/installPackages.sh, as
# scripts/pg.sh does), starts a private instance on free 127.0.0.1 ports (never a default port),
# data in a temporary folder, waits until it answers, exports where it is, and runs the command:
#   JOBCHECK_REDIS_URL (redis-server, noeviction, no persistence), JOBCHECK_AMQP_URL (rabbitmq-server,
#   no plugins) with JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS, and JOBCHECK_AMQP_SERVERS (`ms=url,...`, every
#   RabbitMQ node), JOBCHECK_NATS_URL (nats-server, JetStream),
#   JOBCHECK_BEANSTALKD_ADDR and JOBCHECK_BEANSTALKD_CLOCK (beanstalkd under libfaketime, the
#   timestamp file it reads), JOBCHECK_BROKERS_DIR, JOBCHECK_BROKERS_PIDS (process-group ids).
# Whatever the outcome, and on SIGINT or SIGTERM, every instance is stopped (RabbitMQ by rabbitmqctl,
# then its process group and epmd) and the folder removed: no process is left. Exit status: the
# command's (130 on SIGINT, 143 on SIGTERM, 2 when a broker cannot start). Each instance runs in a
# session of its own (setsid): Ctrl-C reaches the command and this script, which stops the brokers.
# JOBCHECK_BROKERS_OPTIONAL=1: an absent server is skipped, not installed or an error (its variables
# stay unset, so its tests skip, or fail under CI). JOBCHECK_BROKERS_PORTS=LOW-HIGH: the ports probed
# (default 20000-32000). JOBCHECK_AMQP_CONSUMER_TIMEOUTS=MS,...: a RabbitMQ node per consumer_timeout
# (default JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS, or 800), each checked every 100 ms (channel_tick_interval).
set -euo pipefail

usage() {
  echo "usage: scripts/brokers.sh [redis] [rabbitmq] [nats] [beanstalkd] [all] -- <command> [args...]" >&2
  exit 2
}

wanted=()
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do
  case "$1" in
    all) wanted+=(redis rabbitmq nats beanstalkd) ;;
    redis | rabbitmq | nats | beanstalkd) wanted+=("$1") ;;
    *) echo "brokers.sh: unknown broker '$1'" >&2; usage ;;
  esac
  shift
done
[ "$#" -gt 0 ] && [ "$1" = "--" ] || usage
shift
[ "$#" -gt 0 ] || usage
[ "${#wanted[@]}" -gt 0 ] || usage

# install_packages: installs a Debian package only with JOBCHECK_INSTALL_PACKAGES=1.
. "$(dirname "${BASH_SOURCE[0]}")/installPackages.sh"

# need <command> <package>: prints the command's path, installing the package when the command is
# absent and installing is allowed (JOBCHECK_INSTALL_PACKAGES=1); else exits 2, which its caller
# passes on. With JOBCHECK_BROKERS_OPTIONAL set it says so and returns 1 instead, and the caller
# skips that broker.
need() {
  if ! command -v "$1" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$1" ]; then
    if [ -n "${JOBCHECK_BROKERS_OPTIONAL:-}" ]; then
      echo "brokers.sh: no $1 found (apt-get install $2); its broker is not started, and its tests will say so" >&2
      return 1
    fi
    install_packages brokers.sh "no $1 found" "$2" || exit 2
  fi
  command -v "$1" 2>/dev/null || echo "/usr/sbin/$1"
}

# Free ports: probed in the range, never handed out twice by this script. `free_port` sets `port`
# (not a command substitution: the record of ports handed out must survive the call).
IFS=- read -r port_low port_high <<<"${JOBCHECK_BROKERS_PORTS:-20000-32000}"
taken=" "
free_port() {
  local p tries=0
  while [ "$tries" -lt 200 ]; do
    p=$((port_low + RANDOM % (port_high - port_low + 1)))
    tries=$((tries + 1))
    case "$taken" in *" $p "*) continue ;; esac
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken="$taken$p "
      port="$p"
      return 0
    fi
  done
  echo "brokers.sh: no free port in $port_low-$port_high" >&2
  exit 2
}

# wait_for <seconds> <log> <check...>: runs the check every 0.2 s until it succeeds, else shows the log and fails.
wait_for() {
  local deadline=$((SECONDS + $1)) log="$2"
  shift 2
  until "$@" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "brokers.sh: no answer from $* within the time; its log ($log):" >&2
      tail -n 40 "$log" >&2 || true
      exit 2
    fi
    sleep 0.2
  done
}

tcp_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
# Redis answers PING with +PONG.
redis_ready() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'PING\r\n' >&3
  IFS= read -r -t 2 reply <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [ "${reply%$'\r'}" = "+PONG" ]
}
# NATS greets every client with an INFO line.
nats_ready() {
  local reply
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  IFS= read -r -t 2 reply <&3 || { exec 3>&-; return 1; }
  exec 3>&-
  [ "${reply#INFO }" != "$reply" ]
}
# AMQP 0-9-1: after the protocol header the server sends connection.start, a method frame (type 1).
amqp_ready() {
  local first
  exec 3<>"/dev/tcp/127.0.0.1/$1" || return 1
  printf 'AMQP\0\0\x09\x01' >&3
  first="$(timeout 2 head -c 1 <&3 | od -An -tu1 | tr -d ' ')" || true
  exec 3>&-
  [ "$first" = "1" ]
}

root="$(mktemp -d "${TMPDIR:-/tmp}/jobcheck-brokers-XXXXXX")"
chmod 755 "$root"
pgids=()
stoppers=()
cmd_pid=""

# tree_of PID: that process and every process descended from it.
. "$(dirname "${BASH_SOURCE[0]}")/processTree.sh"

# The pids of every process descended from the instances' groups.
descendants() {
  [ "${#pgids[@]}" -gt 0 ] || return 0
  ps -eo pid=,ppid=,pgid= | awk -v groups=" ${pgids[*]} " '
    { pid[NR] = $1; parent[NR] = $2; group[NR] = $3 }
    END {
      for (i = 1; i <= NR; i++) if (index(groups, " " group[i] " ")) mine[pid[i]] = 1
      do { grew = 0
        for (i = 1; i <= NR; i++) if ((parent[i] in mine) && !(pid[i] in mine)) { mine[pid[i]] = 1; grew = 1 }
      } while (grew)
      for (p in mine) print p
    }'
}

stop_all() {
  local status=$?
  trap '' INT TERM
  if [ -n "$cmd_pid" ] && kill -0 "$cmd_pid" 2>/dev/null; then
    # The command and everything it started get TERM, and KILL after 10 s: a command that ignores
    # TERM (or a wrapper that runs its own command in the foreground) never keeps the brokers up.
    local tree c_deadline p
    tree="$(tree_of "$cmd_pid")"
    for p in $tree; do kill -TERM "$p" 2>/dev/null || true; done
    c_deadline=$((SECONDS + 10))
    while kill -0 "$cmd_pid" 2>/dev/null && [ "$SECONDS" -lt "$c_deadline" ]; do sleep 0.1; done
    for p in $tree $(tree_of "$cmd_pid"); do kill -KILL "$p" 2>/dev/null || true; done
    wait "$cmd_pid" 2>/dev/null || true
  fi
  local s
  for s in "${stoppers[@]}"; do "$s" || true; done
  # The groups, and any descendant that left them (erl_child_setup starts a session of its own).
  local g p deadline strays
  strays="$(descendants)"
  for g in "${pgids[@]}"; do kill -TERM -- "-$g" 2>/dev/null || true; done
  for p in $strays; do kill -TERM "$p" 2>/dev/null || true; done
  deadline=$((SECONDS + 10))
  for g in "${pgids[@]}"; do
    while kill -0 -- "-$g" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.1; done
    kill -KILL -- "-$g" 2>/dev/null || true
  done
  for p in $strays; do kill -KILL "$p" 2>/dev/null || true; done
  rm -rf "$root"
  exit "$status"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# spawn <log> <command...>: starts the command in a session of its own, records its process group.
spawn() {
  local log="$1"
  shift
  setsid "$@" </dev/null >"$log" 2>&1 &
  pgids+=("$!")
}

start_redis() {
  local bin port dir
  bin="$(need redis-server redis-server)" || { need_status=$?; [ "$need_status" -eq 1 ] && return 0; exit "$need_status"; }
  free_port
  dir="$root/redis"
  mkdir -p "$dir"
  spawn "$dir/server.log" "$bin" --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$dir" \
    --maxmemory-policy noeviction --daemonize no --protected-mode yes
  wait_for 20 "$dir/server.log" redis_ready "$port"
  export JOBCHECK_REDIS_URL="redis://127.0.0.1:$port"
  echo "brokers.sh: Redis $("$bin" --version | sed -n 's/.* v=\([^ ]*\).*/\1/p') at $JOBCHECK_REDIS_URL" >&2
}

start_nats() {
  local bin port dir
  bin="$(need nats-server nats-server)" || { need_status=$?; [ "$need_status" -eq 1 ] && return 0; exit "$need_status"; }
  free_port
  dir="$root/nats"
  mkdir -p "$dir"
  spawn "$dir/server.log" "$bin" -a 127.0.0.1 -p "$port" -js -sd "$dir/jetstream"
  wait_for 20 "$dir/server.log" nats_ready "$port"
  export JOBCHECK_NATS_URL="nats://127.0.0.1:$port"
  echo "brokers.sh: NATS $("$bin" --version | awk '{print $2}') (JetStream) at $JOBCHECK_NATS_URL" >&2
}

# beanstalkd under libfaketime: its clock is the absolute time written in the timestamp file, read
# again at every call (FAKETIME_NO_CACHE=1), so a test moves beanstalkd's time by rewriting the
# file (JOBCHECK_BEANSTALKD_CLOCK). The time starts at a fixed instant.
start_beanstalkd() {
  local bin port dir lib
  bin="$(need beanstalkd beanstalkd)" || { need_status=$?; [ "$need_status" -eq 1 ] && return 0; exit "$need_status"; }
  lib=""
  for lib in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
    [ -f "$lib" ] && break
  done
  if [ ! -f "$lib" ] && [ -n "${JOBCHECK_BROKERS_OPTIONAL:-}" ]; then
    echo "brokers.sh: no libfaketime found (apt-get install libfaketime); beanstalkd is not started" >&2
    return 0
  fi
  if [ ! -f "$lib" ]; then
    install_packages brokers.sh "no libfaketime found (beanstalkd runs under it)" libfaketime || exit 2
    for lib in /usr/lib/*/faketime/libfaketime.so.1 /usr/lib/faketime/libfaketime.so.1; do
      [ -f "$lib" ] && break
    done
    [ -f "$lib" ] || { echo "brokers.sh: libfaketime was installed but libfaketime.so.1 is not found" >&2; exit 2; }
  fi
  free_port
  dir="$root/beanstalkd"
  mkdir -p "$dir"
  echo "@2026-01-01 00:00:00" >"$dir/beanstalkd.faketime"
  spawn "$dir/server.log" env LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$dir/beanstalkd.faketime" FAKETIME_NO_CACHE=1 \
    "$bin" -l 127.0.0.1 -p "$port"
  wait_for 20 "$dir/server.log" tcp_open "$port"
  export JOBCHECK_BEANSTALKD_ADDR="127.0.0.1:$port"
  export JOBCHECK_BEANSTALKD_CLOCK="$dir/beanstalkd.faketime"
  echo "brokers.sh: beanstalkd $("$bin" -v | awk '{print $2}') at $JOBCHECK_BEANSTALKD_ADDR, clock $JOBCHECK_BEANSTALKD_CLOCK" >&2
}

# RabbitMQ: every path it would read or write is in the folder (config, plugins file, mnesia, logs,
# the Erlang cookie in HOME), owned by the user it runs as (`rabbitmq` when run as root). Its epmd
# is started here, on loopback and a port of its own, so the system's epmd is neither used nor left
# running; distribution listens on loopback on a port of its own too. One node per consumer_timeout
# of JOBCHECK_AMQP_CONSUMER_TIMEOUTS (comma-separated ms; default JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS,
# or 800), all started at once under that epmd: in RabbitMQ 3.10 consumer_timeout is one value per
# server, and adapters/rabbitmq/servers.ts runs each lease on one of them.
rabbit_as=()
rabbit_ctl=""
# Each node's rabbit_env_of arguments: folder, node name, AMQP port, distribution port, rabbitmqctl port, epmd port.
rabbit_nodes=()
rabbit_env=()
# rabbit_env_of <folder> <node> <port> <dist port> <ctl port> <epmd port>: sets rabbit_env, that node's environment.
rabbit_env_of() {
  rabbit_env=(
    env -C "$1" HOME="$1/home" RABBITMQ_NODENAME="$2" RABBITMQ_USE_LONGNAME=false
    RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT="$3" RABBITMQ_DIST_PORT="$4"
    RABBITMQ_CTL_DIST_PORT_MIN="$5" RABBITMQ_CTL_DIST_PORT_MAX="$5"
    ERL_EPMD_ADDRESS=127.0.0.1 ERL_EPMD_PORT="$6"
    RABBITMQ_CONFIG_FILE="$1/rabbitmq.conf" RABBITMQ_ADVANCED_CONFIG_FILE="$1/advanced.config"
    RABBITMQ_CONF_ENV_FILE="$1/rabbitmq-env.conf" RABBITMQ_ENABLED_PLUGINS_FILE="$1/enabled_plugins"
    RABBITMQ_ENABLED_PLUGINS="" RABBITMQ_MNESIA_BASE="$1/mnesia" RABBITMQ_LOG_BASE="$1/log"
    RABBITMQ_PLUGINS_EXPAND_DIR="$1/plugins-expand"
    RABBITMQ_SERVER_ADDITIONAL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
    RABBITMQ_CTL_ERL_ARGS="-kernel inet_dist_use_interface {127,0,0,1}"
  )
}
# Every node stopped by rabbitmqctl, all at once (a spec holds no spaces but its separators).
stop_rabbitmq() {
  local spec stopping=()
  for spec in "${rabbit_nodes[@]}"; do
    # shellcheck disable=SC2086
    rabbit_env_of $spec
    timeout 30 "${rabbit_as[@]}" "${rabbit_env[@]}" "$rabbit_ctl" -q stop >/dev/null 2>&1 &
    stopping+=("$!")
  done
  # Only these: a bare `wait` would also wait for the brokers themselves (epmd never ends by itself).
  [ "${#stopping[@]}" -eq 0 ] || wait "${stopping[@]}" || true
}
start_rabbitmq() {
  local server ctl port dist epmd_port ctl_port dir node user consumer_timeout timeouts i longest=0 servers=""
  server="$(need rabbitmq-server rabbitmq-server)" || { need_status=$?; [ "$need_status" -eq 1 ] && return 0; exit "$need_status"; }
  if [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ]; then
    # Debian's /usr/sbin wrapper changes to /var/lib/rabbitmq and drops the environment through su.
    server=/usr/lib/rabbitmq/bin/rabbitmq-server
    ctl=/usr/lib/rabbitmq/bin/rabbitmqctl
  else
    ctl="$(command -v rabbitmqctl)"
  fi
  IFS=, read -r -a timeouts <<<"${JOBCHECK_AMQP_CONSUMER_TIMEOUTS:-${JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS:-800}}"
  [ "${#timeouts[@]}" -gt 0 ] || { echo "brokers.sh: JOBCHECK_AMQP_CONSUMER_TIMEOUTS names no consumer_timeout" >&2; exit 2; }
  for consumer_timeout in "${timeouts[@]}"; do
    case "$consumer_timeout" in
      '' | *[!0-9]* | 0*) echo "brokers.sh: consumer_timeout '$consumer_timeout' is not a positive number of ms" >&2; exit 2 ;;
    esac
  done
  user="$(id -un)"
  if [ "$(id -u)" -eq 0 ]; then
    if id rabbitmq >/dev/null 2>&1; then user=rabbitmq; else user=nobody; fi
    rabbit_as=(setpriv --reuid "$user" --regid "$(id -g "$user")" --init-groups)
  fi
  free_port && epmd_port="$port"
  mkdir -p "$root/rabbitmq"
  [ "$(id -u)" -ne 0 ] || chown "$user" "$root/rabbitmq"
  spawn "$root/rabbitmq/epmd.log" "${rabbit_as[@]}" epmd -address 127.0.0.1 -port "$epmd_port"
  wait_for 10 "$root/rabbitmq/epmd.log" tcp_open "$epmd_port"
  rabbit_ctl="$ctl"
  stoppers+=(stop_rabbitmq)
  for i in "${!timeouts[@]}"; do
    free_port && dist="$port"
    free_port && ctl_port="$port"
    free_port
    dir="$root/rabbitmq"
    node="rabbit-jobcheck-$$@localhost"
    if [ "$i" -gt 0 ]; then
      dir="$root/rabbitmq-$i"
      node="rabbit-jobcheck-$$-$i@localhost"
    fi
    mkdir -p "$dir/mnesia" "$dir/log" "$dir/home"
    printf '%s\n' "listeners.tcp.default = 127.0.0.1:$port" "loopback_users.guest = true" \
      "consumer_timeout = ${timeouts[$i]}" "disk_free_limit.absolute = 1MB" "log.console = false" \
      "log.file.level = info" >"$dir/rabbitmq.conf"
    echo "[{rabbit, [{channel_tick_interval, 100}]}]." >"$dir/advanced.config"
    echo "[]." >"$dir/enabled_plugins"
    : >"$dir/rabbitmq-env.conf"
    [ "$(id -u)" -ne 0 ] || chown -R "$user" "$dir"
    rabbit_nodes+=("$dir $node $port $dist $ctl_port $epmd_port")
    rabbit_env_of "$dir" "$node" "$port" "$dist" "$ctl_port" "$epmd_port"
    spawn "$dir/server.log" "${rabbit_as[@]}" "${rabbit_env[@]}" "$server"
  done
  for i in "${!timeouts[@]}"; do
    # shellcheck disable=SC2086
    set -- ${rabbit_nodes[$i]}
    wait_for 90 "$1/server.log" amqp_ready "$3"
    servers="$servers${servers:+,}${timeouts[$i]}=amqp://guest:guest@127.0.0.1:$3"
    echo "brokers.sh: RabbitMQ $(sed -n 's/.*rabbitmq_server-\([0-9.]*\).*/\1/p' <<<"$(readlink -f "$server")" | head -n 1) at amqp://guest:guest@127.0.0.1:$3 (node $2, consumer_timeout ${timeouts[$i]} ms)" >&2
    # JOBCHECK_AMQP_URL names the node of the longest consumer_timeout (the first of equals).
    if [ "${timeouts[$i]}" -gt "$longest" ]; then
      longest="${timeouts[$i]}"
      export JOBCHECK_AMQP_URL="amqp://guest:guest@127.0.0.1:$3"
      export JOBCHECK_AMQP_CONSUMER_TIMEOUT_MS="$longest"
    fi
  done
  export JOBCHECK_AMQP_SERVERS="$servers"
}

for broker in "${wanted[@]}"; do
  case " ${started:-} " in *" $broker "*) continue ;; esac
  started="${started:-} $broker"
  "start_$broker"
done
export JOBCHECK_BROKERS_DIR="$root"
export JOBCHECK_BROKERS_PIDS="${pgids[*]}"

# The command runs in the background with this script's stdin, so that a signal to this script is
# handled at once (bash runs a trap only after a foreground child returns) and stops it in turn.
status=0
"$@" <&0 &
cmd_pid=$!
wait "$cmd_pid" || status=$?
cmd_pid=""
exit "$status"
