#!/usr/bin/env bash
# CI: make the PostgreSQL tests of the service run (they skip without a server).
# Installs psycopg 3 and, when CI=true and no server binaries are found, Debian's
# postgresql package. The tests start their own throwaway cluster (initdb + pg_ctl on a unix
# socket in a temp folder); nothing is started or configured here.
set -euo pipefail
python -m pip install -q 'psycopg[binary]>=3.1'
have_server() {
  command -v pg_ctl >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1
}
if have_server; then
  echo "ci: PostgreSQL server binaries found"
elif [ "${CI:-}" = "true" ] && command -v apt-get >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then SUDO="sudo -n"; else
      echo "ci: not root and no sudo: PostgreSQL not installed; its tests will skip"; exit 0
    fi
  fi
  # the Debian package would start a system cluster; the tests need only the binaries
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
  fi
  ($SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null) ||
    echo "ci: PostgreSQL not installed; its tests will skip"
  have_server && echo "ci: PostgreSQL server binaries installed" || true
else
  echo "ci: no PostgreSQL server binaries (set CI=true to install them); its tests will skip"
fi
