package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/sbxfuzz/sbxfuzz/internal/fsutil"
	"github.com/sbxfuzz/sbxfuzz/scenario"
)

func runFmt(e *env, args []string) int {
	fs := newFlags(e, "fmt", "[-w | -l] FILE...", `
Print each scenario in canonical form: header comment, grants, budgets and
world lines in a fixed order, ops with their comments and expectations, and
tokens quoted exactly when they must be. A FILE of the form DIR/... stands for
every .sbx below DIR.`)
	write := fs.Bool("w", false, "rewrite each file in place (atomically) instead of printing it")
	list := fs.Bool("l", false, "list the files whose text is not canonical; print nothing else")
	if st, ok := parseFlags(e, fs, args); !ok {
		return st
	}
	if *write && *list {
		return errorf(e, "fmt: -w and -l cannot be combined: -w rewrites the files, -l only lists those -w would rewrite")
	}
	files, err := fsutil.ExpandPatterns(fs.Args(), ".sbx")
	if err != nil {
		return errorf(e, "%v", err)
	}
	if len(files) == 0 {
		return errorf(e, "fmt: no files given (try 'sbxfuzz fmt -h')")
	}
	status := ExitOK
	for _, name := range files {
		src, err := fsutil.ReadInput(name)
		if err == nil {
			var sc *scenario.Scenario
			if sc, err = scenario.Parse(name, src); err == nil {
				err = emit(e, name, src, sc.Format(), *write, *list)
			}
		}
		if err != nil {
			status = printError(e, err)
		}
	}
	return status
}

func emit(e *env, name string, src, canon []byte, write, list bool) error {
	same := bytes.Equal(src, canon)
	switch {
	case list:
		if !same {
			fmt.Fprintln(e.stdout, name)
		}
	case write:
		if !same {
			st, err := os.Stat(name)
			if err != nil {
				return err
			}
			return fsutil.WriteAtomic(name, canon, st.Mode().Perm())
		}
	default:
		_, err := e.stdout.Write(canon)
		return err
	}
	return nil
}
