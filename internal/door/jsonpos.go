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
		if i := unknownKey(json.NewDecoder(bytes.NewReader(data)), data, reflect.TypeOf(into)); i >= 0 {
			off = int64(i)
		}
	}
	before := data[:max(0, min(int(off), len(data)))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return fmt.Errorf("line %d column %d: %w", line, col, err)
}

// unknownKey reads the next value of dec, from data, as one of type t
// (nil: any value) and returns the index in data of its first key that
// no field takes, as a decoder that refuses unknown fields meets them
// (depth first, in order), or -1 when there is none. The error names the
// key but not the object it was in, and a name a known field has
// elsewhere must not be placed there.
func unknownKey(dec *json.Decoder, data []byte, t reflect.Type) int {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t.Kind() == reflect.Interface || t.Implements(unmarshaler) || reflect.PointerTo(t).Implements(unmarshaler)) {
		t = nil // a value that decodes itself knows its own keys
	}
	tok, err := dec.Token()
	if err != nil {
		return -1
	}
	switch tok {
	case json.Delim('['):
		var elem reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			elem = t.Elem()
		}
		for dec.More() {
			if i := unknownKey(dec, data, elem); i >= 0 {
				return i
			}
		}
	case json.Delim('{'):
		for dec.More() {
			at := int(dec.InputOffset())
			tok, err := dec.Token()
			if err != nil {
				return -1
			}
			field, known := t, true
			if t != nil && t.Kind() == reflect.Struct {
				field, known = fieldType(t, tok.(string))
			} else if t != nil && t.Kind() == reflect.Map {
				field = t.Elem()
			}
			if !known {
				return at + bytes.IndexByte(data[at:], '"')
			}
			if i := unknownKey(dec, data, field); i >= 0 {
				return i
			}
		}
	default:
		return -1
	}
	dec.Token() // the closing bracket
	return -1
}

// unmarshaler is json.Unmarshaler's type.
var unmarshaler = reflect.TypeFor[json.Unmarshaler]()

// fieldType is the type of the field of struct t that key names, as
// encoding/json matches it (its tag's name, else its Go name, either
// case-folded; an embedded struct's fields as the struct's own), and
// whether there is one.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() && !f.Anonymous {
			continue
		}
		if name == "" && f.Anonymous {
			inner := f.Type
			if inner.Kind() == reflect.Pointer {
				inner = inner.Elem()
			}
			if inner.Kind() == reflect.Struct {
				if ft, ok := fieldType(inner, key); ok {
					return ft, true
				}
				continue
			}
		}
		if name == "" {
			name = f.Name
		}
		if strings.EqualFold(name, key) {
			return f.Type, true
		}
	}
	return nil, false
}
