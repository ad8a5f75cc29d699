#!/usr/bin/env bash
# Runs the cart service as several processes sharing one PostgreSQL, behind nginx (Debian's
# package: apt-get install -y nginx), on this machine's loopback:
#
#   ./cluster/run.sh postgres://postgres@127.0.0.1:54329/spool_test   # 2 processes, nginx :8080
#   NODES=3 PORT=9000 ./cluster/run.sh "$URL"
#
# Process i listens on 127.0.0.1:$((PORT + i)) and records that address as the owner of the
# carts it takes; nginx listens on 127.0.0.1:$PORT (nginx.conf.template says how it routes).
# Ctrl-C (or SIGTERM) stops nginx and shuts every process down gracefully. On several machines,
# run one cart-server per machine with --node-address set to the address the others reach it
# at, and list those addresses in nginx's upstream.
set -euo pipefail
cd "$(dirname "$0")/.."

url=${1:?usage: cluster/run.sh POSTGRES_URL}
NODES=${NODES:-2}
PORT=${PORT:-8080}
SCHEMA=${SCHEMA:-spool}
IDLE_SECONDS=${IDLE_SECONDS:-300}

if ! command -v nginx > /dev/null; then
  echo "cluster/run.sh: nginx is missing: apt-get install -y nginx" >&2
  exit 1
fi

swift build -c release --product cart-server > /dev/null
server="$(swift build -c release --show-bin-path)/cart-server"
prefix="$(mktemp -d)"
pids=()
stop() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2> /dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2> /dev/null || true; done
  rm -rf "$prefix"
}
trap stop EXIT
trap 'exit 130' INT TERM

nodes=""
for i in $(seq "$NODES"); do
  port=$((PORT + i))
  "$server" --backend postgres --postgres-url "$url" --postgres-schema "$SCHEMA" \
    --port "$port" --node-address "127.0.0.1:$port" --idle-seconds "$IDLE_SECONDS" &
  pids+=("$!")
  nodes+="server 127.0.0.1:$port max_fails=1 fail_timeout=1s; "
done
sed -e "s|@PREFIX@|$prefix|g" -e "s|@LISTEN@|127.0.0.1:$PORT|g" -e "s|@NODES@|$nodes|g" \
  cluster/nginx.conf.template > "$prefix/nginx.conf"
echo "cart service on http://127.0.0.1:$PORT ($NODES processes); Ctrl-C stops it"
nginx -p "$prefix" -c "$prefix/nginx.conf" &
pids+=("$!")
wait
