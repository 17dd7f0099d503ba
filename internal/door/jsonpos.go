package door

import (
	"bytes"
	"cmp"
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
// encoding/json chooses it: among the fields of t and of the structs it
// embeds (named by their tags, else their Go names), those of a name the
// shallowest win, a tagged one over untagged ones, and a name that two
// such fields share is no field's; the key matches a name exactly, else
// case-folded. It reports whether there is one.
func fieldType(t reflect.Type, key string) (reflect.Type, bool) {
	var fields []jsonField
	collectFields(t, 0, &fields)
	for _, match := range []func(string) bool{
		func(name string) bool { return name == key },
		func(name string) bool { return strings.EqualFold(name, key) },
	} {
		for _, f := range fields {
			if !match(f.name) {
				continue
			}
			if d, ok := dominant(fields, f.name); ok {
				return d.typ, true
			}
		}
	}
	return nil, false
}

// jsonField is a field as encoding/json decodes into it: its name, its
// type, how deep in embedded structs it lies, and whether a tag names it.
type jsonField struct {
	name   string
	typ    reflect.Type
	depth  int
	tagged bool
}

// maxEmbedding bounds collectFields: a struct that embeds a pointer to
// itself would never end.
const maxEmbedding = 16

// collectFields appends the fields of struct t, at depth, to out, and
// those of the structs it embeds without a name, one deeper.
func collectFields(t reflect.Type, depth int, out *[]jsonField) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case f.Anonymous && name == "" && ft.Kind() == reflect.Struct:
			if depth < maxEmbedding {
				collectFields(ft, depth+1, out)
			}
			continue
		case !f.IsExported():
			continue
		}
		*out = append(*out, jsonField{name: cmp.Or(name, f.Name), typ: f.Type, depth: depth, tagged: name != ""})
	}
}

// dominant is the field of fields named name that encoding/json decodes
// into: the only one at the shallowest depth, or the only tagged one
// there; none when the name is ambiguous.
func dominant(fields []jsonField, name string) (jsonField, bool) {
	var best []jsonField
	for _, f := range fields {
		switch {
		case f.name != name:
		case len(best) == 0 || f.depth < best[0].depth:
			best = []jsonField{f}
		case f.depth == best[0].depth:
			best = append(best, f)
		}
	}
	if len(best) == 1 {
		return best[0], true
	}
	var tagged []jsonField
	for _, f := range best {
		if f.tagged {
			tagged = append(tagged, f)
		}
	}
	if len(tagged) == 1 {
		return tagged[0], true
	}
	return jsonField{}, false
}
