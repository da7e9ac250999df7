#!/usr/bin/env bash
# bench/scale.sh: how the check core scales with the cores (issue 28 item 4).
#
# Run from the repository root on an otherwise idle Linux machine:
#
#   bench/scale.sh
#
# It writes the 10 M-record microdata file of BenchmarkCheckMicrodata (3
# dimensions of 50, 40 and 10 levels, a lognormal value; fixed seed), times
# the baseline (a plain encoding/csv read of the file on one core) and the
# check core (report.json + safe.csv, no secondary suppression, as
# BenchmarkCheckMicrodata's check-core) at GOMAXPROCS 1, 2, 4, 8 and 16,
# RUNS runs each, and prints the medians of wall and CPU time (user + sys)
# with the speed-up over one core and the ratio to the plain read. It also
# checks that report.json and safe.csv are byte-identical at every core
# count.
#
# No network is needed. Environment:
#   SDCAUDIT_BIN  a prebuilt sdcaudit binary (default: go build ./cmd/sdcaudit)
#   GEN_BIN       a prebuilt bench/scaletool binary (default: go build ./bench/scaletool)
#   ROWS          records (default 10000000)
#   CORES         GOMAXPROCS values (default "1 2 4 8 16")
#   RUNS          runs of each (default 3)
#   SCALE_DIR     work directory (default /tmp/sdcaudit-scale); the data
#                 file is kept there and reused by later runs
set -euo pipefail

ROWS=${ROWS:-10000000}
CORES=${CORES:-"1 2 4 8 16"}
RUNS=${RUNS:-3}
DIR=${SCALE_DIR:-/tmp/sdcaudit-scale}
mkdir -p "$DIR"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_tools scale.sh

DATA="$DIR/micro_$ROWS.csv"
if [ ! -f "$DATA" ]; then
	echo "writing $ROWS records -> $DATA" >&2
	"$GEN" gen -rows "$ROWS" -out "$DATA"
fi

CFG="$DIR/core.yaml"
cat >"$CFG" <<'YAML'
microdata: {dims: [region, industry, size], value: turnover}
output: {annotated: false, html: false}
suppression: {secondary: false}
YAML

# timed CMD...: runs CMD, prints "wall cpu" in seconds (bash's time:
# real, and user + sys of the command and its children).
timed() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time "$@" >/dev/null 2>"$DIR/stderr"; } 2>&1 ) || {
		local rc=$?
		echo "bench/scale.sh: $* failed (exit $rc):" >&2
		cat "$DIR/stderr" >&2
		exit 1
	}
	awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<<"$t"
}

# median of the numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

# check CORES: one run of the core check, exit 0 (all cells safe) or 1
# (cells need a person) being success.
check() {
	local out="$DIR/out_$1"
	rm -rf "$out"
	GOMAXPROCS=$1 "$BIN" check "$DATA" --config "$CFG" --out "$out" || [ $? -eq 1 ]
}

echo "machine: $(nproc) CPUs, $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')" >&2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "sdcaudit: $BIN ($("$BIN" version 2>/dev/null | head -1 || true))" >&2
echo "file: $DATA, $ROWS records, $(du -m "$DATA" | cut -f1) MB" >&2

# the plain read (one core)
: >"$DIR/read.txt"
for r in $(seq "$RUNS"); do
	GOMAXPROCS=1 timed "$GEN" read "$DATA" >>"$DIR/read.txt"
done
read_wall=$(cut -d' ' -f1 "$DIR/read.txt" | median)
read_cpu=$(cut -d' ' -f2 "$DIR/read.txt" | median)

ref=""
one=""
rows=()
for c in $CORES; do
	: >"$DIR/check_$c.txt"
	for r in $(seq "$RUNS"); do
		timed check "$c" >>"$DIR/check_$c.txt"
		sum=$(cd "$DIR/out_$c" && cat micro_$ROWS.report.json micro_$ROWS.safe.csv | sha256sum | cut -d' ' -f1)
		if [ -z "$ref" ]; then
			ref=$sum
		elif [ "$sum" != "$ref" ]; then
			echo "bench/scale.sh: report.json or safe.csv at GOMAXPROCS=$c differs from the first run's" >&2
			exit 1
		fi
	done
	wall=$(cut -d' ' -f1 "$DIR/check_$c.txt" | median)
	cpu=$(cut -d' ' -f2 "$DIR/check_$c.txt" | median)
	[ -n "$one" ] || one=$wall
	rows+=("$c $wall $cpu")
done

echo
echo "check core on $ROWS records (50x40x10), medians of $RUNS runs; plain encoding/csv read on 1 core: ${read_wall} s wall, ${read_cpu} CPU-s"
printf '| %-10s | %8s | %8s | %12s | %14s |\n' "GOMAXPROCS" "wall s" "CPU s" "vs 1 core" "vs plain read"
printf '|%s|%s|%s|%s|%s|\n' "------------" "---------:" "---------:" "-------------:" "---------------:"
for row in "${rows[@]}"; do
	set -- $row
	awk -v c="$1" -v w="$2" -v u="$3" -v one="$one" -v rd="$read_wall" \
		'BEGIN {printf "| %-10s | %8.2f | %8.2f | %11.2fx | %13.2fx |\n", c, w, u, one / w, w / rd}'
done
echo
echo "outputs identical at every GOMAXPROCS (sha256 $ref)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
