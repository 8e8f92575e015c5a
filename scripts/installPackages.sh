# install_packages WHO WHY PACKAGE...: installs Debian packages with apt-get, only when asked to.
#
# Sourced by scripts/pg.sh, scripts/brokers.sh and .ci/run: nothing in this project installs a system
# package unless JOBCHECK_INSTALL_PACKAGES=1 (.ci/run sets it). Without it, says on stderr what is
# missing (WHY), the packages that provide it and how to let WHO install them, and returns 1. With
# it, installs them (with sudo unless already root), with service starts forbidden meanwhile through
# a temporary policy-rc.d (invoke-rc.d asks it; 101 = action forbidden), so that a package's own
# service (a system PostgreSQL or broker) never starts; returns apt-get's status.
# JOBCHECK_POLICY_RC_D names that file (default /usr/sbin/policy-rc.d; tests point it elsewhere).
install_packages() {
  local who=$1 why=$2
  shift 2
  if [ "${JOBCHECK_INSTALL_PACKAGES:-}" != "1" ]; then
    echo "$who: $why: install Debian's $* (sudo apt-get install $*), or run with JOBCHECK_INSTALL_PACKAGES=1 to let $who install it" >&2
    return 1
  fi
  echo "$who: $why: installing Debian's $* (JOBCHECK_INSTALL_PACKAGES=1)" >&2
  local as_root="" policy="${JOBCHECK_POLICY_RC_D:-/usr/sbin/policy-rc.d}" placed="" status=0
  if [ "$(id -u)" -ne 0 ]; then as_root="sudo"; fi
  if [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $as_root tee "$policy" >/dev/null && $as_root chmod +x "$policy" && placed=1
  fi
  { $as_root apt-get update -qq && DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -qq "$@" >/dev/null; } ||
    status=$?
  if [ -n "$placed" ]; then $as_root rm -f "$policy"; fi
  if [ "$status" -ne 0 ]; then echo "$who: could not install $* (apt-get exited with $status)" >&2; fi
  return "$status"
}
