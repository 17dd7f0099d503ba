#!/usr/bin/env bash
# Build a fuzz target of this package into a libFuzzer binary the way
# ClusterFuzzLite's compile_native_go_fuzzer does (go-118-fuzz-build, then
# clang++ -fsanitize=fuzzer), and run it: a check, without Docker, that the
# targets build and run under OSS-Fuzz / ClusterFuzzLite unchanged.
#
#   fuzz/libfuzzer.sh [SECONDS [TARGET]]     (default: 30 FuzzScenario)
#
# It installs clang and libclang-rt-14-dev with apt-get when clang++ is
# missing, installs go-118-fuzz-build, and builds in a temporary copy of the
# module (the tool rewrites the target's file, and its testing shim must be in
# go.mod), so the checkout stays clean. FuzzScenario and FuzzParse start from
# their seeds in the tool's libFuzzer layout (fuzz/internal/seedgen -libfuzzer). SBXFUZZ_SUT
# picks the sandbox, as for go test -fuzz. The run's statistics end the
# output (stat::average_exec_per_sec is exec/s); a crash leaves crash-* files
# in the artifact directory it names, which `sbxfuzz import` reads.
#
# Environment: WORK (build directory; default a new temporary one, kept),
# GO118FUZZBUILD_VERSION (the go-118-fuzz-build module version).
set -euo pipefail
seconds=${1:-30}
target=${2:-FuzzScenario}
version=${GO118FUZZBUILD_VERSION:-v0.0.0-20250520111509-a70c2aa677fa}
root=$(cd "$(dirname "$0")/.." && pwd)
work=${WORK:-$(mktemp -d -t sbxfuzz-libfuzzer.XXXXXX)}
mkdir -p "$work"

if ! command -v clang++ >/dev/null || ! ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1; then
  echo "libfuzzer.sh: installing clang and libclang-rt-14-dev" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  $sudo apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang libclang-rt-14-dev >/dev/null
fi
GOBIN="$work/bin" go install "github.com/AdamKorcz/go-118-fuzz-build@$version"

# A copy of the module, with the shim's testing package required.
src="$work/src"
rm -rf "$src" && mkdir -p "$src"
(cd "$root" && tar --exclude=./.git --exclude=./corpus/findings -cf - .) | tar -xf - -C "$src"
cd "$src"
printf 'package fuzz\n\nimport _ "github.com/AdamKorcz/go-118-fuzz-build/testing"\n' > fuzz/register_libfuzzer.go
go get "github.com/AdamKorcz/go-118-fuzz-build/testing@$version"

echo "libfuzzer.sh: building $target in $work" >&2
"$work/bin/go-118-fuzz-build" -o "$work/$target.a" -func "$target" ./fuzz
clang++ -fsanitize=fuzzer "$work/$target.a" -lresolv -lpthread -o "$work/$target"

corpus="$work/corpus/$target" seeds="$work/seeds/$target" artifacts="$work/artifacts/"
go run ./fuzz/internal/seedgen -corpus corpus -out "" -libfuzzer "$work/seeds"
mkdir -p "$corpus" "$seeds" "$artifacts"

echo "libfuzzer.sh: running $target for ${seconds}s on ${SBXFUZZ_SUT:-reference}; crashes go to $artifacts" >&2
status=0
"$work/$target" -max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="$artifacts" \
  "$corpus" "$seeds" || status=$?
if [ "$status" -ne 0 ]; then
  echo "libfuzzer.sh: $target failed (status $status); import a crash with:" >&2
  echo "  go run ./cmd/sbxfuzz import --sut ${SBXFUZZ_SUT:-reference} $artifacts"'crash-*' >&2
fi
exit "$status"
