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
		dec := json.NewDecoder(bytes.NewReader([]byte(tc.data)))
		dec.DisallowUnknownFields()
		var d doc
		err := dec.Decode(&d)
		if err == nil {
			t.Fatalf("%s: %q decodes", tc.reason, tc.data)
		}
		if got := JSONError([]byte(tc.data), dec.InputOffset(), err, &d).Error(); got != tc.want {
			t.Errorf("%s: JSONError(%q) = %q, want %q", tc.reason, tc.data, got, tc.want)
		}
	}
}
