package proc

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// splitWords splits a command line into words as a POSIX shell would,
// without a shell: blanks separate words; single quotes keep everything
// literally; double quotes keep everything but \" \\ \$ \`; a backslash
// outside quotes escapes the next byte. No expansion of any kind.
func splitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, errors.New("an unterminated single quote")
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			if i >= len(s) {
				return nil, errors.New("an unterminated double quote")
			}
			inWord = true
		case c == '\\':
			if i+1 >= len(s) {
				return nil, errors.New("a backslash at the end")
			}
			i++
			w.WriteByte(s[i])
			inWord = true
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	if len(words) == 0 {
		return nil, errors.New("an empty command")
	}
	return words, nil
}

// SplitWords splits a command into words as a shell would, without a
// shell: what --sut exec:COMMAND and mcp:COMMAND do with COMMAND.
func SplitWords(s string) ([]string, error) { return splitWords(s) }

// Anchored returns argv with the words that name files relative to the
// current directory made absolute: the program, when it is a relative path
// ("bin/server", found where a shell run here would find it), and every
// later word naming an existing regular file ("node build/index.js"). A
// door that runs its process in a directory of its own (an MCP server in
// its session's) would otherwise have it look for them there; a word
// naming nothing here, or a directory, is left as it is.
func Anchored(argv []string) []string {
	out := slices.Clone(argv)
	for i, w := range out {
		if w == "" || filepath.IsAbs(w) {
			continue
		}
		if i == 0 && !strings.ContainsRune(w, filepath.Separator) && !strings.ContainsRune(w, '/') {
			continue // a name looked up on $PATH
		}
		if fi, err := os.Stat(w); i > 0 && (err != nil || !fi.Mode().IsRegular()) {
			continue
		}
		if abs, err := filepath.Abs(w); err == nil {
			out[i] = abs
		}
	}
	return out
}
