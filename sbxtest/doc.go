// Package sbxtest fuzzes your own sandbox with sbxfuzz, from your own
// module's tests. Your sandbox is built over a core.World (every effect
// goes through it, so the oracle can judge what really happened) by a
// core.Factory; you describe it once with a Sandbox value and write three
// tests:
//
//	var sandbox = sbxtest.Sandbox{Name: "mine", Factory: mine.New}
//
//	// Go's fuzzer: structure-aware decoding of any bytes into a grant, a
//	// world and hostile ops, judged by every invariant of the oracle.
//	func FuzzSandbox(f *testing.F) { sbxtest.Fuzz(f, sandbox) }
//
//	// The scenarios of a 1,000-check campaign, every attack class.
//	func TestProperty(t *testing.T) { sbxtest.Property(t, sandbox) }
//
//	// Your committed reproducers, replayed as regression tests.
//	func TestCorpus(t *testing.T) { sbxtest.Replay(t, sandbox, "testdata/*.sbx") }
//
// A failure prints the minimized scenario as a .sbx file ready to paste
// into testdata/, saves it, and prints the command that replays it.
//
// For ClusterFuzzLite and OSS-Fuzz (go-118-fuzz-build), write the explicit
// form, whose body is one call into this package, alone in a _test.go file
// of your package itself (package mine, not mine_test: the shim builds it
// into the package):
//
//	func FuzzSandbox(f *testing.F) {
//		f.Fuzz(func(t *testing.T, data []byte) {
//			if err := sbxtest.CheckInput(sandbox, data); err != nil {
//				t.Fatal(err)
//			}
//		})
//	}
//
// To replay a reproducer with the sbxfuzz command line, and to run its
// campaigns and reports on your sandbox, build the command line with your
// sandbox in it (package sbxcli) and set Sandbox.Command to the way you run
// it.
package sbxtest
