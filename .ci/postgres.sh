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
# shellcheck source=.ci/_cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/_cluster.sh"

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

case "$command_name" in
start)
    if ! bin="$(find_bin)"; then
        echo "postgres.sh: no PostgreSQL binaries; installing them with apt-get" >&2
        apt-get update -qq >&2
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 >&2 ||
            DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >&2
        bin="$(find_bin)"
    fi
    add_postgres_user
    mkdir -p "$dir"
    chmod 0755 "$dir"
    start_cluster "$bin"
    ;;
stop)
    stop_cluster
    ;;
*)
    echo "usage: postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac
