package cli

import (
	"io"
	"os"
)

// isTerminal reports whether w is a character device, such as a terminal:
// live progress is drawn only there.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
