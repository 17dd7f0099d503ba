// Package fuzzinput is everything the fuzz targets do, as plain functions:
// the decoder that turns any bytes into a scenario, its arenas, the corpus
// file layouts (go test fuzz v1, libFuzzer), the seed corpora, and the
// targets' bodies (CheckScenario, CheckRun, CheckParse, CheckPaths,
// CheckResolve, Trivial). Package fuzz holds only the targets, each one call
// into this package; the command line imports it for sbxfuzz import without
// linking testing or rapid.
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
// prepared once, oracle.PrepareWorld). 0xF8–0xFF pick ModeGenerated, a whole
// scenario generators.GenerateAtMost draws from the input, as a campaign
// does; '#' picks ModeText, .sbx text (how the committed corpus becomes
// seeds, and a way to write any grant, world and op). Scenarios are cut to
// MaxOps ops (MaxTextOps for text) and generated arguments to maxArg bytes:
// under go test -fuzz every exec also pays for the fuzzer's coverage
// bookkeeping. A raw op is read the same way everywhere (rawOp): by the
// arenas, and by CheckRun's decoder.
//
// # Workers
//
// Every target calls OneProcPerWorker before f.Fuzz: a go test -fuzz
// worker process gets one P (unless GOMAXPROCS is set), since the fuzzer
// runs one worker per core and extra Ps in a worker only compete with the
// other workers; and CheckScenario, in a worker, grows its goroutine's
// stack up front (growStack), since a worker runs every input on a new
// goroutine.
package fuzzinput
