// Package fuzz holds sbxfuzz's native Go fuzz targets and the plain
// functions they call, so that the same targets build for libFuzzer with
// go-118-fuzz-build (ClusterFuzzLite, OSS-Fuzz) unchanged.
//
//	target        body            checks
//	FuzzScenario  CheckScenario   any bytes decoded (Decode) into a grant, a world and ops,
//	                              judged by the full oracle on the sandbox SBXFUZZ_SUT names
//	FuzzRun       CheckRun        the reference's pipeline on raw op sequences, fixed grant
//	FuzzParse     CheckParse      .sbx parse → format → parse
//	FuzzPaths     CheckPaths      SPEC §4 helpers against an independent formulation
//	FuzzResolve   CheckResolve    the inet_aton parser against an independent one
//	FuzzProperty  Property        the main rapid property, through rapid.MakeFuzz
//	FuzzTrivial   Trivial         nothing: the throughput baseline
//
// # Decoding
//
// Decode turns every input into a scenario; its first byte picks the mode.
// Most values pick ModeArena: one of NumArenas grants and worlds that
// generators.Generate drew once (the project's dictionaries of hostile
// paths, host spellings, metadata names and budget edges), then ops, each of
// an attack class the input names — generators.Op aims it at that grant and
// world — or raw, so every attack class of SPEC §9 and any op is reachable
// without building a grant and world per input (each arena's world is
// prepared once, core.PrepareWorld). 0xF8–0xFF pick ModeGenerated, a whole
// scenario generators.GenerateAtMost draws from the input, as a campaign
// does; '#' picks ModeText, .sbx text (how the committed
// corpus becomes seeds, and a way to write any grant, world and op).
// Scenarios are cut to MaxOps ops (MaxTextOps for text) and generated
// arguments to maxArg bytes: under go test -fuzz every exec also pays for
// the fuzzer's coverage bookkeeping, and FuzzScenario is meant to run at
// least half as fast as a target that does nothing.
//
// # Workers
//
// Every target calls OneProcPerWorker before f.Fuzz: a go test -fuzz
// worker process gets one P, since the fuzzer runs one worker per core and
// extra Ps in a worker only compete with the other workers.
//
// # Seeds and crashers
//
// The seed corpora under testdata/fuzz/<Target>/ are generated from
// corpus/**/*.sbx by go generate ./fuzz (SeedFiles): every regression
// scenario is also a seed. A crasher of FuzzScenario — a go test fuzz v1
// file, or a libFuzzer crash file from ClusterFuzzLite (LayoutLibFuzzer) —
// becomes a minimized, readable .sbx with sbxfuzz import.
//
// # Constraints of go-118-fuzz-build
//
// Each target lives in package fuzz (not fuzz_test), alone in its _test.go
// file with no helper from another test file, and its body is one call to a
// function of a non-test file (as is OneProcPerWorker): the shim rewrites only the file that holds
// the target, and supports neither testing.TB, t.Run nor t.Context.
// FuzzProperty cannot build under it (rapid.MakeFuzz wants the standard
// *testing.T).
package fuzz

//go:generate go run ./internal/seedgen -corpus ../corpus -out testdata/fuzz
