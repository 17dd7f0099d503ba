// Package proto is the wire form of sbxfuzz/1 (SPEC §12): JSON-RPC 2.0, one
// message a line, byte strings that cross intact whatever their bytes, and
// integers beyond ±2^53 as decimal strings. The client (package proc) and
// the server (sbxfuzz serve) share it.
package proto

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Version is the protocol name sent in initialize.
const Version = "sbxfuzz/1"

// MaxLine bounds one message: a line longer than this is a protocol error,
// not a reason to buffer without end.
const MaxLine = 8 << 20

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

// Message is one JSON-RPC 2.0 message: a request (Method set; ID set
// unless a notification), or a response (Result or Error).
type Message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      *int64          `json:"id,omitempty"`
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

// Reader reads messages, one a line.
type Reader struct{ r *bufio.Reader }

// NewReader returns a Reader over r.
func NewReader(r io.Reader) *Reader { return &Reader{bufio.NewReaderSize(r, 64<<10)} }

// ErrLineTooLong is returned for a line over MaxLine.
var ErrLineTooLong = errors.New("a line longer than the protocol's limit")

// Read returns the next message. A line that is not a JSON-RPC 2.0
// message is an error that quotes its start.
func (r *Reader) Read() (*Message, error) {
	line, err := r.line()
	if err != nil {
		return nil, err
	}
	var m Message
	if err := json.Unmarshal(line, &m); err != nil || m.JSONRPC != "2.0" {
		return nil, fmt.Errorf("not a JSON-RPC 2.0 message: %.80q", line)
	}
	return &m, nil
}

// Line returns the next line without its newline, bounded by MaxLine like
// Read, for a JSON-RPC dialect whose messages Message does not fit (MCP,
// whose ids may be strings). The slice is the caller's.
func (r *Reader) Line() ([]byte, error) { return r.line() }

func (r *Reader) line() ([]byte, error) {
	var buf []byte
	for {
		chunk, err := r.r.ReadSlice('\n')
		if len(buf)+len(chunk) > MaxLine {
			return nil, ErrLineTooLong
		}
		buf = append(buf, chunk...)
		switch err {
		case nil:
			return buf[:len(buf)-1], nil
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

// Write writes m as one line.
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
