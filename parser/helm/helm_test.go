package helm

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"text/template"
	"time"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
)

// exec renders one template text with the functions and values given.
func exec(t *testing.T, text string, data any) (string, error) {
	t.Helper()
	r := &renderer{}
	r.set = template.New("gotpl").Option("missingkey=zero").Funcs(r.funcs())
	if _, err := r.set.New("t").Parse(text); err != nil {
		return "", err
	}
	var b strings.Builder
	err := r.set.ExecuteTemplate(&b, "t", data)
	return b.String(), err
}

// Sprig's semantics, argument order included, for the functions charts use most.
func TestFunctions(t *testing.T) {
	values := map[string]any{"n": 0, "s": "", "name": "llama", "list": []any{"a", "b", "a"}, "m": map[string]any{"a": 1, "b": map[string]any{"c": 2}}}
	for _, tc := range []struct{ tmpl, want string }{
		{`{{ .n | default 3 }}`, "3"},
		{`{{ .s | default "x" }}`, "x"},
		{`{{ .name | default "x" }}`, "llama"},
		{`{{ .missing | default "d" }}`, "d"},
		{`{{ empty .list }} {{ empty .n }} {{ empty .m }}`, "false true false"},
		{`{{ coalesce .s .n "c" }}`, "c"},
		{`{{ ternary "yes" "no" true }}`, "yes"},
		{`{{ .name | quote }} {{ .name | squote }}`, `"llama" 'llama'`},
		{`{{ "abcdef" | trunc 3 }} {{ "abcdef" | trunc -2 }}`, "abc ef"},
		{`{{ "x-" | trimSuffix "-" }} {{ "--x" | trimPrefix "-" }}`, "x -x"},
		{`{{ "a b" | replace " " "-" }}`, "a-b"},
		{`{{ "a\nb" | indent 2 }}`, "  a\n  b"},
		{`{{ "a" | nindent 2 }}`, "\n  a"},
		{`{{ printf "%s-%03d" "a" 7 }}`, "a-007"},
		{`{{ toYaml .m }}`, "a: 1\nb:\n  c: 2"},
		{`{{ toJson .list }}`, `["a","b","a"]`},
		{`{{ (fromYaml "x: 1").x }}`, "1"},
		{`{{ uniq .list | join "," }}`, "a,b"},
		{`{{ without .list "a" | join "," }} {{ list "" "x" 0 nil "y" | compact | join "," }}`, "b x,y"},
		{`{{ list 1 2 | toJson }} {{ has "b" .list }}`, "[1,2] true"},
		{`{{ add 1 2 3 }} {{ sub 5 2 }} {{ mul 2 3 }} {{ div 7 2 }} {{ max 1 5 3 }}`, "6 3 6 3 5"},
		{`{{ int "12" }} {{ until 3 | toJson }}`, "12 [0,1,2]"},
		{`{{ $d := dict "a" 1 }}{{ $_ := set $d "b" 2 }}{{ keys $d | sortAlpha | join "," }} {{ hasKey $d "b" }}`, "a,b true"},
		{`{{ (merge (dict "a" 1) (dict "a" 2 "b" 3)) | toJson }}`, `{"a":1,"b":3}`},
		{`{{ (mergeOverwrite (dict "a" 1) (dict "a" 2)) | toJson }}`, `{"a":2}`},
		{`{{ (mergeOverwrite (dict "a" 1 "b" 1) (dict "a" 0 "b" 2)) | toJson }}`, `{"a":1,"b":2}`}, // an empty value does not overwrite
		{`{{ (merge (dict "a" "" "b" 1) (dict "a" "x" "b" 2)) | toJson }}`, `{"a":"x","b":1}`},     // an empty value is filled
		{`{{ dig "b" "c" 0 .m }} {{ dig "b" "x" "none" .m }}`, "2 none"},
		{`{{ semverCompare ">=1.23-0" "v1.31.0" }} {{ semverCompare "<1.22-0" "v1.31.0" }} {{ semverCompare "^1.2 || >=2" "1.9.0" }}`, "true false true"},
		{`{{ regexMatch "^l" .name }} {{ regexReplaceAll "a" .name "o" }}`, "true llomo"},
		{`{{ kindOf .m }} {{ kindIs "slice" .list }}`, "map true"},
		{`{{ "hello world" | title }} {{ b64enc "x" }}`, "Hello World eA=="},
		{`{{ splitList "," "a,b" | toJson }} {{ (split "," "a,b")._1 }}`, `["a","b"] b`},
		{`{{ lookup "v1" "Secret" "ns" "name" | toJson }}`, "{}"},
	} {
		got, err := exec(t, tc.tmpl, values)
		if err != nil || got != tc.want {
			t.Errorf("%s = %q (%v), want %q", tc.tmpl, got, err, tc.want)
		}
	}
	for _, bad := range []string{`{{ required "model is required" .s }}`, `{{ fail "no" }}`, `{{ div 1 0 }}`, `{{ until 1000000000 }}`, `{{ repeat 1000000000 "x" }}`,
		`{{ untilStep -4611686018427387904 4611686018427387904 1 }}`, `{{ "x" | indent 1000000000 }}`, `{{ "x" | nindent 1000000000 }}`, `{{ printf "%999999999d" 1 }}`, `{{ printf "%.999999999f" 1.0 }}`} {
		if _, err := exec(t, bad, values); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	// What reaches outside the chart does not exist: the template does not parse.
	for _, absent := range []string{`{{ env "GITHUB_TOKEN" }}`, `{{ expandenv "$HOME" }}`, `{{ getHostByName "x" }}`} {
		if _, err := exec(t, absent, values); err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Errorf("%s: %v", absent, err)
		}
	}
}

func renderChart(t *testing.T, files map[string]string) ([]Rendered, error) {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	return Render(filepath.Join(root, "chart"), confine.NewDirs(root))
}

func TestRenderChartWithSubchart(t *testing.T) {
	out, err := renderChart(t, map[string]string{
		"chart/Chart.yaml":                  "apiVersion: v2\nname: app\nversion: 1.0.0\nappVersion: \"2.0\"\ndependencies:\n  - name: sub\n    condition: sub.enabled\n  - name: off\n    condition: off.enabled\n",
		"chart/values.yaml":                 "replicas: 2\nsub:\n  enabled: true\n  gpus: 4\noff:\n  enabled: false\nglobal:\n  region: us-east-1\n",
		"chart/templates/_helpers.tpl":      `{{- define "app.name" -}}{{ .Release.Name }}-{{ .Chart.Name }}{{- end }}`,
		"chart/templates/deploy.yaml":       "kind: Deployment\nmetadata:\n  name: {{ include \"app.name\" . }}\nspec:\n  replicas: {{ .Values.replicas }}\n  version: {{ .Chart.AppVersion }}\n",
		"chart/templates/empty.yaml":        "{{- if .Values.nothing }}\nkind: Never\n{{- end }}\n",
		"chart/templates/NOTES.txt":         "{{ fail \"notes are not rendered\" }}",
		"chart/charts/sub/Chart.yaml":       "apiVersion: v2\nname: sub\nversion: 0.1.0\n",
		"chart/charts/sub/values.yaml":      "enabled: false\ngpus: 1\nname: worker\n",
		"chart/charts/sub/templates/j.yaml": "kind: Job\nmetadata:\n  name: {{ .Values.name }}\ngpus: {{ .Values.gpus }}\nregion: {{ .Values.global.region }}\n",
		"chart/charts/off/Chart.yaml":       "apiVersion: v2\nname: off\nversion: 0.1.0\n",
		"chart/charts/off/templates/x.yaml": "kind: Off\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		got = append(got, filepath.Base(r.Template)+"\n"+strings.TrimSpace(string(r.Data)))
	}
	want := []string{
		"deploy.yaml\nkind: Deployment\nmetadata:\n  name: release-name-app\nspec:\n  replicas: 2\n  version: 2.0",
		"j.yaml\nkind: Job\nmetadata:\n  name: worker\ngpus: 4\nregion: us-east-1",
	}
	if strings.Join(got, "\n---\n") != strings.Join(want, "\n---\n") {
		t.Fatalf("rendered\n%s\nwant\n%s", strings.Join(got, "\n---\n"), strings.Join(want, "\n---\n"))
	}
}

// A chart that cannot be rendered right is not rendered at all, with the reason; rendering is
// bounded; nothing outside the checked directories is read.
func TestRenderProblems(t *testing.T) {
	chart := "apiVersion: v2\nname: app\nversion: 1.0.0\n"
	// The timeout only bounds a case that would hang; each case ends by its own limit. Under the
	// race detector, with the other packages' tests on the same two cores, the template bomb's
	// 100,000 nested calls took over 2 s (CI, 2026-11-22): the bound leaves room for that.
	old := Timeout
	Timeout = 30 * time.Second
	defer func() { Timeout = old }()
	for _, tc := range []struct {
		name     string
		template string
		extra    map[string]string
		err      string
	}{
		{name: "unknown function", template: "{{ genCA \"x\" 365 }}", err: `function "genCA" not defined`},
		{name: "required value", template: "{{ required \"set image.tag\" .Values.image }}", err: "set image.tag"},
		{name: "include bomb", template: "{{- define \"a\" }}{{ include \"a\" . }}{{ include \"a\" . }}{{- end }}{{ include \"a\" . }}", err: "nested more than"},
		{name: "include recursion", template: "{{- define \"a\" }}{{ include \"a\" . }}{{- end }}name: {{ include \"a\" . }}",
			err: `template: app/templates/t.yaml:1:55: executing "app/templates/t.yaml" at <include "a" .>: error calling include: … template: app/templates/t.yaml:1:20: executing "a" at <include "a" .>: include and tpl nested more than 64 deep (through 65 nested calls)`},
		{name: "template bomb", template: "{{- define \"b\" }}{{ template \"b\" . }}{{ template \"b\" . }}{{- end }}{{ template \"b\" . }}", err: "exceeded maximum template depth"},
		{name: "output bomb", template: "{{ range until 100000 }}{{ repeat 1000 \"x\" }}{{ end }}", err: "renders more than"},
		// Values that double in a loop fill the memory before anything is written.
		{name: "string doubling", template: "{{ $s := \"xx\" }}{{ range until 100 }}{{ $s = printf \"%s%s\" $s $s }}{{ end }}", err: "produce more than"},
		{name: "cat doubling", template: "{{ $s := \"xx\" }}{{ range until 100 }}{{ $s = cat $s $s }}{{ end }}", err: "produce more than"},
		{name: "list doubling", template: "{{ $l := list 1 }}{{ range until 100 }}{{ $l = concat $l $l }}{{ end }}", err: "more than"},
		{name: "shared list serialized", template: "{{ $l := list 1 }}{{ range until 60 }}{{ $l = list $l $l }}{{ end }}{{ toYaml $l }}", err: "more than"},
		{name: "shared list printed", template: "{{ $l := list 1 }}{{ range until 60 }}{{ $l = list $l $l }}{{ end }}{{ $l }}", err: "more than"},
		{name: "shared dict merged", template: "{{ $d := dict }}{{ range until 60 }}{{ $d = dict \"a\" $d \"b\" $d }}{{ end }}{{ merge $d $d }}", err: "more than"},
		{name: "shared list copied", template: "{{ $l := list 1 }}{{ range until 60 }}{{ $l = list $l $l }}{{ end }}{{ deepCopy $l }}", err: "more than"},
		{name: "broken archive", template: "kind: X\n", extra: map[string]string{"chart/charts/sub-0.1.0.tgz": "not really"}, err: "sub-0.1.0.tgz: gzip"},
		{name: "file outside", template: "{{ .Files.Get \"../../secret\" }}", extra: map[string]string{"secret": "s3cr3t"}, err: ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"chart/Chart.yaml": chart, "chart/templates/t.yaml": tc.template}
			for k, v := range tc.extra {
				files[k] = v
			}
			out, err := renderChart(t, files)
			if tc.err == "" {
				for _, r := range out {
					if strings.Contains(string(r.Data), "s3cr3t") {
						t.Fatalf("read outside the chart: %s", r.Data)
					}
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("err = %v, want %q", err, tc.err)
			}
			// A recursion says where it started, where it recursed and why it stopped, once:
			// not the place of each of its 64 calls.
			if msg := err.Error(); len(msg) > 600 {
				t.Errorf("a %d-character error: %.300s…", len(msg), msg)
			}
		})
	}
}

// The chart `helm create` writes (testdata/created, with a GPU in its values) renders as Helm
// renders it.
func TestHelmCreateChart(t *testing.T) {
	out, err := Render(filepath.Join("testdata", "created"), confine.NewDirs("testdata"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range out {
		rel, _ := filepath.Rel(filepath.Join("testdata", "created"), r.Template)
		got[filepath.ToSlash(rel)] = string(r.Data)
	}
	if len(got) != 5 || got["templates/hpa.yaml"] != "" {
		t.Fatalf("rendered %d templates: %v", len(got), keysOf(got))
	}
	deploy := got["templates/deployment.yaml"]
	for _, want := range []string{
		"  name: release-name-created\n",
		"    helm.sh/chart: created-0.1.0_build.1\n",
		"    app.kubernetes.io/version: \"1.16.0\"\n",
		"  replicas: 1\n",
		"      serviceAccountName: release-name-created\n",
		"          image: \"nginx:1.16.0\"\n",
		"          resources:\n            limits:\n              nvidia.com/gpu: 1\n",
		"      nodeSelector:\n        node.kubernetes.io/instance-type: g5.xlarge",
	} {
		if !strings.Contains(deploy, want) {
			t.Errorf("deployment lacks %q:\n%s", want, deploy)
		}
	}
	if ing := got["templates/ingress.yaml"]; !strings.Contains(ing, "apiVersion: networking.k8s.io/v1\n") || !strings.Contains(ing, "ingressClassName: nginx") || !strings.Contains(ing, "pathType: ImplementationSpecific") {
		t.Errorf("ingress:\n%s", ing)
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// A packaged subchart (charts/*.tgz, as helm dependency build leaves it) renders like an
// unpacked one; entries that would leave the archive's directory, and links, are not read.
func TestPackagedSubchart(t *testing.T) {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range []struct {
		name, body string
		link       bool
	}{
		{name: "worker/Chart.yaml", body: "apiVersion: v2\nname: worker\nversion: 1.0.0\n"},
		{name: "worker/values.yaml", body: "gpus: 1\n"},
		{name: "worker/templates/job.yaml", body: "kind: Job\ngpus: {{ .Values.gpus }}\n"},
		{name: "../escape/templates/x.yaml", body: "kind: Escaped\n"},
		{name: "worker/templates/link.yaml", link: true},
	} {
		h := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg}
		if e.link {
			h = &tar.Header{Name: e.name, Linkname: "/etc/hostname", Typeflag: tar.TypeSymlink}
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(e.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	out, err := renderChart(t, map[string]string{
		"chart/Chart.yaml":              "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"chart/values.yaml":             "worker:\n  gpus: 8\n",
		"chart/charts/worker-1.0.0.tgz": buf.String(),
		"chart/templates/service.yaml":  "kind: Service\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range out {
		rel := filepath.ToSlash(r.Template)
		got = append(got, rel[strings.Index(rel, "/chart/")+1:]+": "+strings.TrimSpace(string(r.Data)))
	}
	want := "chart/templates/service.yaml: kind: Service|chart/charts/worker-1.0.0.tgz/worker/templates/job.yaml: kind: Job\ngpus: 8"
	if strings.Join(got, "|") != want {
		t.Fatalf("rendered %q\nwant %q", strings.Join(got, "|"), want)
	}
}

// A value that shares its parts (a list holding one list twice, many levels deep) is refused by
// the functions that would expand it, whatever made it.
func TestSharedValuesAreNotExpanded(t *testing.T) {
	var v any = []any{1}
	for range 40 {
		v = []any{v, v}
	}
	fm := (&renderer{}).funcs()
	for _, name := range []string{"toYaml", "toJson", "toPrettyJson", "deepCopy"} {
		out := reflect.ValueOf(fm[name]).Call([]reflect.Value{reflect.ValueOf(v)})
		if err, _ := out[len(out)-1].Interface().(error); err == nil || !strings.Contains(err.Error(), "elements") {
			t.Errorf("%s: %v", name, out[len(out)-1])
		}
	}
}

// .helmignore leaves files out of .Files and the templates, as helm package does.
func TestHelmignore(t *testing.T) {
	out, err := renderChart(t, map[string]string{
		"chart/Chart.yaml":          "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"chart/.helmignore":         "# editor files\n*.swp\nsecrets/\ndocs/*.md\n!docs/keep.md\ntemplates/old.yaml\n",
		"chart/secrets/key.txt":     "s3cr3t",
		"chart/notes.swp":           "swap",
		"chart/docs/a.md":           "a",
		"chart/docs/keep.md":        "kept",
		"chart/templates/old.yaml":  "{{ fail \"ignored templates are not rendered\" }}",
		"chart/templates/list.yaml": "files: {{ range $p, $_ := .Files }}{{ $p }} {{ end }}\n",
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != 1 || strings.TrimSpace(string(out[0].Data)) != "files: .helmignore Chart.yaml docs/keep.md" {
		t.Fatalf("rendered %q", out)
	}
}

// Values files override the chart's values as Helm coalesces them: false and 0 win, a null
// removes the key.
func TestValuesOverride(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"chart/Chart.yaml":       "apiVersion: v2\nname: app\nversion: 1.0.0\n",
		"chart/values.yaml":      "enabled: true\nreplicas: 3\nnodeSelector:\n  a: b\n  c: d\n",
		"chart/templates/t.yaml": "{{ .Values.enabled }} {{ .Values.replicas }} {{ toJson .Values.nodeSelector }}\n",
	})
	over, err := ParseValues([]byte("enabled: false\nreplicas: 0\nnodeSelector:\n  c: null\n  e: f\n"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(filepath.Join(root, "chart"), confine.NewDirs(root), over)
	if err != nil || len(out) != 1 || strings.TrimSpace(string(out[0].Data)) != `false 0 {"a":"b","e":"f"}` {
		t.Fatalf("%v %q", err, out)
	}
}

// Numbers in values are float64, as Helm reads them through JSON: kindIs and printing agree
// with Helm's.
func TestValuesNumbersAreFloats(t *testing.T) {
	v, err := ParseValues([]byte("replicas: 3\nratio: 0.5\n"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := exec(t, `{{ kindOf .replicas }} {{ .replicas }} {{ .ratio }} {{ int .replicas }} {{ add .replicas 1 }}`, v)
	if err != nil || got != "float64 3 0.5 3 4" {
		t.Fatalf("%q %v", got, err)
	}
}

// A dependency Chart.yaml lists that is not in charts/ (helm dependency build has not run) is
// reported when the values enable it, at any depth; a present or disabled one is not.
func TestMissingDependencies(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"chart/Chart.yaml": "apiVersion: v2\nname: app\nversion: 1.0.0\ndependencies:\n" +
			"  - {name: vllm-stack, version: 0.1.5, repository: \"https://vllm-project.github.io/production-stack\"}\n" +
			"  - {name: redis, version: 18.0.0, repository: \"oci://registry-1.docker.io/bitnamicharts\", condition: redis.enabled}\n" +
			"  - {name: sub, version: 0.1.0}\n",
		"chart/values.yaml":            "redis:\n  enabled: false\n",
		"chart/templates/cm.yaml":      "kind: ConfigMap\n",
		"chart/charts/sub/Chart.yaml":  "apiVersion: v2\nname: sub\nversion: 0.1.0\ndependencies:\n  - {name: deeper, version: 2.0.0, repository: \"https://charts.example.com\"}\n",
		"chart/charts/sub/values.yaml": "x: 1\n",
	})
	c, err := RenderChart(filepath.Join(root, "chart"), confine.NewDirs(root))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Missing {
		rel, _ := filepath.Rel(root, m.Chart)
		got = append(got, filepath.ToSlash(rel)+" "+m.Name+" "+m.Version+" "+m.Repository)
	}
	want := "chart vllm-stack 0.1.5 https://vllm-project.github.io/production-stack\nchart/charts/sub deeper 2.0.0 https://charts.example.com"
	if strings.Join(got, "\n") != want || len(c.Rendered) != 1 {
		t.Fatalf("missing:\n%s\nwant:\n%s\nrendered %d", strings.Join(got, "\n"), want, len(c.Rendered))
	}
}
