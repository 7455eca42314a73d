#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for the tests of thrift_fp.sources.postgres.
#
#   bash .ci/postgres.sh start DIR   # initdb + start in DIR; prints the connection URL
#   bash .ci/postgres.sh stop DIR    # stop it (safe to call twice, or when start failed)
#
# The cluster listens on a Unix socket inside DIR only (listen_addresses=''), with password
# (scram-sha-256) authentication, so the tests can also exercise wrong credentials.
# initdb refuses to run as root: as root, the cluster runs as the `postgres` system user
# (created when missing). If no PostgreSQL binaries are installed, they come from apt-get.
set -euo pipefail

command_name="${1:?usage: postgres.sh start|stop DIR}"
dir="${2:?usage: postgres.sh start|stop DIR}"
password="thrift-fp-test"
role="thrift_fp"

find_bin() {
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5 -n -r); do
        if [[ -x "$candidate/pg_ctl" && -x "$candidate/initdb" ]]; then
            echo "$candidate"
            return 0
        fi
    done
    if command -v pg_ctl >/dev/null && command -v initdb >/dev/null; then
        dirname "$(command -v pg_ctl)"
        return 0
    fi
    return 1
}

as_owner() {
    # Run a command as the cluster's owner: ourselves, or `postgres` when we are root.
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

case "$command_name" in
start)
    if ! bin="$(find_bin)"; then
        echo "postgres.sh: no PostgreSQL binaries; installing them with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2 ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        bin="$(find_bin)"
    fi
    if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
    mkdir -p "$dir"
    chmod 0755 "$dir"
    if [[ "$(id -u)" == 0 ]]; then
        chown postgres "$dir"
    fi
    as_owner bash -c "umask 077; printf '%s\n' '$password' > '$dir/pwfile'"
    as_owner "$bin/initdb" -D "$dir/data" -U "$role" --pwfile="$dir/pwfile" \
        --auth=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    # Small and fast: no TCP, no durability (a test cluster is thrown away), enough connections
    # for the pool tests and the concurrency tests at once.
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
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
