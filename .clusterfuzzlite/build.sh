#!/bin/bash -eu
# Build sbxfuzz's native Go fuzz targets as libFuzzer fuzzers for
# ClusterFuzzLite / OSS-Fuzz. compile_native_go_fuzzer runs
# go-118-fuzz-build, which rewrites the file holding the target to use its
# testing shim; the shim must be in go.mod, hence the go get (inside the
# build container only). fuzz/libfuzzer.sh does the same without Docker.
#
# A []byte target built this way receives the bytes after a 4-byte
# big-endian length prefix (go-fuzz-headers' GetBytes): `sbxfuzz import`
# reads such crash files (layout "libfuzzer").
go get github.com/AdamKorcz/go-118-fuzz-build/testing

pkg=github.com/sbxfuzz/sbxfuzz/fuzz
for target in FuzzScenario FuzzRun FuzzParse FuzzPaths FuzzResolve; do
  compile_native_go_fuzzer "$pkg" "$target" "$target"
done
# FuzzProperty is left out: rapid.MakeFuzz wants the standard *testing.T,
# which the shim replaces. FuzzTrivial is a throughput baseline, not a test.

# Seed corpora of the []byte targets: every corpus scenario, in the
# libFuzzer layout (fuzz/internal/seedgen -libfuzzer).
seeds=$(mktemp -d)
go run ./fuzz/internal/seedgen -corpus corpus -out "" -libfuzzer "$seeds"
for target in FuzzScenario FuzzParse; do
  (cd "$seeds/$target" && zip -q -r "$OUT/${target}_seed_corpus.zip" .)
done
