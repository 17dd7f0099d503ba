// Package fuzzdecode is the byte decoder of fuzz inputs: it turns any bytes
// into a scenario, the same bytes always into the same scenario. The fuzz
// targets (package fuzz, sbxtest.Fuzz) judge what it decodes, and the
// command line reads crashers with it (sbxfuzz import), without linking
// testing or rapid.
//
// Decode's first byte picks the mode. Most values pick ModeArena: one of
// NumArenas grants and worlds that generators.Generate drew once (the
// project's dictionaries of hostile paths, host spellings, metadata names
// and budget edges), then ops, each of an attack class the input names —
// generators.Op aims it at that grant and world — or raw, so every attack
// class of SPEC §9 and any op is reachable without building a grant and
// world per input (each arena's world is prepared once,
// judge.PrepareWorld). 0xF8–0xFF pick ModeGenerated, a whole scenario
// generators.GenerateAtMost draws from the input, as a campaign does; '#'
// picks ModeText, .sbx text (how the committed corpus becomes seeds, and a
// way to write any grant, world and op). Scenarios are cut to MaxOps ops
// (MaxTextOps for text) and generated arguments to maxArg bytes: under go
// test -fuzz every exec also pays for the fuzzer's coverage bookkeeping.
//
// Read is Decode for a checker that judges the input and lets it go: the
// scenario stays in memory the decoder reuses for the next input, as a
// campaign worker's generator does.
package fuzzdecode
