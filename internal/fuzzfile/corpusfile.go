// Package fuzzfile reads and writes the files that hold fuzz inputs: go
// test -fuzz's corpus entries ("go test fuzz v1") and the crash and corpus
// files of a libFuzzer binary built by go-118-fuzz-build (ClusterFuzzLite,
// OSS-Fuzz), so that sbxfuzz import reads a crasher of either, and the seed
// corpora are written in both.
package fuzzfile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Layout is how a file on disk holds the input of a []byte fuzz target.
type Layout uint8

// The layouts ReadInput knows.
const (
	// LayoutGoFuzz is a corpus entry of go test -fuzz: the line
	// "go test fuzz v1", then one line per argument, []byte("...") or
	// string("...") with a Go-quoted literal.
	LayoutGoFuzz Layout = iota + 1
	// LayoutLibFuzzer is an input of a libFuzzer binary built by
	// go-118-fuzz-build, as ClusterFuzzLite and OSS-Fuzz store crashes: the
	// shim reads the target's []byte with go-fuzz-headers' GetBytes, so the
	// file is a 4-byte big-endian length n, then the bytes. The target gets
	// the n bytes after the prefix, except that n == 0 means 30 and an n
	// that is not exactly the number of bytes left is taken modulo it. A file
	// of fewer than five bytes never reaches the target.
	LayoutLibFuzzer
	// LayoutRaw is the bytes the target receives, as they are.
	LayoutRaw
)

var layoutNames = [...]string{LayoutGoFuzz: "go test fuzz v1", LayoutLibFuzzer: "libFuzzer (go-118-fuzz-build)", LayoutRaw: "raw"}

// String names the layout: "go test fuzz v1", "libFuzzer (go-118-fuzz-build)"
// or "raw".
func (l Layout) String() string {
	if int(l) < len(layoutNames) && l != 0 {
		return layoutNames[l]
	}
	return "unknown"
}

// goFuzzHeader starts every go test -fuzz corpus entry.
const goFuzzHeader = "go test fuzz v1"

// ErrNotInput is returned by ReadInput for files that hold no input a
// []byte fuzz target would run.
var ErrNotInput = errors.New("not a fuzz input")

// ReadInput returns the input a []byte fuzz target receives from file. With
// layout 0 it picks the layout: LayoutGoFuzz for a file that starts with
// the line "go test fuzz v1" (ended by LF or, as go test also reads it,
// CRLF), LayoutLibFuzzer otherwise. Errors unwrap to ErrNotInput.
func ReadInput(file []byte, layout Layout) ([]byte, Layout, error) {
	if layout == 0 {
		layout = LayoutLibFuzzer
		if bytes.HasPrefix(file, []byte(goFuzzHeader+"\n")) || bytes.HasPrefix(file, []byte(goFuzzHeader+"\r\n")) || string(file) == goFuzzHeader {
			layout = LayoutGoFuzz
		}
	}
	var (
		in  []byte
		err error
	)
	switch layout {
	case LayoutGoFuzz:
		in, err = decodeGoFuzz(file)
	case LayoutLibFuzzer:
		in, err = DecodeLibFuzzer(file)
	case LayoutRaw:
		in = file
	default:
		err = fmt.Errorf("%w: unknown layout %d", ErrNotInput, layout)
	}
	return in, layout, err
}

// decodeGoFuzz reads the one []byte or string argument of a go test fuzz v1
// file.
func decodeGoFuzz(file []byte) ([]byte, error) {
	lines := strings.Split(string(file), "\n")
	if strings.TrimSuffix(lines[0], "\r") != goFuzzHeader { // a CR, as go test accepts it: a CRLF checkout's
		return nil, fmt.Errorf("%w: line 1: want %q", ErrNotInput, goFuzzHeader)
	}
	var (
		in    []byte
		found int
	)
	for i, line := range lines[1:] {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lit, ok := strings.CutPrefix(line, "[]byte(")
		if !ok {
			lit, ok = strings.CutPrefix(line, "string(")
		}
		lit, ok2 := strings.CutSuffix(lit, ")")
		if !ok || !ok2 {
			return nil, fmt.Errorf("%w: line %d: want []byte(\"...\") or string(\"...\"), got %.40q", ErrNotInput, i+2, line)
		}
		s, err := strconv.Unquote(lit)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrNotInput, i+2, err)
		}
		in = []byte(s)
		found++
	}
	if found != 1 {
		return nil, fmt.Errorf("%w: %d arguments, want one ([]byte)", ErrNotInput, found)
	}
	return in, nil
}

// EncodeGoFuzz writes values ([]byte or string) as a go test fuzz v1
// corpus entry, as go test -fuzz itself does. It panics on other types.
func EncodeGoFuzz(values ...any) []byte {
	b := []byte(goFuzzHeader + "\n")
	for _, v := range values {
		switch v := v.(type) {
		case []byte:
			b = fmt.Appendf(b, "[]byte(%q)\n", v)
		case string:
			b = fmt.Appendf(b, "string(%q)\n", v)
		default:
			panic(fmt.Sprintf("fuzzfile.EncodeGoFuzz: a %T", v))
		}
	}
	return b
}

// DecodeLibFuzzer returns the []byte a go-118-fuzz-build target receives
// from the libFuzzer input file (see LayoutLibFuzzer).
func DecodeLibFuzzer(file []byte) ([]byte, error) {
	if len(file) < 5 {
		return nil, fmt.Errorf("%w: %d bytes: a go-118-fuzz-build target needs a 4-byte length and at least one byte more", ErrNotInput, len(file))
	}
	n := binary.BigEndian.Uint32(file)
	if n == 0 {
		n = 30
	}
	rest := file[4:]
	if left := uint32(len(rest)); n != left {
		n %= left
	}
	return rest[:n], nil
}

// EncodeLibFuzzer is DecodeLibFuzzer's inverse: a libFuzzer input file
// that gives the target exactly data.
func EncodeLibFuzzer(data []byte) []byte {
	if len(data) == 0 {
		return []byte{0, 0, 0, 2, 0} // 2 modulo the one byte left: nothing
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(data))), data...)
}
