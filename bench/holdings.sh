#!/usr/bin/env bash
# bench/holdings.sh: holdings at the cost of a column (issue 28 item 3).
#
# Run from the repository root, preferably on an otherwise idle machine:
#
#   bench/holdings.sh                      # 10 M records, 1 M holdings
#   ROWS=1000000 HOLDINGS=100000 bench/holdings.sh   # BenchmarkCheckHoldings' file
#
# It writes the holdings file of BenchmarkCheckHoldings at the size asked
# (3 dimensions of 50, 40 and 10 levels, a holding id of which half the
# records lie in their holding's home cell, a lognormal value; fixed
# seed) and times `sdcaudit check` (report.json + safe.csv, no secondary
# suppression) on it with and without the holding column, alternating,
# RUNS runs each at every GOMAXPROCS in CORES. It prints the medians of
# wall time, CPU time (user + sys) and peak resident memory, and the ratio
# of the holdings run to the run without the column (the target: at most
# 2x, under 300 MB at 1 M records). It checks that report.json and
# safe.csv are byte-identical at every core count.
#
# Needs GNU time (/usr/bin/time). Environment:
#   SDCAUDIT_BIN  a prebuilt sdcaudit binary (default: go build ./cmd/sdcaudit)
#   GEN_BIN       a prebuilt bench/scaletool binary (default: go build ./bench/scaletool)
#   ROWS          records (default 10000000)
#   HOLDINGS      holdings (default 1000000)
#   CORES         GOMAXPROCS values (default "1 2")
#   RUNS          runs of each (default 3)
#   SCALE_DIR     work directory (default /tmp/sdcaudit-scale); the data
#                 file is kept there and reused by later runs
set -euo pipefail

ROWS=${ROWS:-10000000}
HOLDINGS=${HOLDINGS:-1000000}
CORES=${CORES:-"1 2"}
RUNS=${RUNS:-3}
DIR=${SCALE_DIR:-/tmp/sdcaudit-scale}
mkdir -p "$DIR"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
bench_tools holdings.sh
if [ ! -x /usr/bin/time ]; then
	echo "bench/holdings.sh: needs GNU time (/usr/bin/time)" >&2
	exit 2
fi

NAME="holdings_${ROWS}_${HOLDINGS}"
DATA="$DIR/$NAME.csv"
if [ ! -f "$DATA" ]; then
	echo "writing $ROWS records of $HOLDINGS holdings -> $DATA" >&2
	"$GEN" gen -rows "$ROWS" -holdings "$HOLDINGS" -out "$DATA"
fi

for v in plain holding; do
	col=""
	[ "$v" = plain ] || col=", holding: group"
	cat >"$DIR/holdings_$v.yaml" <<YAML
microdata: {dims: [region, industry, size], value: turnover$col}
output: {annotated: false, html: false}
suppression: {secondary: false}
YAML
done

# run V CORES: one check, printing "wall cpu peak-MB"; exit 0 (all cells
# safe) or 1 (cells need a person) is success.
run() {
	local out="$DIR/holdings_out_$1_$2" rc=0
	rm -rf "$out"
	GOMAXPROCS=$2 /usr/bin/time -o "$DIR/time.txt" -f '%e %U %S %M' \
		"$BIN" check "$DATA" --config "$DIR/holdings_$1.yaml" --out "$out" >/dev/null 2>"$DIR/stderr" || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "bench/holdings.sh: check ($1, GOMAXPROCS=$2) failed (exit $rc):" >&2
		cat "$DIR/stderr" >&2
		exit 1
	fi
	# the last line: GNU time writes a line of the exit status before it
	tail -n 1 "$DIR/time.txt" | awk '{printf "%.3f %.3f %.0f\n", $1, $2 + $3, $4 / 1024}'
	local sum
	sum=$(cat "$out/$NAME.report.json" "$out/$NAME.safe.csv" | sha256sum | cut -d' ' -f1)
	if [ ! -f "$DIR/holdings_ref_$1" ]; then
		echo "$sum" >"$DIR/holdings_ref_$1"
	elif [ "$sum" != "$(cat "$DIR/holdings_ref_$1")" ]; then
		echo "bench/holdings.sh: report.json or safe.csv ($1, GOMAXPROCS=$2) differs from the first run's" >&2
		exit 1
	fi
}

# median of the numbers on stdin
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }

echo "machine: $(nproc) CPUs, $(uname -srm), $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2 | sed 's/^ *//')" >&2
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
echo "file: $DATA, $ROWS records, $HOLDINGS holdings, $(du -m "$DATA" | cut -f1) MB" >&2
rm -f "$DIR"/holdings_ref_*

echo
echo "check on $ROWS records with $HOLDINGS holdings, medians of $RUNS alternating runs"
printf '| %-10s | %-8s | %8s | %8s | %8s | %13s | %12s |\n' "GOMAXPROCS" "run" "wall s" "CPU s" "peak MB" "wall vs plain" "CPU vs plain"
printf '|%s|%s|%s|%s|%s|%s|%s|\n' "------------" "----------" "---------:" "---------:" "---------:" "--------------:" "-------------:"
for c in $CORES; do
	: >"$DIR/holdings_plain_$c.txt"
	: >"$DIR/holdings_holding_$c.txt"
	for r in $(seq "$RUNS"); do
		run plain "$c" >>"$DIR/holdings_plain_$c.txt"
		run holding "$c" >>"$DIR/holdings_holding_$c.txt"
	done
	base=$(cut -d' ' -f1 "$DIR/holdings_plain_$c.txt" | median)
	basecpu=$(cut -d' ' -f2 "$DIR/holdings_plain_$c.txt" | median)
	for v in plain holding; do
		f="$DIR/holdings_${v}_$c.txt"
		wall=$(cut -d' ' -f1 "$f" | median)
		cpu=$(cut -d' ' -f2 "$f" | median)
		peak=$(cut -d' ' -f3 "$f" | median)
		awk -v c="$c" -v v="$v" -v w="$wall" -v u="$cpu" -v p="$peak" -v b="$base" -v bu="$basecpu" \
			'BEGIN {printf "| %-10s | %-8s | %8.2f | %8.2f | %8d | %12.2fx | %11.2fx |\n", c, v, w, u, p, w / b, u / bu}'
	done
done
echo
echo "outputs identical at every GOMAXPROCS"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
