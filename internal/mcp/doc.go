// Package mcp drives an MCP server over stdio as a real sandbox (SPEC
// §13, --sut mcp:COMMAND): a filesystem server started over a
// materialized tree, its allowed directories appended to its command,
// its tools called for fs_read and fs_write, its answers read as the
// verdicts of realfs.
//
// The client speaks only what it needs: initialize (protocol
// ProtocolVersion, no capabilities — a client that declared roots would
// have its roots replace the server's allowed directories),
// notifications/initialized, tools/list (to check the profile's tools
// exist; a server that listed none and declared listChanged is pinged
// until its list changes) and tools/call. It answers the server's own
// requests: roots/list with the allowed directories as file:// URIs
// (asked only by a server that ignores the capabilities), ping with {},
// anything else with method-not-found. Notifications are not answered;
// the strings of those of a call are kept in its Result.Carried. It reads
// the wire as MCP's SDK clients do: one message a line, at most
// proto.MaxLine bytes, a byte order mark before the first dropped; an
// answer's id may be its request's number written another way (2.0,
// "2"); a method-not-found error with no id (a hand-written server's
// answer to notifications/initialized) is passed over. Every call has a
// timeout, past which the server's process group is killed; any failure
// of the server makes it unusable, and the Pool starts a fresh one for
// the next scenario, as it does for one that exited while it waited.
//
// # Profiles
//
// A Profile maps ops onto one server's tools. Filesystem is the built-in
// one for @modelcontextprotocol/server-filesystem; BuiltinProfiles lists
// it and those of the other servers proven on their pinned releases
// (releases.go). For another server,
// write a JSON file and read it with ParseProfile; the command line reads
// the file the environment variable SBXFUZZ_MCP_PROFILE names
// (realsut.ProfileEnv; docs/real-sandboxes.md):
//
//	{
//	  "name": "my-server",
//	  "read": {"tool": "cat", "path": "file"},
//	  "write": {"tool": "put", "path": "file", "content": "text"},
//	  "dir_flag": "--allow",
//	  "denied": ["permission denied", "not allowed"],
//	  "not_found": ["ENOENT", "does not exist"]
//	}
//
// read and write name a tool and its string arguments ("path" and
// "content" when left out); leave one out and its ops are unsupported
// (not judged). dir_flag, when set, comes before each allowed directory
// on the command line; else they are appended bare. A tool result with
// isError, or a JSON-RPC error, is read by its text: not_found when it
// matches a not_found pattern and no denied pattern (case ignored; the
// op's own path is cut out first, since the fuzzer names files "ENOENT"
// too), else denied — a text the profile does not know is a refusal, kept
// in the Outcome's Detail, because the harness judges what happened on
// the disk, not the server's words.
//
// Ops whose paths are relative, not UTF-8 or hold NUL, and writes whose
// data is not UTF-8, are Unsupported: MCP carries paths and contents as
// JSON strings of Unicode text, and no path on disk holds a NUL.
package mcp
