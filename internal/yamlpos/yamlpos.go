package yamlpos

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

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
