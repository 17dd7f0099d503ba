#!/bin/bash -eu
set -o pipefail
# Build sbxfuzz's native Go fuzz targets as libFuzzer fuzzers for
# ClusterFuzzLite / OSS-Fuzz. fuzz/libfuzzer.sh does the same without Docker.
#
# go-118-fuzz-build rewrites the file holding the target to use its testing
# shim (which must be in go.mod, hence the go get, inside the build container
# only) and builds it with -d=libfuzzer: coverage counters and comparison
# tracing. compile_native_go_fuzzer calls it on every package, the standard
# library included, and passes it no flags; so the fuzzing builds call it here
# directly (the same two commands), with -include naming the only packages
# instrumented, those the target tests (under_test.sh, which
# fuzz/libfuzzer.sh shares): package fuzz, which
# holds the targets, the sandboxes (core, the reference, with internal/spec;
# mutants), the .sbx
# parser and its tokens (scenario, internal/token) for FuzzParse. Everything
# else is built plain: the standard library, rapid, the shim and the harness (the
# decoder, the generators, the oracle and its model), whose branches mirror
# the sandbox's or fire only on a finding, so that their coverage guides
# nothing the sandbox's does not, while tracing them cost more than half of
# each exec (docs/benchmarks.md). fuzz/libfuzzer.sh checks such a
# build. The coverage build (go test -cover, no libFuzzer instrumentation)
# is compile_native_go_fuzzer's.
#
# A []byte target built this way receives the bytes after a 4-byte
# big-endian length prefix (go-fuzz-headers' GetBytes): `sbxfuzz import`
# reads such crash files (layout "libfuzzer").
version=v0.0.0-20250520111509-a70c2aa677fa # go-118-fuzz-build; as fuzz/libfuzzer.sh
shim=github.com/AdamKorcz/go-118-fuzz-build/testing
go get "$shim@$version"

module=$(go list -m)
pkg=$module/fuzz
targets=(FuzzScenario FuzzParse FuzzPaths FuzzResolve)
# FuzzProperty is left out: rapid.MakeFuzz wants the standard *testing.T,
# which the shim replaces.
if [[ $SANITIZER == *coverage* ]]; then
  for target in "${targets[@]}"; do
    compile_native_go_fuzzer "$pkg" "$target" "$target"
  done
else
  bin=$(mktemp -d)
  GOBIN=$bin go install "github.com/AdamKorcz/go-118-fuzz-build@$version"
  # shellcheck source=under_test.sh
  . .clusterfuzzlite/under_test.sh
  for target in "${targets[@]}"; do
    "$bin/go-118-fuzz-build" -tags gofuzz -include "$(under_test "$module" "$target")" -o "$target.a" -func "$target" ./fuzz
    # shellcheck disable=SC2086 # CXXFLAGS and LIB_FUZZING_ENGINE are lists of flags
    $CXX $CXXFLAGS $LIB_FUZZING_ENGINE "$target.a" -o "$OUT/$target"
    rm -f "$target.a" "$target.h"
  done
fi

# Seed corpora of the []byte targets: every corpus scenario, in the
# libFuzzer layout (fuzz/internal/seedgen -libfuzzer).
seeds=$(mktemp -d)
go run ./fuzz/internal/seedgen -corpus corpus -out "" -libfuzzer "$seeds"
for target in FuzzScenario FuzzParse; do
  (cd "$seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
