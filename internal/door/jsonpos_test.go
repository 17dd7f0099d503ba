package door

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONErrorPlaces: an error is placed where the fault is, as a
// decoder that refuses unknown fields meets it: an unknown field at its
// name, not at a value spelled like it or at the same name as a known
// field of another object, before it or around it; a document cut short
// at its end.
func TestJSONErrorPlaces(t *testing.T) {
	type inner struct {
		Port int `json:"port"`
	}
	type doc struct {
		Name  string `json:"name"`
		Inner inner  `json:"inner"`
	}
	for _, tc := range []struct {
		reason, data, want string
	}{
		{"an unknown field", "{\"name\": \"x\",\n  \"bogus\": 1}", `line 2 column 3: json: unknown field "bogus"`},
		{"a value spelled as the unknown field", "{\"name\": \"port\",\n  \"port\": 1}", `line 2 column 3: json: unknown field "port"`},
		{"a value spelled as the unknown field, then a colon in a string", "{\"name\": \"port\", \"inner\": {},\n \"port\" : 1}", `line 2 column 2: json: unknown field "port"`},
		{"a known field of an object before it", "{\"inner\": {\"port\": 1},\n \"port\": 1}", `line 2 column 2: json: unknown field "port"`},
		{"a known field of the object around it", "{\"name\": \"x\", \"inner\": {\"port\": 1,\n  \"name\": 2}}", `line 2 column 3: json: unknown field "name"`},
		{"a known field in another case", "{\"NAME\": \"x\", \"Inner\": {\"Port\": 1}, \"inner\": {\n\"bogus\": 1}}", `line 2 column 1: json: unknown field "bogus"`},
		{"cut short", "\n\n  {\"name\":", `line 3 column 11: unexpected EOF`},
		{"a syntax error", "{\n  \"a\" 1}", `line 2 column 7: invalid character '1' after object key`},
	} {
		if got := placed(t, tc.data, new(doc)); got != tc.want {
			t.Errorf("%s: JSONError(%q) = %q, want %q", tc.reason, tc.data, got, tc.want)
		}
	}
}

// TestJSONErrorFollowsFieldPrecedence: the object an unknown key is met
// in is found by encoding/json's own choice of field: a name two embedded
// structs share at one depth is no field's, an outer field hides an
// embedded one, and a key matching one field exactly and another only
// case-folded is the exact one's.
func TestJSONErrorFollowsFieldPrecedence(t *testing.T) {
	type leaf struct {
		Port int `json:"port"`
	}
	type withX struct{ X leaf }
	type withY struct{ X leaf }
	type ambiguous struct {
		withX
		withY
	}
	type embedsMap struct {
		Inner map[string]int
	}
	type shadowed struct {
		embedsMap
		Inner leaf
	}
	type cased struct {
		Lower map[string]int `json:"inner"`
		Upper leaf           `json:"Inner"`
	}
	type doc struct {
		Amb   ambiguous `json:"amb"`
		Deep  shadowed  `json:"deep"`
		Cased cased     `json:"cased"`
	}
	for _, tc := range []struct{ reason, data, want string }{
		{"a name two embedded structs share", "{\"amb\": {\"X\": {\"port\": 1}}}", `line 1 column 10: json: unknown field "X"`},
		{"an outer field hides an embedded one", "{\"deep\": {\"Inner\": {\"x\": 1}}}", `line 1 column 21: json: unknown field "x"`},
		{"an exact name before a folded one", "{\"cased\": {\"Inner\": {\"y\": 1}}}", `line 1 column 22: json: unknown field "y"`},
	} {
		if got := placed(t, tc.data, new(doc)); got != tc.want {
			t.Errorf("%s: JSONError(%q) = %q, want %q", tc.reason, tc.data, got, tc.want)
		}
	}
}

// placed decodes data into v as a profile is decoded, unknown fields
// refused, and returns JSONError's words for the error it must meet.
func placed(t *testing.T, data string, v any) string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(data)))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		t.Fatalf("%q decodes", data)
	}
	return JSONError([]byte(data), dec.InputOffset(), err, v).Error()
}
