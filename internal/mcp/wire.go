package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"

	"github.com/sbxfuzz/sbxfuzz/internal/proto"
)

// message is one JSON-RPC 2.0 message of MCP. Its id stays raw: a
// server's own requests may carry string ids, which must be echoed as
// they came.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *proto.Error    `json:"error,omitempty"`
}

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

// send writes m as one line. encoding/json escapes every control
// character inside strings, so the line holds no newline but its last.
func (s *Server) send(m message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = s.p.Stdin().Write(append(b, '\n'))
	return err
}

// notify sends a notification.
func (s *Server) notify(method string) error {
	if err := s.send(message{Method: method}); err != nil {
		return s.broken(fmt.Errorf("%s: writing to the MCP server: %v", method, err))
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
	want := strconv.AppendInt(nil, id, 10)
	if err := s.send(message{ID: want, Method: method, Params: p}); err != nil {
		return nil, fmt.Errorf("%s: writing to the MCP server: %v", method, err)
	}
	for {
		m, err := s.read()
		switch {
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil, fmt.Errorf("%s: %w", method, errExited)
		case err != nil:
			return nil, fmt.Errorf("%s: %v", method, err)
		case m.Method != "" && isNull(m.ID):
			// A notification (a log line, progress): nothing to answer.
		case m.Method != "":
			if err := s.send(s.answer(m)); err != nil {
				return nil, fmt.Errorf("%s: writing to the MCP server: %v", method, err)
			}
		case !bytes.Equal(bytes.TrimSpace(m.ID), want):
			return nil, fmt.Errorf("%s: a response with id %s, want %s%s", method, idWords(m.ID), want, errWords(m.Error))
		case m.Error != nil:
			return nil, &rpcError{method, *m.Error}
		case m.Result == nil:
			return nil, fmt.Errorf("%s: a response with neither result nor error", method)
		default:
			return m.Result, nil
		}
	}
}

// read reads one message. A line that is not JSON at all is skipped and
// counted (SkippedLines): servers print log lines on stdout, which stdio
// transports tolerate. A JSON line that is not a JSON-RPC 2.0 message,
// and a line that is not UTF-8, are errors quoting it.
func (s *Server) read() (*message, error) {
	for {
		line, err := s.out.Line()
		if err != nil {
			return nil, err
		}
		if !json.Valid(line) {
			s.skipped.Add(1)
			continue
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
			return nil, fmt.Errorf("not a JSON-RPC 2.0 message: %.80q", line)
		}
		return &m, nil
	}
}

// SkippedLines is how many lines of its stdout the server wrote that were
// not JSON (log lines), skipped rather than read as messages.
func (s *Server) SkippedLines() int64 { return s.skipped.Load() }

// answer is the response to a request of the server's: roots/list gets
// the allowed directories (the client declared no roots, so only a
// server that asks anyway gets them), ping gets {}, anything else
// method-not-found.
func (s *Server) answer(m *message) message {
	r := message{ID: m.ID}
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

func isNull(id json.RawMessage) bool {
	id = bytes.TrimSpace(id)
	return len(id) == 0 || string(id) == "null"
}

func idWords(id json.RawMessage) string {
	if isNull(id) {
		return "none"
	}
	return string(id)
}

// errWords adds the error a response with the wrong id carried: a server
// that could not read a request answers it with id null and says why.
func errWords(e *proto.Error) string {
	if e == nil {
		return ""
	}
	return fmt.Sprintf(" (an error: %d %s)", e.Code, e.Message)
}
