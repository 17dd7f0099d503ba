//go:build unix

package proc

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/sbxfuzz/sbxfuzz/core"
	"github.com/sbxfuzz/sbxfuzz/internal/judge"
	"github.com/sbxfuzz/sbxfuzz/internal/must"
	"github.com/sbxfuzz/sbxfuzz/internal/proto"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

// TestLargeScenarioOverThePipe: a legal scenario whose file is 2 MB of
// control bytes — which JSON writes six bytes a byte, a 12 MB line each
// way — passes through the Go side of the protocol as it passes in
// process: no finding (it was a total finding, the serve side panicking
// on a line over the old 8 MiB cap).
func TestLargeScenarioOverThePipe(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 12 MB lines")
	}
	data := strings.Repeat("\x01", 2<<20)
	src := "grant fs_read /work/\nbudget output 16777216\nfile /work/big " + strconv.Quote(data) +
		"\nfs_read /work/big => ok " + strconv.Quote(data) + "\n"
	sc, err := scenario.Parse("big.sbx", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := judge.NewCase(sc)
	if err != nil {
		t.Fatal(err)
	}
	start, err := Sessions(roleCommand("serve"))
	if err != nil {
		t.Fatal(err)
	}
	f, end, _ := start()
	defer end()
	if got := judge.Check(f, c, nil, judge.Options{Timeout: patience}); len(got) > 0 {
		t.Fatalf("findings on the reference through the pipe: %.300v", got)
	}
}

// harnessSide drives Serve from the harness's end of two pipes.
type harnessSide struct {
	t    *testing.T
	in   *proto.Reader // what Serve writes
	out  io.WriteCloser
	done chan error
}

func serveInProcess(t *testing.T) *harnessSide {
	toServe, fromHarness := io.Pipe()
	fromServe, toHarness := io.Pipe()
	h := &harnessSide{t: t, in: proto.NewReader(fromServe), out: fromHarness, done: make(chan error, 1)}
	go func() {
		h.done <- Serve(toServe, toHarness, "in process", core.ReferenceFactory)
		toHarness.Close()
		toServe.Close()
	}()
	return h
}

func (h *harnessSide) send(line string) {
	h.t.Helper()
	go io.WriteString(h.out, line+"\n") // Serve may stop reading: never block the test on it
}

func (h *harnessSide) read() *proto.Message {
	h.t.Helper()
	m, err := h.in.Read()
	if err != nil {
		h.t.Fatalf("reading what serve wrote: %v", err)
	}
	return m
}

// TestServeEchoesIDs: serve answers each request with its id exactly as
// sent, a string as well as a number (JSON-RPC allows both; they were
// refused as "not a JSON-RPC 2.0 message").
func TestServeEchoesIDs(t *testing.T) {
	h := serveInProcess(t)
	for _, id := range []string{`7`, `"req-1"`, `"\u00fc"`, `-3`} {
		h.send(`{"jsonrpc":"2.0","id":` + id + `,"method":"initialize","params":{"protocol":"sbxfuzz/1"}}`)
		if m := h.read(); string(m.ID) != id || m.Error != nil {
			t.Errorf("the answer to id %s: id %s, error %v", id, m.ID, m.Error)
		}
	}
	h.send(`{"jsonrpc":"2.0","id":"bye","method":"shutdown"}`)
	if m := h.read(); string(m.ID) != `"bye"` {
		t.Errorf("the answer to shutdown: id %s", m.ID)
	}
	if err := <-h.done; err != nil {
		t.Errorf("Serve after shutdown: %v", err)
	}
}

// TestServeBrokenHarness: a harness that breaks the protocol while a world
// request of the sandbox is pending — a line over the limit, a line that
// is not UTF-8, a wrong id, an error, a closed stdin — makes Serve return
// an error that says so: never a panic, which printed a stack trace.
func TestServeBrokenHarness(t *testing.T) {
	for _, tc := range []struct {
		name, says string
		answer     func(h *harnessSide, id proto.ID)
	}{
		{"too long", "a line longer than the protocol's limit", func(h *harnessSide, _ proto.ID) {
			go func() {
				chunk := []byte(strings.Repeat("x", 1<<20))
				for range proto.MaxLine>>20 + 1 {
					if _, err := h.out.Write(chunk); err != nil {
						return
					}
				}
			}()
		}},
		{"not UTF-8", "not valid UTF-8", func(h *harnessSide, id proto.ID) {
			h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tick":"` + "\xff" + `"}}`)
		}},
		{"wrong id", "a response with id 99, want 1", func(h *harnessSide, _ proto.ID) {
			h.send(`{"jsonrpc":"2.0","id":99,"result":{"tick":0}}`)
		}},
		{"error", "the harness answered with an error: -1 no", func(h *harnessSide, id proto.ID) {
			h.send(`{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-1,"message":"no"}}`)
		}},
		{"closed", "the harness closed stdin", func(h *harnessSide, _ proto.ID) { h.out.Close() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := serveInProcess(t)
			h.send(`{"jsonrpc":"2.0","id":1,"method":"sandbox/open","params":{"grant":{"fs_read":[],"fs_write":[],"net":[],"tool":[],"budgets":{"ops":9,"wall":9,"output":9}}}}`)
			m := h.read()
			if m.Method != "world/now" {
				t.Fatalf("serve sent %+v, want its world/now", m)
			}
			tc.answer(h, m.ID)
			err := <-h.done
			if err == nil || !strings.Contains(err.Error(), tc.says) || !strings.HasPrefix(err.Error(), "world/now: ") {
				t.Fatalf("Serve: %v, want an error of world/now saying %q", err, tc.says)
			}
		})
	}
}

// TestServeAnswersASandboxPanic: a sandbox that panics is answered with
// an error object — a total finding on that op for the harness, as in
// process — and the server goes on.
func TestServeAnswersASandboxPanic(t *testing.T) {
	toServe, fromHarness := io.Pipe()
	fromServe, toHarness := io.Pipe()
	done := make(chan error, 1)
	panicky := func(g core.Grant, w core.World) (core.Sandbox, error) { return panicSandbox{}, nil }
	go func() { done <- Serve(toServe, toHarness, "panicky", panicky) }()
	in := proto.NewReader(fromServe)
	for i, req := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"sandbox/open","params":{"grant":{"fs_read":[],"fs_write":[],"net":[],"tool":[],"budgets":{"ops":9,"wall":9,"output":9}}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"sandbox/run","params":{"op":{"kind":"fs_read","args":["/a"]}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`,
	} {
		io.WriteString(fromHarness, req+"\n")
		m, err := in.Read()
		if err != nil {
			t.Fatal(err)
		}
		if want := i == 1; (m.Error != nil) != want || want && !strings.Contains(m.Error.Message, "the sandbox panicked: boom") {
			t.Fatalf("answer %d: %+v", i+1, m)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
}

type panicSandbox struct{}

func (panicSandbox) Run(core.Op) core.Result { panic("boom") }
func (panicSandbox) Usage() core.Usage       { return core.Usage{} }
func (panicSandbox) Grant() core.GrantView   { return must.Grant(core.GrantSpec{}) }
