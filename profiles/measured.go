package profiles

import (
	"bytes"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// WithMeasured returns a profile document whose measured section is m. The base document (a
// profile the user wrote) keeps everything else as written, comments and order included; its
// earlier measured section is replaced. Without a base, a minimal profile named name of the
// given workload type is made. The result is validated as any profile is.
//
// allocConf is PyTorch's allocator settings the command started with (PYTORCH_ALLOC_CONF), or
// empty: it becomes runtime.pytorch_alloc_conf where the base declares none, since the peak was
// measured under it; where the base declares other settings, a note says so.
func WithMeasured(base []byte, m *Measured, name, workloadType, comment, allocConf string) ([]byte, error) {
	if len(bytes.TrimSpace(base)) == 0 {
		if workloadType == "" {
			workloadType = TypeBatch
		}
		base = []byte(fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n  description: Measured with gpuguard profile capture.\nworkload:\n  type: %s\n",
			APIVersion, Kind, yamlScalar(name), yamlScalar(workloadType)))
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(base, &doc); err != nil {
		return nil, fmt.Errorf("base profile: %w", err)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("base profile: not a YAML mapping")
	}
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "measured" {
			root.Content = append(root.Content[:i], root.Content[i+2:]...)
			break
		}
	}
	if allocConf != "" {
		if note := setAllocConf(root, allocConf); note != "" {
			withNote := *m
			withNote.Notes = append(append([]string(nil), m.Notes...), note)
			m = &withNote
		}
	}
	var value yaml.Node
	if err := value.Encode(m); err != nil {
		return nil, err
	}
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "measured", HeadComment: comment}
	root.Content = append(root.Content, key, &value)
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	if _, err := Parse(out.Bytes(), "the captured profile"); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// setAllocConf adds runtime.pytorch_alloc_conf to a profile's root mapping when it declares none,
// and returns a note when it declares other settings.
func setAllocConf(root *yaml.Node, conf string) string {
	str := func(v string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: v} }
	var runtime *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "runtime" {
			runtime = root.Content[i+1]
		}
	}
	setting := func() *yaml.Node {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{str("pytorch_alloc_conf"), str(conf)}}
	}
	switch {
	case runtime == nil:
		root.Content = append(root.Content, str("runtime"), setting())
		return ""
	case runtime.Tag == "!!null":
		*runtime = *setting()
		return ""
	case runtime.Kind != yaml.MappingNode:
		return "" // Parse rejects it
	}
	for i := 0; i+1 < len(runtime.Content); i += 2 {
		if runtime.Content[i].Value == "pytorch_alloc_conf" {
			if declared := runtime.Content[i+1].Value; declared != conf {
				return fmt.Sprintf("the command ran with PyTorch allocator settings %q; runtime.pytorch_alloc_conf declares %q, which estimates from this profile use", conf, declared)
			}
			return ""
		}
	}
	runtime.Content = append(runtime.Content, str("pytorch_alloc_conf"), str(conf))
	return ""
}

// yamlScalar quotes a value when YAML would read it as something else.
func yamlScalar(s string) string {
	b, err := yaml.Marshal(s)
	if err != nil {
		return `""`
	}
	return string(bytes.TrimSpace(b))
}
