package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/url"
	"strconv"

	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// JSON-RPC error codes the client uses.
const (
	methodNotFound = -32601
)

// rpcError is a JSON-RPC error answer to one of our requests: the server
// is well, it refused the request.
type rpcError struct {
	method string
	e      proto.Error
}

func (e *rpcError) Error() string {
	return fmt.Sprintf("%s: the MCP server answered with an error: %d %s", e.method, e.e.Code, e.e.Message)
}

// errExited is the words for a server whose stdout closed.
var errExited = errors.New("the MCP server exited")

// send writes m to the server.
func (s *Server) send(m *proto.Message) error { return proto.Write(s.p.Stdin(), m) }

// notify sends a notification.
func (s *Server) notify(method string) error {
	if err := s.send(&proto.Message{Method: method}); err != nil {
		return s.broken(fmt.Errorf("%s: writing to the MCP server: %v%s", method, err, s.p.Ended()))
	}
	return nil
}

// exchange sends request id and reads until its response: the result, an
// *rpcError, or a failure of the server. Its own requests are answered
// and its notifications ignored meanwhile.
func (s *Server) exchange(id int64, method string, params any) (json.RawMessage, error) {
	p, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	want := proto.IntID(id)
	req := &proto.Message{ID: want, Method: method, Params: p}
	send, wait := s.send, func() error { return nil }
	if len(p) > syncWrite {
		var stop func()
		send, wait, stop = s.sendWhileReading(req)
		defer stop()
	} else if err := s.send(req); err != nil {
		return nil, fmt.Errorf("%s: writing to the MCP server: %v%s", method, err, s.p.Ended())
	}
	for {
		m, err := s.read()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%s: %w%s", method, errExited, s.p.Ended())
		case err != nil:
			return nil, fmt.Errorf("%s: %v", method, err)
		case m.Method != "" && m.ID.None():
			// A notification (a log line, progress): nothing to answer.
			if m.Method == "notifications/tools/list_changed" {
				s.toolsChanged.Store(true)
			}
			s.hear(m.Params)
		case m.ID.None() && m.Error != nil && m.Error.Code == methodNotFound && s.nullAnswer.Swap(false):
			// The answer to our notification (notifications/initialized)
			// of a server that answers every method it does not know, as
			// hand-written ones do: against JSON-RPC, but MCP's own
			// clients pass it over, and no request of ours went unread.
			// Once: a later one answers a request the server could not
			// read, an error at once, not a wait for the timeout.
		case m.Method != "":
			if err := send(s.answer(m)); err != nil {
				return nil, fmt.Errorf("%s: writing to the MCP server: %v%s", method, err, s.p.Ended())
			}
		case !m.ID.Equal(want) && !sameNumber(m.ID, id):
			return nil, fmt.Errorf("%s: a response with id %s, want %s%s%s", method, m.ID, want, proto.Unasked(m.ID, id), errWords(m.Error))
		case wait() != nil:
			// Answered, so the request was read whole: what failed is an
			// answer to one of its requests.
			return nil, fmt.Errorf("%s: writing to the MCP server: %v%s", method, wait(), s.p.Ended())
		case m.Error != nil:
			return nil, &rpcError{method, *m.Error}
		case m.Result == nil:
			return nil, fmt.Errorf("%s: a response with neither result nor error", method)
		default:
			return m.Result, nil
		}
	}
}

// syncWrite is the longest params of a request written before its answer
// is read: far less than a pipe holds on Linux or macOS, so that the
// write returns at once even when the server does not read. A longer one
// is written while the answer is read (sendWhileReading).
const syncWrite = 16 << 10

// sendWhileReading writes req in a goroutine of its own, so that the
// exchange reads the server's stdout meanwhile, and returns how the
// exchange sends its answers to the server's requests (after req, by the
// same goroutine), waits for every write to end, and lets the goroutine
// end once nothing more is sent (stop, which does not wait). A server
// that writes while it is idle (a timer's log notification, from node,
// whose writes to a pipe block) and was not read for a while is stuck in
// a write until its stdout is read, its stdin unread: a request longer
// than the pipe holds, written before anything is read, would wait for it
// and it for the request, until the call's timeout.
func (s *Server) sendWhileReading(req *proto.Message) (send func(*proto.Message) error, wait func() error, stop func()) {
	answers := make(chan *proto.Message, 16)
	done := make(chan error, 1)
	go func() {
		err := s.send(req)
		for m := range answers {
			if err == nil {
				err = s.send(m)
			}
		}
		done <- err
	}()
	var (
		stopped bool
		result  error
		waited  bool
	)
	stop = func() {
		if !stopped {
			stopped = true
			close(answers)
		}
	}
	send = func(m *proto.Message) error {
		answers <- m
		return nil
	}
	wait = func() error {
		if !waited {
			stop()
			result, waited = <-done, true
		}
		return result
	}
	return send, wait, stop
}

// read reads one message. A line that is not JSON at all is skipped and
// counted (SkippedLines): servers print log lines on stdout, which stdio
// transports tolerate. A JSON line that is not a JSON-RPC 2.0 message,
// and a line that is not UTF-8, are errors quoting it.
func (s *Server) read() (*proto.Message, error) {
	for {
		m, err := s.out.Read()
		var nj *proto.NotJSONError
		if errors.As(err, &nj) {
			if s.skipped.Add(1) == 1 {
				s.firstSkipped.Store(&nj.Start)
			}
			continue
		}
		return m, err
	}
}

// SkippedLines is how many lines of its stdout the server wrote that were
// not JSON (log lines), skipped rather than read as messages.
func (s *Server) SkippedLines() int64 { return s.skipped.Load() }

// withSkipped adds to err the count of the lines skipped and the start of
// the first: a server that answers in another framing, or prints its usage
// on stdout, only ever writes such lines, and a timeout alone would not
// say so.
func (s *Server) withSkipped(err error) error {
	n, first := s.skipped.Load(), s.firstSkipped.Load()
	if n == 0 || first == nil {
		return err
	}
	if n == 1 {
		return fmt.Errorf("%w; it wrote 1 line on stdout that is not JSON: %q", err, *first)
	}
	return fmt.Errorf("%w; it wrote %d lines on stdout that are not JSON, the first: %q", err, n, *first)
}

// answer is the response to a request of the server's: roots/list gets
// the allowed directories (the client declared no roots, so only a
// server that asks anyway gets them), ping gets {}, anything else
// method-not-found.
func (s *Server) answer(m *proto.Message) *proto.Message {
	r := &proto.Message{ID: m.ID}
	switch m.Method {
	case "ping":
		r.Result = json.RawMessage("{}")
	case "roots/list":
		type root struct {
			URI  string `json:"uri"`
			Name string `json:"name,omitempty"`
		}
		roots := []root{}
		for _, d := range s.cfg.Allowed {
			roots = append(roots, root{URI: (&url.URL{Scheme: "file", Path: d}).String()})
		}
		r.Result, _ = json.Marshal(map[string]any{"roots": roots})
	default:
		r.Error = &proto.Error{Code: methodNotFound, Message: "Method not found: " + m.Method}
	}
	return r
}

// errWords adds the error a response with the wrong id carried: a server
// that could not read a request answers it with id null and says why.
func errWords(e *proto.Error) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf(" (an error: %d %s)", e.Code, e.Message)
}

// sameNumber reports whether id is the number n written another way: a
// JSON number of the same value (2.0, 2e0: a Java server built on Gson
// reads every number as a double and writes it back so) or a string of
// its digits ("2": the TypeScript SDK's client reads a response's id with
// Number(), so a server that answers so works with it). Either answers
// request n as its author meant; only an id that is no spelling of n is
// a line nobody asked.
func sameNumber(id proto.ID, n int64) bool {
	text := string(id)
	if len(id) > 0 && id[0] == '"' {
		if json.Unmarshal(id, &text) != nil {
			return false
		}
		v, err := strconv.ParseInt(text, 10, 64)
		return err == nil && v == n
	}
	f, err := strconv.ParseFloat(text, 64)
	return err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 && int64(f) == n
}

// bom is the UTF-8 encoding of U+FEFF, the byte order mark.
var bom = []byte("\xef\xbb\xbf")

// withoutBOM is r without a byte order mark at its start: a server on
// .NET whose console writes UTF-8 with its preamble puts one before its
// first message, which would read as a line that is not JSON, skipped,
// and the answer to initialize with it. RFC 8259 lets a reader ignore it.
// It looks only when first read, within the call's timeout.
func withoutBOM(r io.Reader) io.Reader { return &bomless{r: bufio.NewReader(r)} }

type bomless struct {
	r       *bufio.Reader
	checked bool
}

func (b *bomless) Read(p []byte) (int, error) {
	if !b.checked {
		b.checked = true
		if start, _ := b.r.Peek(len(bom)); bytes.Equal(start, bom) {
			b.r.Discard(len(bom))
		}
	}
	return b.r.Read(p)
}

// maxHeard bounds what a call keeps of the notifications the server sent
// during it: a leak is in their first megabyte or not looked for, and a
// server that logs megabytes a call does not cost as much again in
// every op's judgement.
const maxHeard = 1 << 20

// hear keeps the strings of a notification's params, read during a call,
// for the call's Result.Carried: a log line or a progress message reaches
// the client as its answer does, and one that holds a file the grant
// forbids (a debug log of what the server read before it checked) has
// let the file out all the same.
func (s *Server) hear(params json.RawMessage) {
	if len(params) == 0 || len(s.heard) >= maxHeard {
		return
	}
	var v any
	if json.Unmarshal(params, &v) != nil {
		return
	}
	for _, str := range appendStrings(nil, v) {
		if len(s.heard)+len(str) > maxHeard {
			str = str[:maxHeard-len(s.heard)]
		}
		s.heard = append(append(s.heard, str...), '\n')
		if len(s.heard) >= maxHeard {
			return
		}
	}
}
