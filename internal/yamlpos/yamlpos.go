package yamlpos

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// maxBisectBytes bounds the documents SyntaxErrorLine bisects.
const maxBisectBytes = 1 << 20

// maxKeys bounds the index: a hostile document with millions of keys is not walked whole.
const maxKeys = 100000

// Lines maps dotted key paths to the line of the key.
type Lines map[string]int

// Index records the line of every mapping key of a parsed document (or node), dotted from its
// top. A key repeated in the same mapping keeps its first line.
func Index(root *yaml.Node) Lines {
	l := Lines{}
	var walk func(n *yaml.Node, prefix string)
	walk = func(n *yaml.Node, prefix string) {
		if n == nil {
			return
		}
		if n.Kind == yaml.DocumentNode {
			for _, c := range n.Content {
				walk(c, prefix)
			}
			return
		}
		if n.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(n.Content) && len(l) < maxKeys; i += 2 {
			k := n.Content[i]
			path := k.Value
			if prefix != "" {
				path = prefix + "." + k.Value
			}
			if _, seen := l[path]; !seen {
				l[path] = k.Line
			}
			walk(n.Content[i+1], path)
		}
	}
	walk(root, "")
	return l
}

// At returns the line of a path, or of its nearest enclosing key that is there, or 0.
func (l Lines) At(path string) int {
	for path != "" {
		if n, ok := l[path]; ok {
			return n
		}
		i := strings.LastIndexByte(path, '.')
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}

// SyntaxErrorLine finds the line of a YAML syntax error. yaml.v3 reports the line where the
// enclosing block starts ("line 7: did not find expected key" for a bad indent on line 13); the
// first line whose addition makes the document fail is where the reader has to look. It is
// found by bisection over prefixes of whole lines (about log2(lines) parses, on the error path
// only). reported is the line yaml.v3 gave (0 if none); the result is never before it, and it is
// reported itself when no prefix fails (the error is at the very end).
func SyntaxErrorLine(data []byte, reported int) int {
	if len(data) > maxBisectBytes {
		return reported // a huge broken document is not parsed twenty more times
	}
	ends := lineEnds(data)
	if len(ends) == 0 {
		return reported
	}
	fails := func(n int) bool {
		var v yaml.Node
		return yaml.Unmarshal(data[:ends[n-1]], &v) != nil
	}
	lo, hi := max(reported, 1), len(ends)
	if lo > hi || !fails(hi) {
		return reported
	}
	if fails(lo) {
		return lo
	}
	for lo+1 < hi { // fails(hi) and not fails(lo)
		mid := (lo + hi) / 2
		if fails(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// Relocate moves a yaml.v3 syntax error of data, reported on line reported of a file where data
// starts after offset lines, to the bad line. It returns the file line to report and a note for
// the message naming the line yaml.v3 gave ("" when the line stays).
func Relocate(data []byte, reported, offset int) (line int, note string) {
	if l := SyntaxErrorLine(data, reported-offset) + offset; l > reported {
		return l, fmt.Sprintf(" (the enclosing block starts on line %d)", reported)
	}
	return reported, ""
}

// lineEnds are the byte offsets just past each line of data (the last line may lack its \n).
func lineEnds(data []byte) []int {
	var ends []int
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		ends = append(ends, len(data))
	}
	return ends
}

// Split takes a yaml.v3 error apart: the line it names (0 when none) and the message without the
// "yaml:" prefix and that line. A type error gives its first problem.
func Split(err error) (int, string) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	msg = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(msg), "yaml:"))
	line := 0
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, after, ok := strings.Cut(rest, ":"); ok {
			if l, err := strconv.Atoi(n); err == nil {
				line, msg = l, strings.TrimSpace(after)
			}
		}
	}
	return line, msg
}

// Value is the value node of key in a mapping node; nil when n is not a mapping or has no key.
func Value(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}
