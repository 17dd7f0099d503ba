#!/usr/bin/env bash
# Measure sbxfuzz's speed bars from this checkout, in one sitting, and
# print them as Markdown: docs/benchmarks.md holds the tables of a run.
#
#   reports/speed.sh [--rounds N] [--fuzz-pairs N] [--fuzz-seconds S]
#                    [--libfuzzer-rounds N] [--libfuzzer-seconds S]
#                    [--libfuzzer-builds tested,module,all] [--output FILE]
#
# The machine this runs on is shared and its speed moves by up to 2× from
# one minute to the next, so no figure stands alone: each round takes every
# native measurement once, back to back, and a ratio is formed within a
# round (or within a pair of fuzzing runs, their order swapped every other
# pair), never across rounds. A figure from another day is not comparable.
#
# A round: BenchmarkCheckScenarioSeeds (one FuzzScenario exec, natively,
# over the committed seeds); BenchmarkSeedTrace bare (core), checked by the
# oracle and the model alone (oracle), on one CPU, three 0.3-s runs of each
# alternated, the fastest of each kept (the machine only ever slows a run
# down); a campaign, `sbxfuzz run --checks 100000`, and `sbxfuzz report
# --checks 100000`, on all cores. A fuzzing
# pair: FuzzScenario and FuzzPlain, a trivial target in a module of its own,
# each under `go test -fuzz` for S seconds, 2 workers, private fuzz caches;
# the rate is the mean of the fuzzer's 3-second reports from 9 s on. With
# --libfuzzer-rounds, FuzzScenario and FuzzTrivial are built for libFuzzer
# by fuzz/libfuzzer.sh (which installs clang where it is missing) each way
# --libfuzzer-builds names (SBXFUZZ_INSTRUMENT: tested, ClusterFuzzLite's,
# the default; module; all), and a round runs every binary for S seconds
# from an empty corpus and the seeds (stat::average_exec_per_sec). Ratios
# and times are kept to four decimals and rounded only when printed, so a
# median (of two figures: their mean) is of the figures, not of their
# roundings, and a bar is judged on it unrounded.
#
# Exit status: 0 when every measurement was taken (met bars or not), 1 when
# one could not be, 2 for bad usage. Everything is built and run in a
# temporary directory, removed at the end; the checkout is not written to
# except by --output, which is written atomically.
set -euo pipefail

usage() {
  sed -n '2,5p' "$0" | sed 's/^# \{0,1\}//'
  echo "defaults: --rounds 5 --fuzz-pairs 2 --fuzz-seconds 20 --libfuzzer-rounds 0 --libfuzzer-seconds 30 --libfuzzer-builds tested, output to stdout"
}
rounds=5 pairs=2 fuzzsec=20 lfrounds=0 lfsec=30 lfbuilds=tested output=""
while [ $# -gt 0 ]; do
  case "$1" in
  -h | --help) usage; exit 0 ;;
  --rounds | --fuzz-pairs | --fuzz-seconds | --libfuzzer-rounds | --libfuzzer-seconds | --libfuzzer-builds | --output)
    if [ $# -lt 2 ]; then
      echo "speed.sh: $1 needs a value" >&2; usage >&2; exit 2
    fi
    case "$1" in
    --output) output=$2 ;;
    --libfuzzer-builds)
      if ! [[ ",$2," =~ ^(,(tested|module|all))+,$ ]]; then
        echo "speed.sh: --libfuzzer-builds takes a comma-separated list of tested, module and all, not \"$2\"" >&2; exit 2
      fi
      lfbuilds=$2
      ;;
    *)
      if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "${#2}" -gt 4 ]; then
        echo "speed.sh: $1 takes a whole number up to 9999, not \"$2\"" >&2; exit 2
      fi
      case "$1" in
      --rounds) rounds=$2 ;;
      --fuzz-pairs) pairs=$2 ;;
      --fuzz-seconds) fuzzsec=$2 ;;
      --libfuzzer-rounds) lfrounds=$2 ;;
      --libfuzzer-seconds) lfsec=$2 ;;
      esac
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
if [ "$pairs" -gt 0 ] && [ "$fuzzsec" -lt 4 ]; then
  echo "speed.sh: --fuzz-seconds must be at least 4 (the fuzzer reports every 3 s)" >&2; exit 2
fi
if [ "$lfrounds" -gt 0 ] && [ "$lfsec" -lt 1 ]; then
  echo "speed.sh: --libfuzzer-seconds must be at least 1" >&2; exit 2
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
# SIGKILL 10 s later). --foreground keeps timeout, the command and what it
# starts (a fuzzer's workers, which leave when their coordinator does) in
# this script's process group, so that Ctrl-C, or a kill of the group,
# reaches all of them; without it timeout would take a group of its own.
bounded() { local limit=$1; shift; timeout --foreground -k 10 "$limit" "$@"; }

# Statistics of whitespace-separated numbers on stdin.
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
go test -c -o "$work/fuzzinput.test" ./internal/fuzzinput
go test -c -o "$work/core.test" ./core
go test -c -o "$work/oracle.test" ./oracle

# bench_ns PKGDIR NAME BENCHTIME COMMAND...: ns/op of benchmark NAME, run for
# BENCHTIME by COMMAND (a test binary and what runs it) in its package's
# directory, where the seeds are read from.
bench_ns() {
  local dir=$1 name=$2 benchtime=$3 out
  shift 3
  out=$(cd "$dir" && bounded 120 "$@" -test.run '^$' -test.bench "^$name\$" -test.benchtime "$benchtime") ||
    fail "$name failed: $out"
  awk -v n="$name" '$1 ~ "^" n "(-[0-9]+)?$" { print $3; found = 1 } END { exit !found }' <<<"$out" ||
    fail "$name printed no ns/op: $out"
}
# The seed-trace benchmarks run on one CPU, pinned when taskset can, so that
# the bare and the checked op meet the same core.
one_cpu=(env GOMAXPROCS=1)
if command -v taskset >/dev/null; then one_cpu+=(taskset -c 0); fi

fastest() { sort -g | head -1; }

declare -a scen bare checked model ratio opss reps
for ((r = 1; r <= rounds; r++)); do
  say "round $r of $rounds"
  scen+=("$(bench_ns internal/fuzzinput BenchmarkCheckScenarioSeeds 1s "$work/fuzzinput.test")")
  bs=() cs=() ms=()
  for ((k = 0; k < 3; k++)); do
    bs+=("$(bench_ns core BenchmarkSeedTrace 300ms "${one_cpu[@]}" "$work/core.test")")
    cs+=("$(bench_ns oracle BenchmarkCheckedSeedTrace 300ms "${one_cpu[@]}" "$work/oracle.test")")
    ms+=("$(bench_ns oracle BenchmarkModelSeedTrace 300ms "${one_cpu[@]}" "$work/oracle.test")")
  done
  b=$(printf '%s\n' "${bs[@]}" | fastest) c=$(printf '%s\n' "${cs[@]}" | fastest) m=$(printf '%s\n' "${ms[@]}" | fastest)
  bare+=("$b") checked+=("$c") model+=("$m")
  ratio+=("$(awk -v b="$b" -v c="$c" 'BEGIN { printf "%.4f", c / b }')")
  out=$(bounded 300 "$work/sbxfuzz" run --checks 100000 --out "$work/findings" 2>&1) || fail "sbxfuzz run: $out"
  v=$(grep -oE '\(([0-9]+) ops/s' <<<"$out" | grep -oE '[0-9]+') || fail "sbxfuzz run printed no ops/s: $out"
  opss+=("$v")
  t0=$EPOCHREALTIME
  bounded 300 "$work/sbxfuzz" report --checks 100000 >/dev/null 2>"$work/report.err" ||
    fail "sbxfuzz report: $(cat "$work/report.err")"
  reps+=("$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }')")
done

# Fuzzing pairs: FuzzPlain's module holds nothing but it, with FuzzTrivial's
# body and worker setup, so that its test binary's coverage counters are
# only the runtime's and the standard library's.
declare -a fscen fplain fratio
fuzz_rate() { # fuzz_rate DIR BINARY TARGET: mean execs/s of the reports from 9 s on
  local dir=$1 bin=$2 target=$3 out from=9
  [ "$fuzzsec" -ge 12 ] || from=$((fuzzsec / 2))
  rm -rf "$work/fuzzcache"
  out=$(cd "$dir" && bounded $((fuzzsec + 120)) "$bin" -test.run '^$' -test.fuzz "^$target\$" \
    -test.fuzztime "${fuzzsec}s" -test.fuzzminimizetime 0 -test.parallel 2 \
    -test.fuzzcachedir "$work/fuzzcache" 2>&1) || fail "$target under go test -fuzz: $out"
  awk -v from="$from" '
    match($0, /elapsed: [0-9]+s, execs: [0-9]+ \([0-9]+\/sec\)/) {
      s = substr($0, RSTART, RLENGTH); gsub(/[^0-9 ]/, " ", s); split(s, f, " ")
      if (f[1] + 0 >= from) { sum += f[3]; n++ }
    }
    END { if (n == 0) exit 1; printf "%.0f\n", sum / n }' <<<"$out" || fail "$target printed no rates from ${from}s on: $out"
}
if [ "$pairs" -gt 0 ]; then
  say "building the fuzz targets"
  go test -c -fuzz '^FuzzScenario$' -o "$work/fuzz.test" ./fuzz
  mkdir -p "$work/plain"
  printf 'module fuzzplain\n\ngo %s\n' "$(go list -m -f '{{.GoVersion}}')" >"$work/plain/go.mod"
  cat >"$work/plain/plain_test.go" <<'EOF'
package fuzzplain

import (
	"errors"
	"flag"
	"os"
	"runtime"
	"strings"
	"testing"
)

// FuzzPlain is fuzzinput.Trivial behind fuzzinput.OneProcPerWorker.
func FuzzPlain(f *testing.F) {
	if f := flag.Lookup("test.fuzzworker"); os.Getenv("GOMAXPROCS") == "" && f != nil && f.Value.String() == "true" {
		runtime.GOMAXPROCS(1)
	}
	f.Add([]byte("seed"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s := string(data)
		if strings.HasPrefix(s, "sbxfuzz trivial baseline:") && strings.HasSuffix(s, "\x00\xff reject") {
			t.Fatal(errors.New("the trivial baseline's rejected input"))
		}
	})
}
EOF
  (cd "$work/plain" && go test -c -fuzz '^FuzzPlain$' -o "$work/plain.test" .)
  for ((p = 1; p <= pairs; p++)); do
    say "fuzzing pair $p of $pairs (${fuzzsec}s each)"
    if ((p % 2)); then
      s=$(fuzz_rate fuzz "$work/fuzz.test" FuzzScenario)
      t=$(fuzz_rate "$work/plain" "$work/plain.test" FuzzPlain)
    else
      t=$(fuzz_rate "$work/plain" "$work/plain.test" FuzzPlain)
      s=$(fuzz_rate fuzz "$work/fuzz.test" FuzzScenario)
    fi
    fscen+=("$s") fplain+=("$t")
    fratio+=("$(awk -v s="$s" -v t="$t" 'BEGIN { printf "%.4f", s / t }')")
  done
fi

# libFuzzer: per build, a space-separated list of figures, a round each.
declare -A lscen ltriv lratio
lf_rate() { # lf_rate BUILD TARGET: average exec/s of a run from an empty corpus and the seeds
  local w="$work/lf/$1/$2" out
  rm -rf "$w/fresh" && mkdir -p "$w/fresh" "$w/crashes"
  out=$(bounded $((lfsec + 120)) "$w/$2" -max_total_time="$lfsec" -print_final_stats=1 \
    -artifact_prefix="$w/crashes/" "$w/fresh" "$w/seeds/$2" 2>&1) || fail "$2 ($1) under libFuzzer: $(tail -20 <<<"$out")"
  awk '$1 == "stat::average_exec_per_sec:" { print $2; found = 1 } END { exit !found }' <<<"$out" ||
    fail "$2 ($1) printed no stat::average_exec_per_sec: $(tail -20 <<<"$out")"
}
IFS=, read -ra builds <<<"$lfbuilds"
if [ "$lfrounds" -gt 0 ]; then
  for build in "${builds[@]}"; do
    for target in FuzzScenario FuzzTrivial; do
      say "building $target for libFuzzer ($build)"
      WORK="$work/lf/$build/$target" SBXFUZZ_INSTRUMENT=$build bounded 1800 bash fuzz/libfuzzer.sh 1 "$target" >"$work/lf.log" 2>&1 ||
        fail "SBXFUZZ_INSTRUMENT=$build fuzz/libfuzzer.sh 1 $target: $(tail -20 "$work/lf.log")"
    done
  done
  for ((r = 1; r <= lfrounds; r++)); do
    say "libFuzzer round $r of $lfrounds (${lfsec}s a run)"
    for build in "${builds[@]}"; do
      s=$(lf_rate "$build" FuzzScenario)
      t=$(lf_rate "$build" FuzzTrivial)
      lscen[$build]+=" $s" ltriv[$build]+=" $t"
      lratio[$build]+=" $(awk -v s="$s" -v t="$t" 'BEGIN { printf "%.4f", 100 * s / t }')"
    done
  done
fi
load1=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)

# row LABEL BAR TEST FORMAT VALUES...: a bar's row: each figure, the median,
# the bar, and whether the median meets it (TEST is an awk condition on m;
# an empty BAR is a row without a bar).
row() {
  local label=$1 bar=$2 test=$3 f=$4 med met="—"
  shift 4
  med=$(printf '%s\n' "$@" | median)
  if [ -n "$bar" ]; then met=$(awk -v m="$med" "BEGIN { print ($test) ? \"yes\" : \"no\" }"); else bar="—"; fi
  printf '| %s | %s | %s | %s | %s |\n' "$label" "$(printf '%s\n' "$@" | each "$f" | joined)" \
    "$(each "$f" <<<"$med")" "$bar" "$met"
}
to_us() { for v in "$@"; do awk -v v="$v" 'BEGIN { print v / 1000 }'; done; }
to_m() { for v in "$@"; do awk -v v="$v" 'BEGIN { print v / 1e6 }'; done; }

# shellcheck disable=SC2016 # the backquotes are Markdown's
report() {
  cat <<EOF
# sbxfuzz speed

\`reports/speed.sh --rounds $rounds --fuzz-pairs $pairs --fuzz-seconds $fuzzsec --libfuzzer-rounds $lfrounds --libfuzzer-seconds $lfsec --libfuzzer-builds $lfbuilds\`
on $commit, $started UTC, $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || echo unknown CPU)),
load average $load0 before and $load1 after. Each figure is one round (or one pair of fuzzing runs),
in order; a ratio is formed within its round. Figures from another day, or another machine, are not
comparable: this machine's speed moves by up to 2× from one minute to the next.

| measure | figures | median | bar | met |
| --- | --- | ---: | --- | --- |
EOF
  mapfile -t us < <(to_us "${scen[@]}")
  row '`CheckScenario` over the committed seeds, µs an input' '≤ 6' 'm <= 6' '%.2f' "${us[@]}"
  row 'checked ÷ bare op on the seed trace, one CPU, fastest of 3' '≤ 2' 'm <= 2' '%.2f' "${ratio[@]}"
  mapfile -t mops < <(to_m "${opss[@]}")
  row 'campaign, million checked ops/s, 2 workers' '≥ 2.5' 'm >= 2.5' '%.2f' "${mops[@]}"
  row '`sbxfuzz report --checks 100000`, seconds' '< 2' 'm < 2' '%.2f' "${reps[@]}"
  if [ "$pairs" -gt 0 ]; then
    row '`FuzzScenario` ÷ `FuzzPlain`, `go test -fuzz`, 2 workers' '≥ 0.5' 'm >= 0.5' '%.2f' "${fratio[@]}"
  fi
  if [ "$lfrounds" -gt 0 ]; then
    for build in "${builds[@]}"; do
      # shellcheck disable=SC2086 # the figures are words
      if [ "$build" = tested ]; then
        row 'libFuzzer `FuzzScenario` ÷ `FuzzTrivial`, built alike (tested), %' '≥ 6' 'm >= 6' '%.1f' ${lratio[$build]}
      else
        row "libFuzzer \`FuzzScenario\` ÷ \`FuzzTrivial\`, built alike ($build), %" '' '' '%.1f' ${lratio[$build]}
      fi
    done
  fi
  cat <<EOF

The figures behind the ratios:

| measure | figures |
| --- | --- |
| \`BenchmarkSeedTrace\` (core), bare, ns an op, fastest of 3 | $(printf '%s\n' "${bare[@]}" | each '%.1f' | joined) |
| \`BenchmarkCheckedSeedTrace\` (oracle), ns an op, fastest of 3 | $(printf '%s\n' "${checked[@]}" | each '%.1f' | joined) |
| \`BenchmarkModelSeedTrace\` (oracle), the model alone, ns an op, fastest of 3 | $(printf '%s\n' "${model[@]}" | each '%.1f' | joined) |
EOF
  if [ "$pairs" -gt 0 ]; then
    echo "| \`FuzzScenario\`, execs/s | $(printf '%s\n' "${fscen[@]}" | joined) |"
    echo "| \`FuzzPlain\`, execs/s | $(printf '%s\n' "${fplain[@]}" | joined) |"
  fi
  if [ "$lfrounds" -gt 0 ]; then
    for build in "${builds[@]}"; do
      # shellcheck disable=SC2086 # the figures are words
      echo "| libFuzzer \`FuzzScenario\` ($build), exec/s | $(printf '%s\n' ${lscen[$build]} | joined) |"
      # shellcheck disable=SC2086
      echo "| libFuzzer \`FuzzTrivial\` ($build), exec/s | $(printf '%s\n' ${ltriv[$build]} | joined) |"
    done
  fi
}

if [ -z "$output" ]; then
  report
else
  tmp=$(mktemp "$output.XXXXXX")
  report >"$tmp"
  mv -f "$tmp" "$output"
  say "wrote $output"
fi
