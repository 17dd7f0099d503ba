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
// the offending byte of a syntax error, the name of an unknown field,
// else where the decoder stopped ("line 5 column 3: ..."). Data with no
// JSON value at all (an empty file) says so instead of "EOF".
func JSONError(data []byte, off int64, err error) error {
	if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON object: the file is empty")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset counts the offending byte
	} else if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if i := bytes.Index(data, []byte(f)); i >= 0 {
			off = int64(i)
		}
	}
	before := data[:max(0, min(int(off), len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}
