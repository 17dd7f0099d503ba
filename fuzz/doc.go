// Package fuzz holds sbxfuzz's native Go fuzz targets and nothing else.
// Each target's body is one call into a plain function of
// internal/fuzzinput, so that the same targets build for libFuzzer with
// go-118-fuzz-build (ClusterFuzzLite, OSS-Fuzz) unchanged, and so that the
// command line, which decodes fuzz inputs too (sbxfuzz import), links
// neither testing nor rapid.
//
//	target        body                       checks
//	FuzzScenario  fuzzinput.CheckScenario    any bytes decoded (fuzzinput.Decode) into a grant, a world
//	                                         and ops, judged by the full oracle on the sandbox
//	                                         SBXFUZZ_SUT names: the reference or a mutant
//	FuzzRun       fuzzinput.CheckRun         the reference's pipeline on raw op sequences, fixed grant
//	FuzzParse     fuzzinput.CheckParse       .sbx parse → format → parse
//	FuzzPaths     fuzzinput.CheckPaths       SPEC §4 helpers against an independent formulation
//	FuzzResolve   fuzzinput.CheckResolve     the inet_aton parser against an independent one
//	FuzzTrivial   fuzzinput.Trivial          nothing: the throughput baseline
//
// Package fuzz links only what these targets need, because the Go fuzzer
// clears, snapshots and compares every coverage counter of the test binary
// around each exec, and a test binary links everything any of its targets
// links. So two targets live in packages of their own: FuzzProperty, the
// main rapid property (sbxtest.PropertyOf) through rapid.MakeFuzz, in
// fuzz/property; and FuzzScenario for the sandboxes outside this process
// ("exec:COMMAND", "osroot", "mcp:COMMAND"), in fuzz/external, from the
// same seeds: the code that drives those sandboxes would add its counters
// to every exec of this binary (docs/benchmarks.md counts them).
//
// The decoder, its modes (arena, generated, text), the seed corpora and
// the corpus-file layouts are documented in internal/fuzzinput. Every
// target calls fuzzinput.OneProcPerWorker first.
//
// # Seeds and crashers
//
// The seed corpora under testdata/fuzz/<Target>/ (and
// property/testdata/fuzz/FuzzProperty/) are generated from
// corpus/**/*.sbx by go generate ./fuzz (fuzzinput.SeedFiles): every
// regression scenario is also a seed; fuzz/external's FuzzScenario adds
// testdata/fuzz/FuzzScenario's seeds with f.Add, and writes its crashers
// below its own directory. A crasher of FuzzScenario — a go test fuzz v1
// file, or a libFuzzer crash file from ClusterFuzzLite — becomes a
// minimized, readable .sbx with sbxfuzz import --sut NAME.
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
