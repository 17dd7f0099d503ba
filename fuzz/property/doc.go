// Package property holds FuzzProperty, sbxfuzz's main rapid property
// (sbxtest.PropertyOf) under the Go fuzzer, on the sandbox SBXFUZZ_SUT
// names:
//
//	go test -run '^$' -fuzz '^FuzzProperty$' ./fuzz/property
//
// It is a package of its own, not one of package fuzz's targets, because
// the Go fuzzer reads and resets every coverage counter of a test binary
// around each exec, and rapid and sbxtest linked into package fuzz's binary
// would make every exec of every target there cost more.
package property
