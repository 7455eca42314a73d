# What .ci/postgres.sh and .ci/pgvector.sh share, sourced by both: running as the cluster's owner,
# and a throwaway cluster's initdb, start, test database and stop. Both set `dir` and define
# `find_bin` (where their PostgreSQL binaries are).

# The test role and its password (tests/test_sources_postgres.py names it too).
password="thrift-fp-test"
role="thrift_fp"

as_owner() {
    # Run a command as the cluster's owner: ourselves, or `postgres` when we are root.
    if [[ "$(id -u)" == 0 ]]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

add_postgres_user() {
    # initdb refuses to run as root: as root, the cluster runs as the `postgres` system user.
    if [[ "$(id -u)" == 0 ]] && ! id postgres >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin postgres
    fi
}

start_cluster() {
    # initdb + start in $dir with the binaries in $1, create the test database, print its URL.
    local bin="$1"
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
}

stop_cluster() {
    # Stop the cluster in $dir if it runs, and remove $dir (safe to call twice).
    local bin
    if [[ -f "$dir/data/postmaster.pid" ]] && bin="$(find_bin)"; then
        as_owner "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >&2 || true
    fi
    rm -rf "$dir"
}
