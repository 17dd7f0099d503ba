#!/usr/bin/env bash
# Measure what a user of sbxfuzz waits for, from this checkout, in one
# sitting, and print it as Markdown: docs/benchmarks.md holds the tables of a run.
#
#   reports/speed.sh [--rounds N] [--checks N] [--output FILE]
#
# A round, back to back: a campaign on the reference in process, `sbxfuzz
# run --checks N` on all cores, and one through the process door (SPEC
# §12), `sbxfuzz run --sut "exec:sbxfuzz serve"` for N/50 checks, each's
# checked ops/s as it prints them; then the time to first finding: `sbxfuzz
# mutants`, a single-threaded campaign per mutant until its first finding,
# minimized, and the median and the longest of those times over the mutants
# it killed. The machine's
# speed moves from one minute to the next, so compare two trees by running
# this on each in turn, never with a figure from another day.
#
# Exit status: 0 when every measurement was taken, 1 when one could not be,
# 2 for bad usage. Everything is built and run in a temporary directory,
# removed at the end; the checkout is not written to except by --output,
# which is written atomically.
set -euo pipefail

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --rounds 5 --checks 100000, output to stdout"
}
rounds=5 checks=100000 output=""
while [ $# -gt 0 ]; do
  case "$1" in
  -h | --help) usage; exit 0 ;;
  --rounds | --checks | --output)
    if [ $# -lt 2 ]; then
      echo "speed.sh: $1 needs a value" >&2; usage >&2; exit 2
    fi
    case "$1" in
    --output) output=$2 ;;
    *)
      if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "${#2}" -gt 8 ]; then
        echo "speed.sh: $1 takes a whole number up to 99999999, not \"$2\"" >&2; exit 2
      fi
      if [ "$1" = --rounds ]; then rounds=$2; else checks=$2; fi
      ;;
    esac
    shift 2
    ;;
  *) echo "speed.sh: unknown argument \"$1\"" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$rounds" -lt 1 ]; then
  echo "speed.sh: --rounds must be at least 1" >&2; exit 2
fi
if [ "$checks" -lt 50 ]; then
  echo "speed.sh: --checks must be at least 50" >&2; exit 2
fi
if [ -n "$output" ] && [ ! -d "$(dirname -- "$output")" ]; then
  echo "speed.sh: --output $output: no directory $(dirname -- "$output")" >&2; exit 2
fi

root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d -t sbxfuzz-speed.XXXXXX)
tmp=""
trap 'rm -rf "$work" ${tmp:+"$tmp"}' EXIT
trap 'exit 130' INT # exit, so that the EXIT trap cleans up
trap 'exit 143' TERM
say() { echo "speed.sh: $*" >&2; }
fail() { say "$*"; exit 1; }

# bounded runs a command for at most $1 seconds, then stops it (SIGTERM,
# SIGKILL 10 s later), in this script's process group.
bounded() { local limit=$1; shift; timeout --foreground -k 10 "$limit" "$@"; }

# Statistics of numbers on stdin, one a line.
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; m = int((NR + 1) / 2); if (NR % 2) print v[m]; else print (v[m] + v[m + 1]) / 2 }'; }
each() { awk -v f="$1" '{ printf f "\n", $1 }'; } # each FORMAT: printf every line
joined() { paste -sd' ' | sed 's/ / · /g'; }

cd "$root"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then commit+=" (with uncommitted changes)"; fi
started=$(date -u '+%Y-%m-%d %H:%M')
load0=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

say "building in $work"
go build -o "$work/sbxfuzz" ./cmd/sbxfuzz
sbx=$work/sbxfuzz

# ops_per_s ARGS...: the checked ops/s a campaign prints.
ops_per_s() {
  local out v
  out=$(bounded 600 "$sbx" run --out "$work/findings" "$@" 2>&1) || fail "sbxfuzz run $*: $out"
  v=$(grep -oE '\(([0-9]+) ops/s' <<<"$out" | grep -oE '[0-9]+') || fail "sbxfuzz run $* printed no ops/s: $out"
  echo "$v"
}

declare -a inproc door firstmed firstmax
for ((r = 1; r <= rounds; r++)); do
  say "round $r of $rounds"
  inproc+=("$(ops_per_s --checks "$checks")")
  door+=("$(ops_per_s --sut "exec:$sbx serve" --checks $((checks / 50)))")
  # Exit 1 is a surviving mutant: measured all the same, on the others.
  status=0
  out=$(bounded 600 "$sbx" mutants --format json 2>"$work/mutants.err") || status=$?
  [ "$status" -le 1 ] || fail "sbxfuzz mutants (exit $status): $(cat "$work/mutants.err")"
  secs=$(awk '/"killed":/ { k = ($2 ~ /true/) } /"seconds":/ && k { gsub(/,/, "", $2); print $2 }' <<<"$out")
  [ -n "$secs" ] || fail "sbxfuzz mutants killed no mutant: $out"
  firstmed+=("$(median <<<"$secs")")
  firstmax+=("$(sort -g <<<"$secs" | tail -1)")
done
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# row LABEL FORMAT VALUES...: each figure, in order, and their median.
row() {
  local label=$1 f=$2
  shift 2
  printf '| %s | %s | %s |\n' "$label" "$(printf '%s\n' "$@" | each "$f" | joined)" "$(printf '%s\n' "$@" | median | each "$f")"
}

# shellcheck disable=SC2016 # the backquotes are Markdown's
report() {
  cat <<EOF
# sbxfuzz speed

\`reports/speed.sh --rounds $rounds --checks $checks\` on $commit, $started UTC, $(nproc) cores
($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU)), load average
$load0 before and $load1 after. Each figure is one round, in order.

| measure | figures | median |
| --- | --- | ---: |
EOF
  row "campaign on the reference, checked ops/s, $(nproc) workers" '%.0f' "${inproc[@]}"
  row 'campaign through `exec:sbxfuzz serve`, checked ops/s' '%.0f' "${door[@]}"
  row '`sbxfuzz mutants`: seconds to a minimized first finding, median of the mutants' '%.3f' "${firstmed[@]}"
  row '`sbxfuzz mutants`: seconds to a minimized first finding, the slowest mutant' '%.3f' "${firstmax[@]}"
}

if [ -z "$output" ]; then
  report
else
  tmp=$(mktemp "$output.XXXXXX")
  report >"$tmp"
  mv -f "$tmp" "$output"
  say "wrote $output"
fi
