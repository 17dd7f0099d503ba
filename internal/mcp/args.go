package mcp

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// check reports what makes t's arguments or result unusable: a constant
// that is not JSON, two arguments at one place, a name with an empty
// part, a pattern that does not compile.
func (t Tool) check() error {
	if t.Name == "" {
		return nil
	}
	if _, err := t.arguments("p", "c"); err != nil {
		return err
	}
	if r := t.Result; r != nil {
		switch {
		case r.JSON != "" && slices.Contains(strings.Split(r.JSON, "."), ""):
			return fmt.Errorf("result: %q has an empty part", r.JSON)
		case r.LineMax < 0:
			return fmt.Errorf("result: line_max %d: a line is cut after a positive length", r.LineMax)
		case r.LineMark != "" && r.LineMax == 0:
			return fmt.Errorf("result: line_mark without line_max")
		case strings.Contains(r.Tab, "\t"):
			return fmt.Errorf("result: tab %q holds a tab: it is what a tab is shown as", r.Tab)
		}
		if r.Header != "" {
			if _, err := regexp.Compile(r.Header); err != nil {
				return fmt.Errorf("result header: %v", err)
			}
		}
		if r.Footer != "" {
			if _, err := regexp.Compile(r.Footer); err != nil {
				return fmt.Errorf("result footer: %v", err)
			}
		}
		if err := nonEmptyPattern("line_prefix", r.LinePrefix, "matches a line that has none"); err != nil {
			return err
		}
		if err := nonEmptyPattern("continuation", r.Continuation, "matches where the server broke no line"); err != nil {
			return err
		}
		for _, d := range r.Described {
			if err := nonEmptyPattern("described", d, "matches every answer"); err != nil {
				return err
			}
		}
	}
	return nil
}

// nonEmptyPattern checks p, a result's field, when set: a regular
// expression (RE2) that does not match the empty text, which would match
// where there is nothing (why says what that would mean).
func nonEmptyPattern(field, p, why string) error {
	if p == "" {
		return nil
	}
	re, err := regexp.Compile(p)
	switch {
	case err != nil:
		return fmt.Errorf("result %s: %v", field, err)
	case re.MatchString(""):
		return fmt.Errorf("result %s: %q %s", field, p, why)
	}
	return nil
}

// arguments is the arguments object of a call of t on path (and data, for
// a write): its constants, then the path and the data, each at its dotted
// name.
func (t Tool) arguments(path, data string) (map[string]any, error) {
	args := map[string]any{}
	names := make([]string, 0, len(t.Args))
	for n := range t.Args {
		names = append(names, n)
	}
	slices.Sort(names) // a conflict is reported the same way every time
	for _, n := range names {
		var v any
		if err := json.Unmarshal(t.Args[n], &v); err != nil {
			return nil, fmt.Errorf("argument %q: %v", n, err)
		}
		if err := setDotted(args, n, v); err != nil {
			return nil, err
		}
	}
	if err := setDotted(args, t.Path, path); err != nil {
		return nil, err
	}
	if t.Content != "" {
		if err := setDotted(args, t.Content, data); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// setDotted sets m's value at a dotted name ("a.b" is m["a"]["b"]),
// making the objects on the way; a part ending in "[]" is a list of one
// ("items[].path" is m["items"][0]["path"], "paths[]" is m["paths"][0]).
// A name that is already set, or runs through a value of another shape,
// is an error.
func setDotted(m map[string]any, name string, v any) error {
	parts := strings.Split(name, ".")
	for _, k := range parts {
		if k, _ := strings.CutSuffix(k, "[]"); k == "" {
			return fmt.Errorf("argument %q has an empty part", name)
		}
	}
	for _, k := range parts[:len(parts)-1] {
		k, list := strings.CutSuffix(k, "[]")
		next, ok := m[k]
		if !ok {
			next = map[string]any{}
			if list {
				next = []any{next}
			}
			m[k] = next
		}
		if l, isList := next.([]any); list && isList && len(l) == 1 {
			next = l[0]
		} else if list && isList {
			return fmt.Errorf("argument %q runs through %q, a list of %d items where it names one", name, k, len(l))
		} else if list || isList {
			return fmt.Errorf("argument %q runs through %q, which is a list of one where another name has an object, or the other way", name, k)
		}
		if m, ok = next.(map[string]any); !ok {
			return fmt.Errorf("argument %q runs through %q, which is not an object", name, k)
		}
	}
	last, list := strings.CutSuffix(parts[len(parts)-1], "[]")
	if _, taken := m[last]; taken {
		return fmt.Errorf("argument %q is given twice", name)
	}
	if list {
		v = []any{v}
	}
	m[last] = v
	return nil
}
