package kustomize

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/yamlpos"
)

// scalar is a scalar node's text, "" for anything else.
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

func isNull(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Tag == "" && (n.Value == "null" || n.Value == "~"))
}

// set puts key: value in a mapping node, replacing an existing value.
func set(n *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content[i+1] = value
			return
		}
	}
	n.Content = append(n.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}

func remove(n *yaml.Node, key string) bool {
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			n.Content = append(n.Content[:i], n.Content[i+2:]...)
			return true
		}
	}
	return false
}

func setScalar(n *yaml.Node, key, value string) {
	set(n, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: value})
}

func setInt(n *yaml.Node, key string, value int) {
	set(n, key, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.Itoa(value)})
}

// ensureMap is the mapping at key in n, made (or made a mapping) when missing.
func ensureMap(n *yaml.Node, key string) *yaml.Node {
	if v := yamlpos.Value(n, key); v != nil && v.Kind == yaml.MappingNode {
		return v
	}
	m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
	if n.Kind == yaml.MappingNode {
		set(n, key, m)
	}
	return m
}

// setAll sets every pair of values in the mapping at key of n, in key order.
func setAll(n *yaml.Node, key string, values map[string]string) {
	if len(values) == 0 {
		return
	}
	m := ensureMap(n, key)
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		setScalar(m, k, values[k])
	}
}

// mergeKeys are the fields that identify an item of a list that strategic merge merges item by
// item, by the list's field name (Kubernetes' patchMergeKey); other lists are replaced.
var mergeKeys = map[string]string{
	"containers": "name", "initContainers": "name", "ephemeralContainers": "name", "volumes": "name", "env": "name",
	"volumeMounts": "mountPath", "ports": "containerPort", "imagePullSecrets": "name", "resourceClaims": "name",
	"envFrom": "", "tolerations": "", "args": "", "command": "",
}

// strategicMerge merges patch into dst the way a strategic merge patch does: mappings key by
// key (a null value removes the key), lists of named items item by item when named is set,
// anything else replaced. Without named it is a JSON merge patch (RFC 7386), which is what
// kustomize applies to a custom resource it has no schema for: lists are replaced whole. It
// returns nil when the patch deletes dst ($patch: delete). dst is changed in place.
func strategicMerge(dst, patch *yaml.Node, field string, named bool) *yaml.Node {
	if patch == nil {
		return dst
	}
	if dst == nil || dst.Kind != patch.Kind {
		return clean(patch)
	}
	switch patch.Kind {
	case yaml.MappingNode:
		switch scalar(yamlpos.Value(patch, "$patch")) {
		case "delete":
			return nil
		case "replace":
			return clean(patch)
		}
		for i := 0; i+1 < len(patch.Content); i += 2 {
			key, value := patch.Content[i].Value, patch.Content[i+1]
			if strings.HasPrefix(key, "$") {
				continue // directives ($setElementOrder/..., $retainKeys) change nothing gpuguard reads
			}
			if isNull(value) {
				remove(dst, key)
				continue
			}
			merged := strategicMerge(yamlpos.Value(dst, key), value, key, named)
			if merged == nil {
				remove(dst, key)
				continue
			}
			set(dst, key, merged)
		}
		return dst
	case yaml.SequenceNode:
		key, ok := mergeKeys[field]
		if !named || !ok || key == "" {
			return clean(patch)
		}
		for _, item := range patch.Content {
			id := scalar(yamlpos.Value(item, key))
			at := -1
			for j, have := range dst.Content {
				if id != "" && scalar(yamlpos.Value(have, key)) == id {
					at = j
					break
				}
			}
			switch {
			case at < 0 && scalar(yamlpos.Value(item, "$patch")) == "delete":
			case at < 0:
				dst.Content = append(dst.Content, clean(item))
			default:
				if merged := strategicMerge(dst.Content[at], item, "", named); merged == nil {
					dst.Content = append(dst.Content[:at], dst.Content[at+1:]...)
				} else {
					dst.Content[at] = merged
				}
			}
		}
		return dst
	}
	return clean(patch)
}

// clean is a copy of a patch node without its directives.
func clean(n *yaml.Node) *yaml.Node {
	c := *n
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		c.Content = nil
		for i := 0; i < len(n.Content); i++ {
			if n.Kind == yaml.MappingNode && i+1 < len(n.Content) && strings.HasPrefix(n.Content[i].Value, "$") {
				i++
				continue
			}
			c.Content = append(c.Content, clean(n.Content[i]))
		}
	}
	return &c
}

// applyJSON6902 applies JSON patch operations (RFC 6902: add, remove, replace, copy, move,
// test) to doc in place.
func applyJSON6902(doc, ops *yaml.Node) error {
	if ops.Kind != yaml.SequenceNode {
		return fmt.Errorf("a JSON 6902 patch is a list of operations")
	}
	for _, op := range ops.Content {
		name, path := scalar(yamlpos.Value(op, "op")), scalar(yamlpos.Value(op, "path"))
		value := yamlpos.Value(op, "value")
		var err error
		switch name {
		case "add", "replace":
			if value == nil {
				return fmt.Errorf("%s %s: no value", name, path)
			}
			err = pointerSet(doc, path, clean(value), name == "add")
		case "remove":
			_, err = pointerRemove(doc, path)
		case "copy", "move":
			from := scalar(yamlpos.Value(op, "from"))
			var v *yaml.Node
			if name == "move" {
				v, err = pointerRemove(doc, from)
			} else if v, err = pointerGet(doc, from); err == nil {
				v = clean(v)
			}
			if err == nil {
				err = pointerSet(doc, path, v, true)
			}
			// Copying a document into itself doubles it: a few dozen copies would not fit in
			// memory.
			if err == nil && name == "copy" && !within(doc, maxNodes) {
				err = fmt.Errorf("the object grows past %d nodes", maxNodes)
			}
		case "test":
		default:
			err = fmt.Errorf("unknown JSON patch operation %q", name)
		}
		if err != nil {
			return fmt.Errorf("JSON patch %s %s: %v", name, path, err)
		}
	}
	return nil
}

// maxNodes bounds an object's size after JSON patch copies.
const maxNodes = 1 << 20

// within reports whether n has at most limit nodes.
func within(n *yaml.Node, limit int) bool {
	count := 0
	var walk func(*yaml.Node) bool
	walk = func(n *yaml.Node) bool {
		count++
		if count > limit {
			return false
		}
		for _, c := range n.Content {
			if !walk(c) {
				return false
			}
		}
		return true
	}
	return walk(n)
}

// pointer splits a JSON pointer into its unescaped tokens.
func pointer(path string) ([]string, error) {
	if path == "" {
		return nil, nil
	}
	if !strings.HasPrefix(path, "/") {
		return nil, fmt.Errorf("%q is not a JSON pointer", path)
	}
	parts := strings.Split(path[1:], "/")
	for i, p := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

// child is the node at token tok of n.
func child(n *yaml.Node, tok string) (*yaml.Node, error) {
	switch n.Kind {
	case yaml.MappingNode:
		if v := yamlpos.Value(n, tok); v != nil {
			return v, nil
		}
		return nil, fmt.Errorf("no %q", tok)
	case yaml.SequenceNode:
		i, err := strconv.Atoi(tok)
		if err != nil || i < 0 || i >= len(n.Content) {
			return nil, fmt.Errorf("no item %q", tok)
		}
		return n.Content[i], nil
	}
	return nil, fmt.Errorf("%q: not a map or a list", tok)
}

func pointerGet(doc *yaml.Node, path string) (*yaml.Node, error) {
	toks, err := pointer(path)
	if err != nil {
		return nil, err
	}
	n := doc
	for _, t := range toks {
		if n, err = child(n, t); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// parentOf is the node holding the last token of path, and that token.
func parentOf(doc *yaml.Node, path string) (*yaml.Node, string, error) {
	toks, err := pointer(path)
	if err != nil {
		return nil, "", err
	}
	if len(toks) == 0 {
		return nil, "", fmt.Errorf("the whole document cannot be replaced")
	}
	n := doc
	for _, t := range toks[:len(toks)-1] {
		if n, err = child(n, t); err != nil {
			return nil, "", err
		}
	}
	return n, toks[len(toks)-1], nil
}

func pointerSet(doc *yaml.Node, path string, v *yaml.Node, add bool) error {
	parent, last, err := parentOf(doc, path)
	if err != nil {
		return err
	}
	switch parent.Kind {
	case yaml.MappingNode:
		if !add && yamlpos.Value(parent, last) == nil {
			return fmt.Errorf("no %q to replace", last)
		}
		set(parent, last, v)
		return nil
	case yaml.SequenceNode:
		if last == "-" && add {
			parent.Content = append(parent.Content, v)
			return nil
		}
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i > len(parent.Content) || !add && i == len(parent.Content) {
			return fmt.Errorf("no item %q", last)
		}
		if !add {
			parent.Content[i] = v
			return nil
		}
		parent.Content = append(parent.Content[:i], append([]*yaml.Node{v}, parent.Content[i:]...)...)
		return nil
	}
	return fmt.Errorf("%q: not a map or a list", last)
}

func pointerRemove(doc *yaml.Node, path string) (*yaml.Node, error) {
	parent, last, err := parentOf(doc, path)
	if err != nil {
		return nil, err
	}
	v, err := child(parent, last)
	if err != nil {
		return nil, err
	}
	if parent.Kind == yaml.MappingNode {
		remove(parent, last)
	} else {
		i, _ := strconv.Atoi(last)
		parent.Content = append(parent.Content[:i], parent.Content[i+1:]...)
	}
	return v, nil
}
