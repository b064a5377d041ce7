package userdata

import (
	"encoding/base64"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// cloudConfig reads a cloud-config part: the files its write_files writes (content in the
// encodings cloud-init takes: text, b64, gzip, gz+b64; append), and its runcmd, read as the
// script cloud-init makes of it, a string as a shell line and a list as a command's words
// (https://cloudinit.readthedocs.io/en/latest/reference/modules.html, "Write Files" and
// "Runcmd"). cloud-init skips a cloud-config that is not YAML, and so does this.
func (r *reader) cloudConfig(text string) error {
	var cfg struct {
		WriteFiles []struct {
			Path     string `yaml:"path"`
			Content  string `yaml:"content"`
			Encoding string `yaml:"encoding"`
			Append   bool   `yaml:"append"`
		} `yaml:"write_files"`
		Runcmd []yaml.Node `yaml:"runcmd"`
	}
	if err := yaml.Unmarshal([]byte(text), &cfg); err != nil {
		return nil
	}
	for i, f := range cfg.WriteFiles {
		if f.Path == "" {
			continue
		}
		content, err := decodeContent(f.Content, f.Encoding)
		if err != nil {
			return fmt.Errorf("cloud-config write_files[%d] (%s): %v", i, f.Path, err)
		}
		r.files.write(f.Path, content, f.Append)
	}
	var script strings.Builder
	for _, c := range cfg.Runcmd {
		switch c.Kind {
		case yaml.ScalarNode:
			script.WriteString(c.Value)
		case yaml.SequenceNode:
			for j, w := range c.Content {
				if j > 0 {
					script.WriteByte(' ')
				}
				script.WriteString("'" + strings.ReplaceAll(w.Value, "'", `'\''`) + "'")
			}
		}
		script.WriteByte('\n')
	}
	if script.Len() == 0 {
		return nil
	}
	if err := r.script(script.String()); err != nil {
		return fmt.Errorf("cloud-config runcmd: %v", err)
	}
	return nil
}

// decodeContent undoes a write_files entry's encoding.
func decodeContent(content, encoding string) (string, error) {
	b := []byte(content)
	switch strings.ToLower(encoding) {
	case "", "text/plain":
		return content, nil
	case "b64", "base64":
		return b64Decode(content)
	case "gz", "gzip":
	case "gz+b64", "gz+base64", "gzip+b64", "gzip+base64":
		d, err := b64Decode(content)
		if err != nil {
			return "", err
		}
		b = []byte(d)
	default:
		return "", fmt.Errorf("encoding %q is not one cloud-init takes", encoding)
	}
	return gunzip(b)
}

func b64Decode(s string) (string, error) {
	d, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return "", fmt.Errorf("base64: %v", err)
	}
	return string(d), nil
}
