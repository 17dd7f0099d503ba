package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sbxfuzz/sbxfuzz/internal/proc"
)

// checkLaunch reports what makes p's way of passing directories unusable.
func (p Profile) checkLaunch() error {
	if c := p.DirsConfig; c != nil {
		f := filepath.Clean(filepath.FromSlash(c.File))
		switch {
		case c.File == "" || filepath.IsAbs(f) || f == "." || f == ".." || strings.HasPrefix(f, ".."+string(filepath.Separator)):
			return fmt.Errorf("dirs_config: file %q is not a path inside HOME", c.File)
		case !strings.Contains(c.Template, DirsPlaceholder):
			return fmt.Errorf("dirs_config: the template has no %s", DirsPlaceholder)
		}
	}
	switch {
	case p.DirsArgs != nil && len(p.DirsArgs) == 0:
		// Read as unset, it would pass the directories another way,
		// without a word.
		return fmt.Errorf("dirs_args: an empty list: leave it out, or give the arguments that carry %s", DirsPlaceholder)
	case p.DirsSep != "" && len(p.DirsArgs) == 0:
		return errors.New("dirs_sep: joins the directories of dirs_args, and there is none")
	}
	for _, a := range p.DirsArgs {
		if !strings.Contains(a, DirsPlaceholder) {
			return fmt.Errorf("dirs_args: %q has no %s", a, DirsPlaceholder)
		}
	}
	if e := p.DirsEnv; e != nil && (e.Name == "" || strings.ContainsAny(e.Name, "=\x00")) {
		return fmt.Errorf("dirs_env: %q is not a variable name", e.Name)
	}
	for k := range p.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env: %q is not a variable name", k)
		}
	}
	return nil
}

// DirsJoinedBy is the separator that joins the allowed directories into
// one string, and whether p joins them so (DirsArgs, DirsEnv): a
// directory that holds it reads as two.
func (p Profile) DirsJoinedBy() (string, bool) {
	switch {
	case len(p.DirsArgs) > 0 && p.DirsSep != "":
		return p.DirsSep, true
	case len(p.DirsArgs) > 0:
		return ",", true
	case p.DirsEnv != nil && p.DirsEnv.Sep != "":
		return p.DirsEnv.Sep, true
	case p.DirsEnv != nil:
		return string(os.PathListSeparator), true
	}
	return "", false
}

// argv is the server's command line: p's command prefix, its DirsArgs,
// command, and the allowed directories when p passes them as arguments
// after it.
func (p Profile) argv(command, allowed []string) []string {
	argv := slices.Clone(p.Command)
	if len(p.DirsArgs) > 0 {
		sep, _ := p.DirsJoinedBy()
		for _, a := range p.DirsArgs {
			if len(allowed) > 0 {
				argv = append(argv, strings.ReplaceAll(a, DirsPlaceholder, strings.Join(allowed, sep)))
			}
		}
		return append(argv, command...)
	}
	argv = append(argv, command...)
	if p.DirsConfig != nil || p.DirsEnv != nil || p.Cwd {
		return argv
	}
	for _, d := range allowed {
		if p.DirFlag != "" {
			argv = append(argv, p.DirFlag)
		}
		argv = append(argv, d)
	}
	return argv
}

// environ is what p adds to the server's environment, sorted: its own
// HOME, p's Env, and the directories when p passes them that way.
func (p Profile) environ(allowed []string, home string) []string {
	env := []string{"HOME=" + home}
	for k, v := range p.Env {
		env = append(env, k+"="+v)
	}
	if e := p.DirsEnv; e != nil {
		sep, _ := p.DirsJoinedBy()
		env = append(env, e.Name+"="+strings.Join(allowed, sep))
	}
	slices.Sort(env)
	return env
}

// config is the text of p's config file for allowed.
func (p Profile) config(allowed []string) string {
	list, _ := json.Marshal(append([]string{}, allowed...)) // [] rather than null
	return strings.ReplaceAll(p.DirsConfig.Template, DirsPlaceholder, string(list))
}

// launch starts the process of cfg in a HOME of its own, made under
// cfg.Home or cfg.Root (else the temporary directory) and holding the config file,
// if any: a server that allows or reads $HOME then sees only that. The
// caller removes home when the server is done. It runs in cfg.Root, or in
// its allowed directory when its profile says it works on its working
// directory (Profile.Cwd).
func launch(cfg Config) (p *proc.Process, home string, err error) {
	dir := cfg.Root
	if cfg.Profile.Cwd {
		if len(cfg.Allowed) != 1 {
			return nil, "", fmt.Errorf("starting an MCP server: profile %s has it work on its working directory, one allowed directory, not %d", cfg.Profile.Name, len(cfg.Allowed))
		}
		dir = cfg.Allowed[0]
	}
	if sep, joined := cfg.Profile.DirsJoinedBy(); joined {
		for _, d := range cfg.Allowed {
			if strings.Contains(d, sep) {
				return nil, "", fmt.Errorf("starting an MCP server: profile %s joins the allowed directories with %q, which %s holds: it would read as two (name a --tree-dir without it)", cfg.Profile.Name, sep, d)
			}
		}
	}
	parent := cfg.Home
	if parent == "" {
		parent = cfg.Root
	}
	if home, err = os.MkdirTemp(parent, "home-"); err != nil {
		return nil, "", fmt.Errorf("starting an MCP server: a HOME for it: %v", err)
	}
	if c := cfg.Profile.DirsConfig; c != nil {
		file := filepath.Join(home, filepath.FromSlash(c.File))
		err = os.MkdirAll(filepath.Dir(file), 0o700)
		if err == nil {
			err = os.WriteFile(file, []byte(cfg.Profile.config(cfg.Allowed)), 0o600)
		}
		if err != nil {
			os.RemoveAll(home)
			return nil, "", fmt.Errorf("starting an MCP server: its config file: %v", err)
		}
	}
	argv, env := cfg.Profile.argv(cfg.Command, cfg.Allowed), cfg.Profile.environ(cfg.Allowed, home)
	if cfg.Net != nil {
		p, _, err = proc.StartNet(argv, dir, env, *cfg.Net)
	} else {
		p, err = proc.StartEnv(argv, dir, env)
	}
	if err != nil {
		os.RemoveAll(home)
		return nil, "", err
	}
	return p, home, nil
}

// sameEnviron reports whether servers started for a and b get the same
// environment and config file, their own HOME aside.
func sameEnviron(a, b Config) bool {
	return slices.Equal(a.Profile.environ(a.Allowed, ""), b.Profile.environ(b.Allowed, "")) &&
		(a.Profile.DirsConfig == nil) == (b.Profile.DirsConfig == nil) &&
		(a.Profile.DirsConfig == nil || *a.Profile.DirsConfig == *b.Profile.DirsConfig && a.Profile.config(a.Allowed) == b.Profile.config(b.Allowed))
}

// errNoCommand is Start's error for an empty command.
var errNoCommand = errors.New("starting an MCP server: an empty command")
