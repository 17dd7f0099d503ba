//go:build unix

package proc

import (
	"os"
	"os/exec"
	"sync"
	"syscall"
	"testing"
)

// echoEnv makes the test binary an echo child: it copies its stdin to its
// stdout with raw, blocking read and write calls, and nothing else.
const echoEnv = "SBXFUZZ_PROC_ECHO"

func init() {
	if os.Getenv(echoEnv) != "1" {
		return
	}
	buf := make([]byte, 4096)
	for {
		n, err := syscall.Read(0, buf)
		if n <= 0 || err != nil {
			os.Exit(0)
		}
		syscall.Write(1, buf[:n])
	}
}

// BenchmarkPipeCeiling measures the most round trips per second two pairs
// of processes can make over pipes on this machine, each side doing
// nothing but a blocking write of one protocol-sized line and a blocking
// read of the answer: the ceiling of any sbxfuzz/1 child, which needs
// about four round trips a checked op (docs/benchmarks.md has the figures).
//
//	go test -run '^$' -bench PipeCeiling ./internal/proc
func BenchmarkPipeCeiling(b *testing.B) {
	const pairs = 2
	msg := []byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n")
	var wg sync.WaitGroup
	b.ResetTimer()
	for p := 0; p < pairs; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			toChild, fromParent, err := os.Pipe()
			if err != nil {
				b.Error(err)
				return
			}
			fromChild, toParent, err := os.Pipe()
			if err != nil {
				b.Error(err)
				return
			}
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), echoEnv+"=1")
			cmd.Stdin, cmd.Stdout = toChild, toParent
			if err := cmd.Start(); err != nil {
				b.Error(err)
				return
			}
			toChild.Close()
			toParent.Close()
			// Raw descriptors: the os.File methods go through the poller, which
			// adds a wake-up to every round trip.
			w, r := int(fromParent.Fd()), int(fromChild.Fd())
			syscall.SetNonblock(w, false)
			syscall.SetNonblock(r, false)
			buf := make([]byte, 256)
			for i := 0; i < b.N; i++ {
				syscall.Write(w, msg)
				syscall.Read(r, buf)
			}
			fromParent.Close()
			cmd.Wait()
			fromChild.Close()
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds(), "roundtrips/s")
	b.ReportMetric(float64(pairs*b.N)/b.Elapsed().Seconds()/4.06, "ceiling-ops/s")
}
