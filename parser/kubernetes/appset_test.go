package kubernetes

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// fakeRepo is a repository of files (directories are their parents).
type fakeRepo map[string]string

func (r fakeRepo) Match(_, pattern string, dirs bool) ([]string, error) {
	set := map[string]bool{}
	for name := range r {
		if dirs {
			if i := strings.LastIndex(name, "/"); i > 0 {
				name = name[:i]
			} else {
				continue
			}
		}
		if ok, _ := pathMatch(pattern, name); ok {
			set[name] = true
		}
	}
	var out []string
	for n := range set {
		out = append(out, n)
	}
	sort.Strings(out)
	return out, nil
}

func (r fakeRepo) ReadFile(_, name string) ([]byte, error) { return []byte(r[name]), nil }

// pathMatch is path.Match on whole paths ('*' stays within a segment).
func pathMatch(pattern, name string) (bool, error) {
	ps, ns := strings.Split(pattern, "/"), strings.Split(name, "/")
	if len(ps) != len(ns) {
		return false, nil
	}
	for i := range ps {
		if ps[i] != "*" && ps[i] != ns[i] && !(strings.HasSuffix(ps[i], "*") && strings.HasPrefix(ns[i], strings.TrimSuffix(ps[i], "*"))) {
			return false, nil
		}
	}
	return true, nil
}

// generated expands the ApplicationSets of a manifest and describes each Application by its
// name, namespace and first source's path and helm.releaseName.
func generated(t *testing.T, manifest string, repo Repository) ([]string, []string, []string) {
	t.Helper()
	files, errs, warns := ApplicationSetApps([]*File{Decode("appset.yaml", []byte(manifest))}, repo)
	var apps, es, ws []string
	for _, f := range files {
		for _, o := range f.objects {
			app, err := readArgoApp(o)
			if err != nil || len(app.sources) == 0 {
				t.Fatalf("generated %s: %v", o.address(), err)
			}
			rel := ""
			if h := app.sources[0].Helm; h != nil {
				rel = h.ReleaseName
			}
			apps = append(apps, fmt.Sprintf("%s %s %s %s line %d", o.Metadata.Name, o.namespace(), app.sources[0].Path, rel, o.line))
		}
	}
	for _, e := range errs {
		es = append(es, fmt.Sprintf("%d %s", e.Line, e.Message))
	}
	for _, w := range warns {
		ws = append(ws, w.Message)
	}
	return apps, es, ws
}

const appSetHead = "apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: s, namespace: gitops}\nspec:\n"

// fasttemplate: a list element's nested values are dotted parameters and a git generator's
// values are values.*; a file's parameters include path.filename and path[N]; a tag no
// parameter fills is left as written. The merge generator merges the sets of later generators
// whose merge keys match over the first's.
func TestApplicationSetParameters(t *testing.T) {
	repo := fakeRepo{"clusters/east/cfg.yaml": "cluster: {name: east, size: big}\n", "clusters/west/cfg.yaml": "cluster: {name: west, size: small}\n"}
	manifest := appSetHead + `  generators:
  - merge:
      mergeKeys: [cluster.name]
      generators:
      - git: {repoURL: r, files: [{path: clusters/*/cfg.yaml}], values: {tier: gold}}
      - list: {elements: [{cluster: {name: west}, chart: charts/west}]}
  template:
    metadata: {name: '{{cluster.name}}-{{ path.filename }}', namespace: '{{path[0]}}'}
    spec:
      source: {path: '{{chart}}', helm: {releaseName: '{{values.tier}}-{{cluster.size}}-{{unknown}}'}}
`
	apps, errs, warns := generated(t, manifest, repo)
	want := []string{
		"east-cfg.yaml clusters {{chart}} gold-big-{{unknown}} line 12",
		"west-cfg.yaml clusters charts/west gold-small-{{unknown}} line 12",
	}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") || len(errs)+len(warns) != 0 {
		t.Errorf("applications\n got %q\nwant %q\nerrors %q warnings %q", apps, want, errs, warns)
	}
}

// goTemplate: parameters nest (.path.segments, .cluster.name); the ApplicationSet's namespace
// is the Applications' unless the template names one. A matrix of other than two generators,
// a git generator that matches nothing, and one with no repository to read are said.
func TestApplicationSetGoTemplate(t *testing.T) {
	repo := fakeRepo{"apps/web/Chart.yaml": "", "apps/batch/Chart.yaml": ""}
	manifest := appSetHead + `  goTemplate: true
  generators:
  - git: {repoURL: r, directories: [{path: apps/*}]}
  - git: {repoURL: https://github.com/acme/other, directories: [{path: elsewhere/*}]}
  template:
    metadata: {name: '{{ .path.basename | upper }}'}
    spec:
      source: {path: '{{ .path.path }}', helm: {releaseName: '{{ index .path.segments 0 }}-{{ .path.basenameNormalized }}'}}
---
` + appSetHead + `  generators:
  - matrix: {generators: [{list: {elements: [{a: b}]}}]}
  template:
    metadata: {name: x}
    spec: {source: {path: p}}
`
	apps, errs, warns := generated(t, manifest, repo)
	want := []string{"BATCH gitops apps/batch apps-batch line 10", "WEB gitops apps/web apps-web line 10"}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") {
		t.Errorf("applications\n got %q\nwant %q", apps, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "spec.generators[0].matrix: a matrix combines two generators, not 1") {
		t.Errorf("errors %q", errs)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "spec.generators[1]: the git generator matches nothing in this repository (https://github.com/acme/other may be another)") {
		t.Errorf("warnings %q", warns)
	}
	_, _, warns = generated(t, manifest, nil)
	if len(warns) != 2 || !strings.Contains(warns[0], "spec.generators[0]: the git generator is not expanded here") {
		t.Errorf("warnings without a repository %q", warns)
	}
}
