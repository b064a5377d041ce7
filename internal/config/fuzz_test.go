package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzParse: any bytes give a config or an *Error naming the file, with a line inside it.
func FuzzParse(f *testing.F) {
	if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "examples", "ml-platform", ".gpuguard.yaml")); err == nil {
		f.Add(b)
	}
	for _, s := range []string{
		"region: us-east-1\nhours_per_month: 730\n",
		"budgets:\n  monthly_total: -5\n",
		"regoin: us-east-1\n",
		"usage:\n  \"a.*\": {hours_per_month: 800}\n",
		"profiles: [1, 2]\n",
		"policy_data:\n  severities: {GPU007: loud}\n",
		"hours_per_month: \"many\"\n",
		"a: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var c Config
		err := Parse(data, "cfg.yaml", &c)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not a config.Error", err, err)
			}
			if ce.File != "cfg.yaml" || ce.Msg == "" {
				t.Fatalf("error without file or message: %#v", ce)
			}
			if ce.Line < 0 || (utf8.Valid(data) && ce.Line > yamlLines(string(data))) {
				t.Fatalf("line %d outside the file's %d lines: %v", ce.Line, yamlLines(string(data)), err)
			}
			return
		}
		if c.HoursPerMonth < 0 || c.HoursPerMonth > 744 {
			t.Fatalf("accepted hours_per_month %g", c.HoursPerMonth)
		}
	})
}

// yamlLines counts lines as YAML 1.1 breaks them: \n, \r\n, a lone \r, NEL, LS and PS. (Other
// encodings, such as UTF-16 with a byte order mark, are left to yaml.v3.)
func yamlLines(s string) int {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	n := 1
	for _, r := range s {
		switch r {
		case '\n', '\r', '\u0085', '\u2028', '\u2029':
			n++
		}
	}
	return n
}
