package mcp

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/sbxfuzz/sbxfuzz/internal/door"
)

// Result is the answer to a tools/call.
type Result struct {
	// Text is the text items of its content, joined; where it has none,
	// the content of the resources embedded in it (a blob decoded), MCP's
	// own way of giving a file. For a JSON-RPC error, its message.
	Text    string
	IsError bool // the result had isError, or the server answered with a JSON-RPC error
	Code    int  // the JSON-RPC error code; 0 for a result
	// Carried is what else it carries that may hold a file's bytes, each
	// part on a line of its own: embedded resources beside text items,
	// image and audio data decoded, the strings of its
	// structuredContent, and those of the notifications the server sent
	// during the call (its logs, its progress). It is never taken for
	// words or a file's content, only looked through for a forbidden file.
	Carried string
}

// item is one item of a tool result's content, of any of MCP's types.
// Only a text item must have the protocol's shape: the parts of the
// others are taken where they are strings and left where they are not,
// as they were before any of them was read.
type item struct {
	Type     string
	Text     string
	Data     any // an image's or audio's bytes, in base64
	Resource any // an embedded resource: its text, or its blob in base64
}

// appendStrings appends the strings in v, a decoded JSON value, in the
// order they stand (an object's by key): a file's content in
// structuredContent is found as it was, not as JSON escapes it.
func appendStrings(to []string, v any) []string {
	switch v := v.(type) {
	case string:
		return append(to, v)
	case []any:
		for _, e := range v {
			to = appendStrings(to, e)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			to = appendStrings(to, v[k])
		}
	}
	return to
}

// decoded is s, base64 as MCP sends bytes, decoded; s itself where it is
// not base64, so that what it holds is still looked through.
func decoded(s string) string {
	if b, err := base64.StdEncoding.DecodeString(s); err == nil {
		return string(b)
	}
	return s
}

// CallTool calls tool with args (any JSON values) and returns its answer.
// A tool that fails is a Result with IsError; an error is a failure of
// the server itself, after which it is unusable.
func (s *Server) CallTool(tool string, args map[string]any) (Result, error) {
	var (
		raw   json.RawMessage
		heard string // what its notifications said meanwhile
	)
	err := s.call("tools/call", map[string]any{"name": tool, "arguments": args}, &raw, s.timeout(), &heard)
	if s.handedOut.Swap(false) {
		// The first call of a scenario on a server kept from another: a
		// notification it wrote after its last answer there (a log of
		// what it returned) is read now, and would be judged against
		// this world's files. What this call itself logged is lost with
		// it; later calls are heard whole.
		heard = ""
	}
	var rpc *rpcError
	switch {
	case errors.As(err, &rpc) && rpc.e.Code == methodNotFound:
		// The tool's refusal is a result; a server that knows neither
		// tools/call nor the tool it listed cannot answer any op.
		return Result{}, s.broken(fmt.Errorf("%w (tool %s)", err, tool))
	case errors.As(err, &rpc):
		return Result{Text: rpc.e.Message, IsError: true, Code: rpc.e.Code, Carried: heard}, nil
	case err != nil:
		return Result{}, err
	}
	var r toolResult
	if err := json.Unmarshal(raw, &r); err != nil {
		return Result{}, s.broken(fmt.Errorf("tools/call: a result that does not read: %v", unreadable(err)))
	}
	if r.Content == nil && r.Structured == nil && !r.IsError {
		// MCP requires content: an answer of nothing is no success.
		return Result{}, s.broken(fmt.Errorf("tools/call: a result without content: %.200s", raw))
	}
	res := r.result()
	if heard != "" {
		res.Carried = strings.TrimPrefix(res.Carried+"\n"+heard, "\n")
	}
	return res, nil
}

// toolResult is a tools/call result as MCP sends it.
type toolResult struct {
	Content    []item
	IsError    bool `json:"isError"`
	Structured any  `json:"structuredContent"`
}

// result sorts r's parts into a Result.
func (r toolResult) result() Result {
	res := Result{IsError: r.IsError}
	var embedded, carried []string
	for _, c := range r.Content {
		switch {
		case c.Type == "text":
			res.Text += c.Text
		case c.Type == "resource":
			if r, ok := c.Resource.(map[string]any); ok {
				text, _ := r["text"].(string)
				blob, _ := r["blob"].(string)
				embedded = append(embedded, text+decoded(blob))
			}
		default:
			if data, ok := c.Data.(string); ok {
				carried = append(carried, decoded(data))
			}
		}
	}
	if res.Text == "" {
		res.Text = strings.Join(embedded, "")
	} else {
		carried = append(embedded, carried...)
	}
	carried = appendStrings(carried, r.Structured)
	res.Carried = strings.Join(carried, "\n")
	return res
}

// Fetch calls the profile's fetch tool for url. A refusal is a Result,
// as CallTool's; the caller judges the fetch by what the server's
// namespace saw, not by the words.
func (s *Server) Fetch(url string) (Result, error) {
	t := s.Profile().Fetch
	if t.Name == "" {
		return Result{}, fmt.Errorf("profile %s has no fetch tool", s.Profile().Name)
	}
	args, err := t.arguments(url, "")
	if err != nil { // check refused such a profile
		return Result{}, fmt.Errorf("profile %s: %v", s.Profile().Name, err)
	}
	return s.CallTool(t.Name, args)
}

func (s *Server) timeout() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cfg.Timeout
}

// setClient takes the client-side part of cfg, which a running server
// does not depend on: the profile and the timeouts.
func (s *Server) setClient(cfg Config) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cfg.Profile, s.cfg.Timeout, s.cfg.StartTimeout = cfg.Profile, cfg.Timeout, cfg.StartTimeout
}

// broken marks the server unusable for err, kills its process group, and
// returns err with the lines it skipped and the tail of its stderr.
func (s *Server) broken(err error) error {
	s.mu.Lock()
	if s.dead == nil {
		s.dead = err
	}
	s.mu.Unlock()
	s.p.Kill()
	return s.p.WithStderr(s.withSkipped(err))
}

// call sends a request and reads until its response, answering the
// server's own requests meanwhile (and, given heard, setting it to what
// its notifications said meanwhile: Server.hear), within timeout: past it the process
// group is killed, which makes the read return. A JSON-RPC error answer
// is an *rpcError and leaves the server usable; any other error breaks it.
func (s *Server) call(method string, params, result any, timeout time.Duration, heard ...*string) error {
	s.calling.Lock()
	defer s.calling.Unlock()
	if len(heard) > 0 {
		defer func() { *heard[0] = string(s.heard) }()
	}
	if err := s.Err(); err != nil {
		return err
	}
	s.id++
	s.heard = s.heard[:0]
	t := time.AfterFunc(timeout, s.p.Kill)
	raw, err := s.exchange(s.id, method, params)
	s.nullAnswer.Store(false) // an answer to notifications/initialized comes before the next call's
	if !t.Stop() {
		// Killed, though perhaps only after the answer arrived: the
		// server is gone either way.
		err = door.Timeout(fmt.Errorf("%s: %w within %v", method, ErrTimeout, timeout))
	}
	var rpc *rpcError
	switch {
	case errors.As(err, &rpc):
		return err
	case err != nil:
		return s.broken(err)
	case result != nil:
		if err := json.Unmarshal(raw, result); err != nil {
			return s.broken(fmt.Errorf("%s: a result that does not read: %v", method, unreadable(err)))
		}
	}
	return nil
}

// unreadable says why a result did not decode in MCP's words where it
// can: a field of another JSON type than the protocol's ("content.text
// is a JSON object, not a string": a server that put a fetched JSON
// body there as it was parsed).
func unreadable(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return fmt.Errorf("its %s is a JSON %s, not a %s", strings.ToLower(te.Field), te.Value, te.Type)
	}
	return err
}
