#!/usr/bin/env bash
# Load on the cart service: wrk (Debian's package: apt-get install -y wrk) on loopback against
# the release build of cart-server, with a Spool store per cart and with a plain actor per
# cart, in interleaved rounds; 1,000 carts, 70% add / 20% read / 10% reserve (cart-mix.lua).
# Bounded: each run lasts DURATION, each server is stopped with SIGTERM after its run (and
# killed if it has not exited 30 s later).
#
#   ./load.sh                      # 8 rounds of 10 s per backend, 2 threads, 32 connections
#   ROUNDS=1 DURATION=5s ./load.sh
#
# Prints each run's requests/s and p99 latency and each round's ratio (Spool over actors),
# then the medians. A round's ratio moves by several percent by itself on a 2-core machine
# that also runs wrk (the same server against itself spreads that much), so a claim needs
# the median of several rounds; the backends take turns going first, so that neither always
# meets a machine that the other has just warmed.
set -euo pipefail
cd "$(dirname "$0")"

ROUNDS=${ROUNDS:-8}
DURATION=${DURATION:-10s}
THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
PORT=${PORT:-18080}

if ! command -v wrk > /dev/null; then
  echo "load.sh: wrk is missing: apt-get install -y wrk" >&2
  exit 1
fi

swift build -c release --product cart-server > /dev/null
server="$(swift build -c release --show-bin-path)/cart-server"
results="$(mktemp)"
trap 'rm -f "$results"' EXIT

# Waits (at most 30 s) until something accepts connections on 127.0.0.1:$PORT.
wait_for_port() {
  for _ in $(seq 300); do
    if (exec 3<> "/dev/tcp/127.0.0.1/$PORT") 2> /dev/null; then return 0; fi
    sleep 0.1
  done
  echo "load.sh: the server did not listen on 127.0.0.1:$PORT" >&2
  return 1
}

# Stops the server gracefully; kills it if it has not exited within 30 s.
stop_server() {
  kill -TERM "$1"
  for _ in $(seq 300); do
    if ! kill -0 "$1" 2> /dev/null; then wait "$1" || true; return 0; fi
    sleep 0.1
  done
  kill -KILL "$1"
  wait "$1" || true
}

for round in $(seq "$ROUNDS"); do
  if (( round % 2 == 1 )); then order="spool actors"; else order="actors spool"; fi
  for backend in $order; do
    # Reservations of 1 s, so that reserved carts open again during the run.
    "$server" --backend "$backend" --host 127.0.0.1 --port "$PORT" \
      --reservation-seconds 1 --log-level warning &
    pid=$!
    wait_for_port
    output="$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --timeout 10s --latency \
      -s cart-mix.lua "http://127.0.0.1:$PORT")"
    stop_server "$pid"
    rps="$(awk '/^Requests\/sec:/ { print $2 }' <<< "$output")"
    p99="$(awk '$1 == "99%" { print $2 }' <<< "$output")"
    errors="$(awk '/Socket errors|Non-2xx/ { printf "%s ", $0 }' <<< "$output")"
    echo "round $round  $backend  requests/s $rps  p99 $p99  ${errors}"
    echo "$backend $rps $p99 $round" >> "$results"
  done
  ratio="$(awk -v r="$round" '$4 == r { v[$1] = $2 }
    END { printf "%.3f", v["spool"] / v["actors"] }' "$results")"
  echo "round $round  spool/actors ${ratio}x"
  echo "ratio $ratio" >> "$results"
done

# Medians per backend (p99 in milliseconds).
# Of an even count, the mean of the middle two.
median() {
  sort -g | awk '{ v[NR] = $1 }
    END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
echo
for backend in spool actors; do
  rps="$(awk -v b="$backend" '$1 == b { print $2 }' "$results" | median)"
  p99="$(awk -v b="$backend" '$1 == b {
      v = $3
      if (v ~ /us$/) v = substr(v, 1, length(v) - 2) / 1000
      else if (v ~ /ms$/) v = substr(v, 1, length(v) - 2) + 0
      else if (v ~ /s$/) v = substr(v, 1, length(v) - 1) * 1000
      print v
    }' "$results" | median)"
  echo "median $backend: requests/s $rps, p99 $p99 ms ($ROUNDS runs)"
done
echo "median spool/actors: $(awk '$1 == "ratio" { print $2 }' "$results" | median)x" \
  "($ROUNDS rounds)"
