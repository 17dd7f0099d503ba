// Package spec holds the decisions of docs/SPEC.md that more than one part
// of sbxfuzz makes — the reference sandbox (core), the harness's world
// (internal/refworld), the oracle's model, the generators and the mutants —
// each written once, as the SPEC words it, so that none of them can drift
// from the others:
//
//   - paths (SPEC §4): Canonical, HasTraversal, UnderAllowlist;
//   - addresses (SPEC §6): NormalizeHost, StaticResolve, ParseInetAton,
//     ParseIPv6Literal, Unmap, IsInternal and its one table of ranges
//     (InternalRanges, EmbeddingPrefixes);
//   - ops (SPEC §2, §5): Arity, WellFormed;
//   - links (SPEC §13): MaxLinks;
//   - redirects (SPEC §10, §14): Location;
//   - what a URL carries unchanged (SPEC §14): URLCarriesHost, URLCarriesPath.
//
// Each documents the SPEC's examples and is table-tested against them. It
// imports only the standard library. A sandbox under test must not use it:
// it is judged against these decisions, so it makes its own
// (examples/gosandbox does).
package spec
