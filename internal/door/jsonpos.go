package door

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// JSONError places err, what a json.Decoder of data said after reading
// off bytes of it, at a line and column of data, for a profile's error:
// the offending byte of a syntax error, the name of an unknown field (its
// first place as a key: a value spelled as it is no key), the end of data
// cut short, else where the decoder stopped ("line 5 column 3: ...").
// Data with no JSON value at all (an empty file) says so instead of "EOF".
func JSONError(data []byte, off int64, err error) error {
	if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON object: the file is empty")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset counts the offending byte
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(data)) // the decoder's offset stays where the value began
	} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := keyIndex(data, []byte(f)); i >= 0 {
			off = int64(i)
		}
	}
	before := data[:max(0, min(int(off), len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}

// keyIndex is the index in data of the first place the quoted name stands
// as an object's key: followed, after white space, by a colon. A string
// value spelled as it is followed by a comma or a closing bracket. -1 when
// there is none.
func keyIndex(data, quoted []byte) int {
	for from := 0; ; {
		i := bytes.Index(data[from:], quoted)
		if i < 0 {
			return -1
		}
		i += from
		rest := bytes.TrimLeft(data[i+len(quoted):], " \t\r\n")
		if len(rest) > 0 && rest[0] == ':' {
			return i
		}
		from = i + 1
	}
}
