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
func WithMeasured(base []byte, m *Measured, name, workloadType, comment string) ([]byte, error) {
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

// yamlScalar quotes a value when YAML would read it as something else.
func yamlScalar(s string) string {
	b, err := yaml.Marshal(s)
	if err != nil {
		return `""`
	}
	return string(bytes.TrimSpace(b))
}
