#!/usr/bin/env bash
# apt-get, as root or through sudo, waiting for apt's locks instead of
# failing on them: two CI runs on one machine, or unattended upgrades, hold
# them for a while. Our own runs queue on a lock file of their own; anyone
# else's apt is waited for (dpkg's lock through DPkg::Lock::Timeout, the
# package lists' lock by trying again), up to about five minutes.
set -euo pipefail
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
for try in $(seq 1 30); do
  if out="$($sudo env DEBIAN_FRONTEND=noninteractive flock /tmp/provider-devops-apt.lock \
      apt-get -o DPkg::Lock::Timeout=300 "$@" 2>&1)"; then
    [ -z "$out" ] || printf '%s\n' "$out"
    exit 0
  fi
  if ! grep -q "Could not get lock\|Unable to lock" <<<"$out" || [ "$try" -eq 30 ]; then
    printf '%s\n' "$out" >&2
    exit 1
  fi
  echo "apt-get: another apt holds its lock; trying again in 10s" >&2
  sleep 10
done
