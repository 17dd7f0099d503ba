// Package fuzzcheck holds the bodies of sbxfuzz's fuzz targets, as plain
// functions: package fuzz's targets are each one call into this package,
// so that they build for libFuzzer with go-118-fuzz-build unchanged.
//
//	CheckScenario  FuzzScenario: any bytes decoded (package fuzzdecode) into a
//	               scenario, judged by the full oracle on the sandbox
//	               SBXFUZZ_SUT names, any --sut value (internal/sut's registry)
//	CheckParse     FuzzParse: .sbx parse → format → parse
//	CheckPaths     FuzzPaths: SPEC §4's path helpers of core against a
//	               formulation written from the SPEC's words
//	CheckResolve   FuzzResolve: core's inet_aton parser against one written
//	               from glibc's documented rules
package fuzzcheck
