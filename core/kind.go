package core

// Kind is the verdict of one op (SPEC §2). The zero Kind is Invalid: a
// sandbox that returns a zero Result has not decided anything, and the oracle
// reports it rather than reading it as "allowed".
type Kind uint8

// The result kinds of SPEC §2, in the SPEC's order. Reports index arrays by
// Kind, so the order is part of the output format.
const (
	Invalid        Kind = iota // not a verdict: the zero value
	OK                         // the effect happened
	PathTraversal              // a path has a ".." segment (split at '/' and '\')
	FSReadDenied               // canonical path under no fs_read root
	FSWriteDenied              // canonical path under no fs_write root
	EgressDenied               // host not in net_hosts
	EgressInternal             // granted host resolved to an internal address
	ToolDenied                 // tool name not in tools
	UnknownOp                  // kind is none of the four
	MalformedOp                // bad arity, NUL byte or invalid UTF-8
	NotFound                   // permitted, but the world had nothing there
	MaxOps                     // op budget exceeded (hard)
	MaxWall                    // wall budget exceeded (hard)
	MaxOutputBytes             // output budget exceeded (hard)

	// NumKinds is one past the last Kind; arrays indexed by Kind use it.
	NumKinds
)

var kindNames = [NumKinds]string{
	Invalid:        "invalid",
	OK:             "ok",
	PathTraversal:  "path_traversal",
	FSReadDenied:   "fs_read_denied",
	FSWriteDenied:  "fs_write_denied",
	EgressDenied:   "egress_denied",
	EgressInternal: "egress_internal",
	ToolDenied:     "tool_denied",
	UnknownOp:      "unknown_op",
	MalformedOp:    "malformed_op",
	NotFound:       "not_found",
	MaxOps:         "max_ops",
	MaxWall:        "max_wall",
	MaxOutputBytes: "max_output_bytes",
}

// String returns the SPEC's name of k, such as "fs_read_denied".
func (k Kind) String() string {
	if k < NumKinds {
		return kindNames[k]
	}
	return "invalid"
}

// Result is what Run returns for one op. It is allowed exactly when Kind is
// OK; Data is what an allowed effect produced (empty for writes and for
// every refusal).
type Result struct {
	Kind Kind
	Hard bool
	Data string
}

// The four op kinds of SPEC §2 and their arities.
const (
	OpRead  = "fs_read"   // fs_read PATH
	OpWrite = "fs_write"  // fs_write PATH DATA
	OpFetch = "net_fetch" // net_fetch HOST PATH
	OpTool  = "tool"      // tool NAME INPUT
)

// Op is one tool call an agent asks for: a kind and its string arguments.
// Kind is a string, not an enum, because hostile callers send kinds that
// are none of the four; Args may hold any bytes.
type Op struct {
	Kind string
	Args []string
}
