# bench/lib.sh: what the bench scripts share (sourced, not run).
#
# bench_tools NAME: checks that the script runs from the repository root
# and sets BIN (sdcaudit) and GEN (bench/scaletool), built into $DIR
# unless SDCAUDIT_BIN / GEN_BIN name prebuilt binaries.
bench_tools() {
	local name=$1
	if [ ! -f go.mod ] || [ ! -d cmd/sdcaudit ]; then
		echo "bench/$name: run it from the repository root" >&2
		exit 2
	fi
	BIN=${SDCAUDIT_BIN:-}
	if [ -z "$BIN" ]; then
		BIN="$DIR/sdcaudit"
		echo "building sdcaudit -> $BIN" >&2
		go build -trimpath -o "$BIN" ./cmd/sdcaudit
	fi
	GEN=${GEN_BIN:-}
	if [ -z "$GEN" ]; then
		GEN="$DIR/scaletool"
		echo "building bench/scaletool -> $GEN" >&2
		go build -trimpath -o "$GEN" ./bench/scaletool
	fi
}
