package door

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// JSONError places err, what a json.Decoder of data into into (a pointer
// to the value, whose type says which keys are known) said after reading
// off bytes of it, at a line and column of data, for a profile's error:
// the offending byte of a syntax error, the name of an unknown field (the
// first key no field of its object's type takes), the end of data cut
// short, else where the decoder stopped ("line 5 column 3: ...").
// Data with no JSON value at all (an empty file) says so instead of "EOF".
func JSONError(data []byte, off int64, err error, into any) error {
	if errors.Is(err, io.EOF) && len(bytes.TrimSpace(data)) == 0 {
		return errors.New("no JSON object: the file is empty")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off = se.Offset - 1 // Offset counts the offending byte
	} else if errors.Is(err, io.ErrUnexpectedEOF) {
		off = int64(len(data)) // the decoder's offset stays where the value began
	} else if strings.HasPrefix(err.Error(), "json: unknown field ") {
		if i := unknownKey(data, into); i >= 0 {
			off = int64(i)
		}
	}
	before := data[:max(0, min(int(off), len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}

// unknownKey returns the index in data of its first key, depth first in
// order, that a decoder into a new value of into's type refuses as an
// unknown field, or -1 when there is none. The error names the key but
// not the object it was in, and a name a known field has elsewhere must
// not be placed there. Each key is asked of encoding/json itself, so that
// its own rules (tags, case folding, embedded structs, maps) decide: the
// document of the key's path alone is decoded as data was (refused).
func unknownKey(data []byte, into any) int {
	t := reflect.TypeOf(into)
	if t == nil {
		return -1
	}
	var path []step
	dec := json.NewDecoder(bytes.NewReader(data))
	for {
		at := int(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return -1
		}
		if n := len(path); n > 0 && path[n-1].awaitsKey {
			if name, ok := tok.(string); ok {
				path[n-1].key, path[n-1].awaitsKey = name, false
				if refused(t, path) {
					return at + bytes.IndexByte(data[at:], '"')
				}
				continue
			}
		}
		switch tok {
		case json.Delim('{'):
			path = append(path, step{object: true, awaitsKey: true})
			continue
		case json.Delim('['):
			path = append(path, step{})
			continue
		case json.Delim('}'), json.Delim(']'):
			path = path[:len(path)-1]
		}
		// A value ended: an object's next token is a key.
		if len(path) == 0 {
			return -1
		}
		path[len(path)-1].awaitsKey = path[len(path)-1].object
	}
}

// step is one container on the way to a key: an object and its key (the
// last one read), or an array.
type step struct {
	object, awaitsKey bool
	key               string
}

// refused reports whether a decoder into a new value of type t, unknown
// fields refused, refuses the last key of path: the document of path
// alone (each object with its one key, each array with one element, null
// at the end) fails with an unknown field.
func refused(t reflect.Type, path []step) bool {
	var doc bytes.Buffer
	for _, s := range path {
		if !s.object {
			doc.WriteByte('[')
			continue
		}
		name, _ := json.Marshal(s.key)
		doc.WriteByte('{')
		doc.Write(name)
		doc.WriteByte(':')
	}
	doc.WriteString("null")
	for i := len(path) - 1; i >= 0; i-- {
		if path[i].object {
			doc.WriteByte('}')
		} else {
			doc.WriteByte(']')
		}
	}
	dec := json.NewDecoder(&doc)
	dec.DisallowUnknownFields()
	err := dec.Decode(reflect.New(t).Interface())
	return err != nil && strings.HasPrefix(err.Error(), "json: unknown field ")
}
