#!/usr/bin/env bash
# Build a fuzz target of this package into a libFuzzer binary the way
# .clusterfuzzlite/build.sh does (go-118-fuzz-build, then clang++
# -fsanitize=fuzzer), and run it: a check, without Docker, that the targets
# build and run under OSS-Fuzz / ClusterFuzzLite unchanged.
#
#   fuzz/libfuzzer.sh [SECONDS [TARGET]]     (default: 30 FuzzScenario)
#
# When clang++ is missing it installs Debian's default clang with apt-get,
# then the libFuzzer runtime of that clang's major version
# (libclang-rt-N-dev; libclang-common-N-dev before it existed), and checks
# that a -fsanitize=fuzzer program links. It installs go-118-fuzz-build, and
# builds in a temporary copy of the module (the tool rewrites the target's
# file, and its testing shim must be in go.mod), so the checkout stays clean.
#
# Only the code a target tests gets the -d=libfuzzer instrumentation
# (coverage counters and comparison tracing; go-118-fuzz-build -include):
# the sandboxes (core, the reference, with internal/spec; mutants, what
# SBXFUZZ_SUT names) for
# every target, the .sbx parser and its tokens (scenario, internal/token)
# for FuzzParse (.clusterfuzzlite/under_test.sh, which build.sh sources
# too). Everything else the target links is built plain, as in build.sh:
# the standard library, rapid, the shim and the harness (the decoder, the generators, the oracle and its model). The harness's
# branches mirror the sandbox's or only fire on a finding, so their
# coverage guides nothing the sandbox's does not, and tracing them cost
# more than half of a FuzzScenario exec (docs/benchmarks.md).
#
# FuzzScenario and FuzzParse start from their seeds in the tool's libFuzzer
# layout (fuzz/internal/seedgen -libfuzzer). SBXFUZZ_SUT picks the sandbox,
# any --sut value, as for package fuzz's go test -fuzz. The run's
# statistics end the output (stat::average_exec_per_sec is exec/s); a crash
# leaves crash-* files in the artifact directory it names, which `sbxfuzz
# import` reads.
#
# Environment: WORK (build directory; default a new temporary one, kept),
# GO118FUZZBUILD_VERSION (the go-118-fuzz-build module version),
# LIBFUZZER_FLAGS (more flags for the fuzzer binary, e.g. -seed=1 -runs=100000).
set -euo pipefail
seconds=${1:-30}
target=${2:-FuzzScenario}
version=${GO118FUZZBUILD_VERSION:-v0.0.0-20250520111509-a70c2aa677fa}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d -t sbxfuzz-libfuzzer.XXXXXX)}
mkdir -p "$work"

sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
apt_install() {
  echo "libfuzzer.sh: installing $*" >&2
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}
# links_fuzzer: whether clang++ links a -fsanitize=fuzzer program, i.e. the
# libFuzzer runtime of its version is installed (wherever that version keeps
# it: lib/linux/libclang_rt.fuzzer-x86_64.a or lib/<triple>/libclang_rt.fuzzer.a).
links_fuzzer() {
  printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char *, unsigned long) { return 0; }\n' |
    clang++ -fsanitize=fuzzer -x c++ - -o "$work/.linkcheck" >/dev/null 2>&1
}
updated=""
if ! command -v clang++ >/dev/null; then
  $sudo apt-get update -qq && updated=1
  apt_install clang
fi
if ! links_fuzzer; then
  major=$(clang++ -dumpversion | cut -d. -f1)
  [ -n "$updated" ] || $sudo apt-get update -qq
  if apt-cache show "libclang-rt-$major-dev" >/dev/null 2>&1; then
    apt_install "libclang-rt-$major-dev"
  else
    apt_install "libclang-common-$major-dev"
  fi
  if ! links_fuzzer; then
    echo "libfuzzer.sh: clang++ $(clang++ -dumpversion) still links no -fsanitize=fuzzer program" >&2
    exit 1
  fi
fi
rm -f "$work/.linkcheck"
GOBIN="$work/bin" go install "github.com/AdamKorcz/go-118-fuzz-build@$version"

# A copy of the module, with the shim's testing package required.
src="$work/src"
rm -rf "$src" && mkdir -p "$src"
(cd "$root" && tar --exclude=./.git --exclude=./corpus/findings -cf - .) | tar -xf - -C "$src"
cd "$src"
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' > fuzz/register_libfuzzer.go
go get "github.com/AdamKorcz/go-118-fuzz-build/testing@$version"

# -include names the packages go-118-fuzz-build instruments (import paths;
# a trailing * matches a prefix): under_test (build.sh's list) names those a
# target tests.
# shellcheck source=../.clusterfuzzlite/under_test.sh
. "$src/.clusterfuzzlite/under_test.sh"
module=$(go list -m)
# The build is checked below: core must call libFuzzer's hooks, the
# packages in plain must not.
tested=$(under_test "$module" "$target")
plain=("$module/oracle")

echo "libfuzzer.sh: building $target in $work" >&2
"$work/bin/go-118-fuzz-build" -include "$tested" -o "$work/$target.a" -func "$target" ./fuzz
clang++ -fsanitize=fuzzer "$work/$target.a" -lresolv -lpthread -o "$work/$target"
# Whether -include did what it says: a function of core
# calls a libFuzzer hook, none of a package in plain does (a plain
# package's function inlined into an instrumented one is compiled there).
dis="$work/$target.dis"
hooked() { # whether a function of package $1 calls a libFuzzer hook
  awk -v fn="<$1." '/^[0-9a-f]+ <.*>:$/ { on = index($0, fn) == 1 + index($0, " ") }
    on && /<runtime\.libfuzzer/ { hit = 1 } END { exit !hit }' "$dis"
}
if ! command -v objdump >/dev/null; then
  echo "libfuzzer.sh: no objdump; not checking which packages were instrumented" >&2
else
  trap 'rm -f "$dis"' EXIT
  objdump -d --no-show-raw-insn "$work/$target" >"$dis"
  if ! hooked "$module/core"; then
    echo "libfuzzer.sh: $module/core was built without libFuzzer instrumentation" >&2
    exit 1
  fi
  for pkg in "${plain[@]}"; do
    if hooked "$pkg"; then
      echo "libfuzzer.sh: $pkg was built with libFuzzer instrumentation" >&2
      exit 1
    fi
  done
  rm -f "$dis"
fi

corpus="$work/corpus/$target" seeds="$work/seeds/$target" artifacts="$work/artifacts/"
go run ./fuzz/internal/seedgen -corpus corpus -out "" -libfuzzer "$work/seeds"
mkdir -p "$corpus" "$seeds" "$artifacts"

echo "libfuzzer.sh: running $target for ${seconds}s on ${SBXFUZZ_SUT:-reference}; crashes go to $artifacts" >&2
status=0
# shellcheck disable=SC2086 # LIBFUZZER_FLAGS is a list of flags
"$work/$target" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts" \
  ${LIBFUZZER_FLAGS:-} "$corpus" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "libfuzzer.sh: $target failed (status $status); import a crash with:" >&2
  echo "  go run ./cmd/sbxfuzz import --sut ${SBXFUZZ_SUT:-reference} $artifacts"'crash-*' >&2
fi
exit "$status"
