package proxysut

import "github.com/sbxfuzz/sbxfuzz/internal/door"

// StricterReasons lists every reason, in the order they are tried.
func StricterReasons() []string {
	return []string{door.ReasonAnotherHost, door.ReasonInternalAnswer, door.ReasonFollowedRedirect, door.ReasonKeptAnswer, door.ReasonIPv6Literal, door.ReasonIPv4Spelling, door.ReasonUnresolvable, door.ReasonDocumentation, door.ReasonSpecial, door.ReasonIPv4Literal, door.ReasonRefusedAllowed}
}

// PromisesAll, in a profile's promises, stands for every reason.
const PromisesAll = door.PromisesAll
