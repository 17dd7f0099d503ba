// Package proto is the JSON-RPC 2.0 codec of both doors to an external
// sandbox: one message a line, of at most MaxLine bytes, valid UTF-8;
// requests, notifications and responses (a result or an error) in one
// Message; ids of either JSON type, kept as sent so that an answer echoes
// them exactly, a number of any size included.
//
// sbxfuzz/1 (SPEC §12) is spoken over it by the client (package proc) and
// the server (sbxfuzz serve), with its params and results here too: byte
// strings that cross intact whatever their bytes, and integers beyond
// ±2^53 as decimal strings. MCP over stdio (package mcp) is read with it
// too; an MCP server may print log lines among its messages, which Read
// tells apart (ErrNotJSON) so that the client can skip them.
package proto

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"unicode/utf8"
)

// Version is the protocol name sent in initialize.
const Version = "sbxfuzz/1"

// MaxByteString is the most bytes the byte strings of one message of a
// legal scenario add up to. Every datum of a scenario — a file, an op's
// arguments, a body, a tool's output — is written in its .sbx text with at
// least one byte of text per byte of data, and a scenario file is at most
// 16 MiB (fsutil.MaxInput; a test holds the two together), so no message
// carries more: an answer carries one datum, a request one op's arguments.
const MaxByteString = 16 << 20

// maxEscape is the most bytes a JSON writer spends on one byte of a byte
// string: a control byte is written \u0001, six bytes, by encoding/json,
// Python's json and JavaScript's JSON.stringify alike; every other byte
// costs less (Python's \ud83d\ude00 spends twelve on four).
const maxEscape = 6

// MaxLine bounds one message: a line longer than this is a protocol error,
// not a reason to buffer without end. It is the longest line a legal
// scenario can make — every byte string escaped at the most a JSON writer
// spends, plus a megabyte for the rest of the message — so that a sandbox
// correct by the SPEC is never blamed for the size of what it was asked.
const MaxLine = maxEscape*MaxByteString + 1<<20

// Bytes is a byte string: a JSON string when its bytes are valid UTF-8,
// else {"b64": "<standard base64>"}. Both forms are read everywhere.
type Bytes string

// MarshalJSON implements json.Marshaler.
func (b Bytes) MarshalJSON() ([]byte, error) {
	if utf8.ValidString(string(b)) {
		return json.Marshal(string(b))
	}
	return json.Marshal(struct {
		B64 string `json:"b64"`
	}{base64.StdEncoding.EncodeToString([]byte(b))})
}

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bytes) UnmarshalJSON(data []byte) error {
	if len(data) > 0 && data[0] == '"' {
		if loneSurrogate(data) {
			return fmt.Errorf("a byte string that escapes half a UTF-16 surrogate pair, which stands for no bytes: %.40s", data)
		}
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*b = Bytes(s)
		return nil
	}
	var o struct {
		B64 *string `json:"b64"`
	}
	if err := json.Unmarshal(data, &o); err != nil || o.B64 == nil {
		return fmt.Errorf("a byte string is a JSON string or {\"b64\": ...}, not %.40s", data)
	}
	raw, err := base64.StdEncoding.DecodeString(*o.B64)
	if err != nil {
		return fmt.Errorf("b64: %v", err)
	}
	*b = Bytes(raw)
	return nil
}

// loneSurrogate reports whether the JSON string literal s escapes half of
// a UTF-16 surrogate pair without the other half (\ud800 alone, say).
// encoding/json decodes one as U+FFFD: bytes the sender never meant, where
// a byte string must cross intact (invalid UTF-8 travels as b64).
func loneSurrogate(s []byte) bool {
	if !bytes.Contains(s, []byte(`\u`)) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		i++
		r, ok := escapedUnit(s, i)
		if !ok {
			continue
		}
		i += 4
		switch {
		case r >= 0xdc00 && r <= 0xdfff:
			return true // a low half with no high half before it
		case r >= 0xd800 && r <= 0xdbff:
			if i+2 >= len(s) || s[i+1] != '\\' {
				return true
			}
			if low, ok := escapedUnit(s, i+2); !ok || low < 0xdc00 || low > 0xdfff {
				return true
			}
			i += 6
		}
	}
	return false
}

// escapedUnit reads the UTF-16 unit of the escape \uXXXX whose 'u' is at
// s[i]; ok is false for any other escape.
func escapedUnit(s []byte, i int) (rune, bool) {
	if i+4 >= len(s) || s[i] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range s[i+1 : i+5] {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c|0x20 >= 'a' && c|0x20 <= 'f':
			c = (c | 0x20) - 'a' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

// Int is an integer: a JSON number within ±2^53, else a decimal string.
// Both forms are read.
type Int int64

const maxExact = 1 << 53

// MarshalJSON implements json.Marshaler.
func (n Int) MarshalJSON() ([]byte, error) {
	if n >= -maxExact && n <= maxExact {
		return strconv.AppendInt(nil, int64(n), 10), nil
	}
	return strconv.AppendQuote(nil, strconv.FormatInt(int64(n), 10)), nil
}

// UnmarshalJSON implements json.Unmarshaler.
func (n *Int) UnmarshalJSON(data []byte) error {
	s := string(data)
	if len(data) > 0 && data[0] == '"' {
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("an integer is a JSON number or a decimal string within int64, not %.40s", data)
	}
	*n = Int(v)
	return nil
}

// ID is a JSON-RPC request id as it was sent: a JSON number or string (or
// null), kept as its JSON text so that a response echoes it exactly. The
// zero ID is no id: a notification. sbxfuzz/1's harness numbers its
// requests, but a child, or an MCP server, may use strings.
type ID []byte

// IntID is the id n.
func IntID(n int64) ID { return strconv.AppendInt(nil, n, 10) }

// Equal reports whether id and o are the same id: the same number as
// written, or the same string however it is escaped.
func (id ID) Equal(o ID) bool {
	if bytes.Equal(id, o) {
		return true
	}
	if len(id) == 0 || len(o) == 0 || id[0] != '"' || o[0] != '"' {
		return false
	}
	var a, b string
	return json.Unmarshal(id, &a) == nil && json.Unmarshal(o, &b) == nil && a == b
}

// None reports whether id is no id: absent, or null. A request without
// one is a notification; a response without one answers a request its
// peer could not read.
func (id ID) None() bool { return len(id) == 0 || string(id) == "null" }

// Unasked is what a response with id says when a peer numbering its
// requests 1, 2, 3 … up to last never sent that id, or "": the other side
// wrote what nobody asked on the stream its answers come on, as one that
// echoes an argument it is given there (a log line of a path) does, which
// lets the argument forge its answers. A response with no id is the
// other side's word that it could not read a request.
//
// An id that is such a number spelled another way (a string of its
// digits, 2.0, 2e0) answers that request with its id rewritten, which
// the words say instead.
func Unasked(id ID, last int64) string {
	if id.None() {
		return " (no id: JSON-RPC's answer to a request the server could not read)"
	}
	if n, err := strconv.ParseInt(string(id), 10, 64); err == nil && n >= 1 && n <= last {
		return ""
	}
	if n, ok := spelledNumber(id); ok && n >= 1 && n <= last {
		return fmt.Sprintf(" (the id of request %d, written otherwise: an answer echoes its request's id as it was sent)", n)
	}
	return " (no request had that id: a line written unasked on the stream the answers come on; a sandbox that writes an argument it is given there lets the argument forge its answers)"
}

// spelledNumber reads id as a whole number however it is spelled: a JSON
// number (2, 2.0, 2e0) or a string of decimal digits ("2").
func spelledNumber(id ID) (int64, bool) {
	text := string(id)
	if len(id) > 0 && id[0] == '"' {
		if json.Unmarshal(id, &text) != nil {
			return 0, false
		}
		n, err := strconv.ParseInt(text, 10, 64)
		return n, err == nil
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || f != math.Trunc(f) || math.Abs(f) > maxExact {
		return 0, false
	}
	return int64(f), true
}

// String returns the id as JSON text, or "none".
func (id ID) String() string {
	if id.None() {
		return "none"
	}
	return string(id)
}

// MarshalJSON implements json.Marshaler.
func (id ID) MarshalJSON() ([]byte, error) {
	if len(id) == 0 {
		return []byte("null"), nil
	}
	return id, nil
}

// errBadID is the error for an id of a type JSON-RPC 2.0 does not allow.
var errBadID = errors.New("an id that is neither a number nor a string")

// UnmarshalJSON implements json.Unmarshaler: a number, a string or null;
// JSON-RPC 2.0 allows no other id.
func (id *ID) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || !(data[0] == '"' || data[0] == '-' || data[0] >= '0' && data[0] <= '9' || string(data) == "null") {
		return errBadID
	}
	*id = append(ID(nil), data...)
	return nil
}

// Message is one JSON-RPC 2.0 message: a request (Method set; ID set
// unless a notification), or a response (Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      ID              `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
}

// Error is a JSON-RPC error object.
type Error struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

// Reader reads messages, one a line, of at most MaxLine bytes.
type Reader struct {
	r     *bufio.Reader
	limit int // MaxLine, but for the tests of the limit itself
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader { return &Reader{bufio.NewReaderSize(r, 64<<10), MaxLine} }

// ErrLineTooLong is returned for a line of more than MaxLine bytes (its
// newline not counted). The Reader is then in the middle of that line:
// the peer broke the protocol, and nothing more is read from it.
var ErrLineTooLong = errors.New("a line longer than the protocol's limit")

// ErrNotUTF8 is returned for a line that is not valid UTF-8. The wire is
// UTF-8 (SPEC §12): a JSON decoder would replace the bad bytes with U+FFFD
// and read something the sender never wrote; byte strings that are not
// UTF-8 travel as {"b64": ...}.
var ErrNotUTF8 = errors.New("a line that is not valid UTF-8")

// ErrNotJSON is wrapped by Read's error for a line that is not JSON at
// all. The line is consumed and the next Read reads the next one: a
// dialect whose peers print log lines on the same stream (MCP over stdio)
// skips such lines, where sbxfuzz/1 gives up.
var ErrNotJSON = errors.New("not JSON")

// NotJSONError is Read's error for a line that is not JSON at all; it is
// ErrNotJSON (errors.Is), and it keeps the line's start, for a client that
// skips such lines to show one.
type NotJSONError struct {
	Start string // the line's first bytes, at most notJSONStart of them
}

// notJSONStart bounds NotJSONError.Start: a log line, not a megabyte.
const notJSONStart = 80

func (e *NotJSONError) Error() string {
	return fmt.Sprintf("not a JSON-RPC 2.0 message: %q (%v)", e.Start, ErrNotJSON)
}

// Is makes a NotJSONError ErrNotJSON.
func (e *NotJSONError) Is(target error) bool { return target == ErrNotJSON }

// Read returns the next message. A line that is not a JSON-RPC 2.0
// message is an error that quotes its start.
func (r *Reader) Read() (*Message, error) {
	line, err := r.line()
	if err != nil {
		return nil, err
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
		switch {
		case errors.Is(err, errBadID):
			return nil, fmt.Errorf("not a JSON-RPC 2.0 message: %w: %.80q", errBadID, line)
		case err != nil && !json.Valid(line):
			return nil, &NotJSONError{Start: string(line[:min(len(line), notJSONStart)])}
		}
		return nil, fmt.Errorf("not a JSON-RPC 2.0 message: %.80q", line)
	}
	return &m, nil
}

// Buffered returns how many bytes have been read from the stream but not
// yet returned: more than zero after a message means the other side wrote
// on without waiting for its turn.
func (r *Reader) Buffered() int { return r.r.Buffered() }

// line returns the next line without its newline, bounded by the limit
// and checked for UTF-8.
func (r *Reader) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		n := len(buf) + len(chunk)
		if err == nil {
			n-- // the newline
		}
		if n > r.limit {
			return nil, ErrLineTooLong
		}
		buf = append(buf, chunk...)
		switch err {
		case nil:
			line := buf[:len(buf)-1]
			if !utf8.Valid(line) {
				return nil, fmt.Errorf("%w (at byte %d): %.80q", ErrNotUTF8, validPrefix(line), line)
			}
			return line, nil
		case bufio.ErrBufferFull:
			continue
		case io.EOF:
			if len(buf) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// validPrefix returns the length of the longest valid UTF-8 prefix of b.
func validPrefix(b []byte) int {
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if r == utf8.RuneError && size <= 1 {
			return n
		}
		n += size
	}
	return n
}

// Write writes m as one line, with jsonrpc set: encoding/json escapes
// every control character inside strings, so the line holds no newline
// but its last.
func Write(w io.Writer, m *Message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Params and results of the methods, SPEC §12.
type (
	// Grant is a grant as sandbox/open sends it and sandbox/grant answers.
	Grant struct {
		FSRead  []Bytes `json:"fs_read"`
		FSWrite []Bytes `json:"fs_write"`
		Net     []Bytes `json:"net"`
		Tool    []Bytes `json:"tool"`
		Budgets Budgets `json:"budgets"`
	}
	// Budgets are a grant's three budgets.
	Budgets struct {
		Ops    Int `json:"ops"`
		Wall   Int `json:"wall"`
		Output Int `json:"output"`
	}
	// Op is an op to run.
	Op struct {
		Kind Bytes   `json:"kind"`
		Args []Bytes `json:"args"`
	}
	// Result is sandbox/run's answer.
	Result struct {
		Kind  string  `json:"kind"`
		Hard  bool    `json:"hard"`
		Data  Bytes   `json:"data"`
		Usage Budgets `json:"usage"`
	}
	// Tick is world/now's answer; Past says the tick would pass 2^63−1
	// (SPEC §7), which halts max_wall.
	Tick struct {
		Tick Int  `json:"tick"`
		Past bool `json:"past,omitempty"`
	}
	// Answer is the answer to a world request: one of the fields, or Absent.
	Answer struct {
		Data   *Bytes `json:"data,omitempty"`
		Body   *Bytes `json:"body,omitempty"`
		Output *Bytes `json:"output,omitempty"`
		Path   *Bytes `json:"path,omitempty"`
		Addr   string `json:"addr,omitempty"`
		Absent bool   `json:"absent,omitempty"`
	}
	// WorldParams are the params of every world request.
	WorldParams struct {
		Path  Bytes  `json:"path,omitempty"`
		Data  Bytes  `json:"data,omitempty"`
		Host  Bytes  `json:"host,omitempty"`
		Addr  string `json:"addr,omitempty"`
		Name  Bytes  `json:"name,omitempty"`
		Input Bytes  `json:"input,omitempty"`
	}
)
