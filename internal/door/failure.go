package door

// Failure is what a sandbox behind a door panics with when Run, Usage
// or Grant cannot give an answer at all — the process behind it exited,
// wrote garbage, or broke its protocol (and so does a sandbox over a real
// tree that cannot observe it). The harness reports it as a total finding
// in these words; a panic of any other value is reported as a panic.
type Failure struct {
	Err error
}

// Error returns the failure's words.
func (f *Failure) Error() string { return f.Err.Error() }

// Unwrap returns the underlying error.
func (f *Failure) Unwrap() error { return f.Err }

// Timeout marks err as a timeout: a sandbox that did not start, or
// answer, within the time it was given, which a busy machine may cause as
// well as a broken sandbox. The oracle reports a build that failed so as
// a hang, which a campaign judges once more on a fresh session before it
// counts, and a replay says a loaded machine may be the cause.
func Timeout(err error) error { return timeoutError{err} }

// timeoutError is an error marked by Timeout: it says so by a Timeout
// method, as the standard library's timeouts do.
type timeoutError struct{ err error }

func (e timeoutError) Error() string { return e.err.Error() }
func (e timeoutError) Unwrap() error { return e.err }
func (timeoutError) Timeout() bool   { return true }
