#!/usr/bin/env bash
# bench/joint_oracle_cbc.sh: the joint suite's second oracle (issue 25).
#
# Computes the minimum-cost suppression pattern of TestJointSuite's
# tables with CBC (COIN-OR's MIP solver, Debian's coinor-cbc, installed
# here if missing; no test needs it) and stores it, with CBC's proven
# lower bound, in audit/suppress/testdata/joint_suite_oracle.json
# (source "cbc"). Run from the repository root:
#
#   bench/joint_oracle_cbc.sh                 # every case, compare only
#   STORE=1 ONLY=6x5x4-5,h8/3x5-10 SEC=1800 bench/joint_oracle_cbc.sh
#
# Steps: (1) `JOINT_ORACLE=lp go test ./audit/suppress -run
# TestJointOracleCBC` writes each case's compact Fischetti-Salazar model
# (writeCBCModel in audit/suppress/joint_oracle_test.go: binary y per
# candidate cell, one flow per primary and side, the relations, levels
# and candidates of the branch-and-bound oracle's orTable) as
# NAME-interior.lp (margins not candidates) and NAME-margins.lp; where
# gonum's attack finds the primaries alone protected, the optimum is 0
# and no model is written (NAME.zero). (2) CBC solves the interior model
# with a wall-time limit of SEC seconds (timeMode elapsed; CBC checks it
# only between phases, so a large model can run well past it), and the
# model with margins only where the interior one is infeasible (the
# suite's rule: totals only when no interior pattern exists).
# (3) `JOINT_ORACLE=cbc go test ... -run TestJointOracleCBC` reads the
# logs and solutions, attacks each pattern with gonum (no big-M), checks
# it against the branch-and-bound's stored result where there is one
# (the cross-check of the two oracles) and, with STORE=1, writes CBC's
# result into the JSON file. A run stopped by the time limit is stored
# as unproven with CBC's bound (rounded up: the costs are integers).
# CBC's time limit makes an unproven result depend on the machine;
# a proven one does not.
#
# Environment:
#   ONLY    comma-separated case names (default: every case)
#   SEC     CBC's time limit per model in seconds (default 600)
#   STORE   1: store CBC's results (default: compare and report only)
#   DIR     work directory (default /tmp/sdcaudit-cbc)
#   JOBS    CBC runs side by side (default 1)
#   ZERO    0: skip the check that the primaries alone protect (gonum's
#           attacks that succeed are slow on large tables with many
#           primaries; CBC finds a 0 optimum too)
set -euo pipefail

SEC=${SEC:-600}
DIR=${DIR:-/tmp/sdcaudit-cbc}
JOBS=${JOBS:-1}
ONLY=${ONLY:-}

if ! command -v cbc >/dev/null; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO apt-get update
	$SUDO apt-get install -y coinor-cbc
fi

mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
JOINT_ORACLE=lp JOINT_ORACLE_DIR="$DIR" JOINT_SUITE_ONLY="$ONLY" JOINT_ORACLE_ZERO="${ZERO:-1}" \
	go test ./audit/suppress -run '^TestJointOracleCBC$' -count=1 -timeout 60m

# solve MODEL: CBC on MODEL.lp, log to MODEL.log, solution to MODEL.sol.
solve() {
	local m=$1
	rm -f "$m.sol" "$m.log"
	cbc "$m.lp" timeMode elapsed sec "$SEC" integerT 1e-9 solve solu "$m.sol" >"$m.log" 2>&1 || true
	grep -h '^Result - ' "$m.log" | sed "s|^|$(basename "$m"): |" || echo "$(basename "$m"): CBC gave no result"
}

case_one() {
	local base=$1
	solve "$base-interior"
	# "Result - ... infeasible", or the presolve's "Problem is infeasible"
	if grep -qiE '^(Result - .*infeasible|Problem is infeasible)' "$base-interior.log"; then
		solve "$base-margins"
	fi
}
export -f solve case_one
export SEC

# smallest models first; none for the cases the primaries alone protect
{ ls -Sr "$DIR"/*-interior.lp 2>/dev/null || true; } | sed 's/-interior\.lp$//' | xargs -P "$JOBS" -I{} bash -c 'case_one "$@"' _ {}

JOINT_ORACLE=cbc JOINT_ORACLE_DIR="$DIR" JOINT_SUITE_ONLY="$ONLY" JOINT_ORACLE_STORE="${STORE:-}" \
	go test ./audit/suppress -run '^TestJointOracleCBC$' -count=1 -timeout 60m -v | grep -v '^=== RUN'
