package helm

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// FuzzRender renders a chart whose one template and values are the fuzzer's. It must never
// panic or hang (the rendering's limits and its timeout), and never read outside the chart.
func FuzzRender(f *testing.F) {
	fixture := filepath.Join("..", "..", "testdata", "kubernetes", "helm-chart")
	values, _ := os.ReadFile(filepath.Join(fixture, "values.yaml"))
	for _, name := range []string{"deployment.yaml", "hpa.yaml", "_helpers.tpl"} {
		if b, err := os.ReadFile(filepath.Join(fixture, "templates", name)); err == nil {
			f.Add(b, values)
		}
	}
	f.Add([]byte(`{{ range $i, $v := until 5 }}{{ tpl "{{ .x }}" (dict "x" $i) }}{{ end }}{{ .Files.Get "values.yaml" | b64enc }}`), []byte("a: 1\n"))
	f.Add([]byte(`{{ toYaml (merge .Values (dict "b" (list 1 2))) | nindent 2 }}{{ semverCompare "~1.2" "1.2.9" }}`), []byte("a: {b: c}\n"))
	old := Timeout
	Timeout = 2 * time.Second
	f.Cleanup(func() { Timeout = old })
	f.Fuzz(func(t *testing.T, tmpl, values []byte) {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{
			"secret":                         "s3cr3t",
			"chart/Chart.yaml":               "apiVersion: v2\nname: fuzz\nversion: 0.1.0\n",
			"chart/values.yaml":              string(values),
			"chart/templates/t.yaml":         string(tmpl),
			"chart/templates/_helpers.tpl":   `{{- define "name" -}}{{ .Release.Name }}{{- end }}`,
			"chart/charts/sub/Chart.yaml":    "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
			"chart/charts/sub/templates/x.y": "{{ .Values }}",
		})
		out, _ := Render(filepath.Join(root, "chart"), confine.NewDirs(filepath.Join(root, "chart")))
		for _, r := range out {
			if strings.Contains(string(r.Data), "s3cr3t") {
				t.Fatalf("read outside the chart: %q", r.Data)
			}
		}
	})
}
