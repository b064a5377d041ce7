package parser

import (
	"fmt"
	"strings"
)

// Plural is the "s" of a count of n things in the readers' notes ("1 instance", "3 instances").
func Plural[N int | int64](n N) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// NamesShown is how many names Names writes before it counts the rest.
const NamesShown = 3

// Names lists the names of things for a message: "a", "a and b", "a, b, c and 3 others" (the
// first NamesShown, then a count of the rest).
func Names(names []string) string {
	shown := names[:min(len(names), NamesShown)]
	switch rest := len(names) - len(shown); {
	case rest > 0:
		return strings.Join(shown, ", ") + fmt.Sprintf(" and %d other%s", rest, Plural(rest))
	case len(shown) < 2:
		return strings.Join(shown, "")
	default:
		return strings.Join(shown[:len(shown)-1], ", ") + " and " + shown[len(shown)-1]
	}
}
