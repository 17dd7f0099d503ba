// Package fuzz holds sbxfuzz's native Go fuzz targets and nothing else.
// Each target's body is one call into a plain function of
// internal/fuzzcheck, so that the same targets build for libFuzzer with
// go-118-fuzz-build (ClusterFuzzLite, OSS-Fuzz) unchanged, and so that the
// command line, which decodes fuzz inputs too (sbxfuzz import), links
// neither testing nor rapid.
//
//	target        body                       checks
//	FuzzScenario  fuzzcheck.CheckScenario    any bytes decoded (internal/fuzzdecode) into a grant,
//	                                         a world and ops, judged by the full oracle on the
//	                                         sandbox SBXFUZZ_SUT names: any --sut value
//	FuzzParse     fuzzcheck.CheckParse       .sbx parse → format → parse
//	FuzzPaths     fuzzcheck.CheckPaths       SPEC §4 helpers against an independent formulation
//	FuzzResolve   fuzzcheck.CheckResolve     the inet_aton parser against the rules it must keep
//	FuzzProperty  rapid.MakeFuzz             the main rapid property (sbxtest.PropertyOf) on
//	                                         the sandbox SBXFUZZ_SUT names, unless it adapts
//
// SBXFUZZ_SUT takes any --sut value, looked up in the command line's
// registry (internal/sut): the reference (the default), "mutant:NAME", a
// sandbox in another process ("exec:COMMAND", SPEC §12), on the real disk
// ("osroot") or behind an MCP server ("mcp:COMMAND", SPEC §13), whose
// scenarios go through the sandbox's adapter first, as in a campaign. A
// session of it starts on first use and lasts as long as the fuzz worker's
// process. go test runs the targets in this directory, so a command's paths
// must be absolute:
//
//	SBXFUZZ_SUT="exec:python3 $PWD/examples/python/sandbox.py" \
//	  go test -run '^$' -fuzz '^FuzzScenario$' ./fuzz
//
// # Seeds and crashers
//
// The seed corpora under testdata/fuzz/<Target>/ are generated from
// corpus/**/*.sbx by go generate ./fuzz (fuzz/internal/seedgen): every
// regression scenario is also a seed. A crasher of FuzzScenario — a go
// test fuzz v1 file, or a libFuzzer crash file from ClusterFuzzLite —
// becomes a minimized, readable .sbx with sbxfuzz import --sut NAME.
//
// # Constraints of go-118-fuzz-build
//
// Each target lives in package fuzz (not fuzz_test), alone in its _test.go
// file with no helper from another test file, and its body is one call to a
// function of a non-test file: the shim rewrites only the file that holds
// the target, and supports neither testing.TB, t.Run nor t.Context.
// FuzzProperty cannot build under it (rapid.MakeFuzz wants the standard
// *testing.T).
package fuzz

//go:generate go run ./internal/seedgen -corpus ../corpus -out .
