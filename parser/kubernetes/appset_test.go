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

// argoSecrets registers two clusters with Argo CD (one in stringData, one in base64 data) and
// holds a cluster Secret whose name is not base64 and a Secret of another type.
const argoSecrets = `apiVersion: v1
kind: Secret
metadata: {name: c1, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster, env: prod}}
stringData: {name: prod_East, server: https://prod.example}
---
apiVersion: v1
kind: Secret
metadata: {name: c2, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster, env: dev}, annotations: {team: ml}}
data: {name: ZGV2, server: aHR0cHM6Ly9kZXYuZXhhbXBsZQ==}
---
apiVersion: v1
kind: Secret
metadata: {name: c3, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster}}
data: {name: '!!!', server: eA==}
---
apiVersion: v1
kind: Secret
metadata: {name: other, namespace: argocd}
stringData: {name: ignored, server: https://other.example}
---
`

// The clusters generator makes a set per cluster Secret (name, nameNormalized, server,
// metadata.labels.*, metadata.annotations.*, values.* with those substituted) and, with no
// selector, one for in-cluster first. A selector leaves in-cluster out; a post selector
// filters any generator's sets; a selector that matches nothing is a warning, a bad operator an
// error.
func TestApplicationSetClusters(t *testing.T) {
	manifest := argoSecrets + appSetHead + `  generators:
  - clusters: {values: {rev: '{{name}}-main'}}
  template:
    metadata: {name: '{{nameNormalized}}-llm'}
    spec: {source: {path: 'charts/{{metadata.labels.env}}', helm: {releaseName: '{{values.rev}}-{{metadata.annotations.team}}'}}}
---
` + appSetHead + `  generators:
  - clusters: {selector: {matchExpressions: [{key: env, operator: In, values: [prod, staging]}]}}
  - list: {elements: [{env: a}, {env: b}]}
    selector: {matchLabels: {env: b}}
  - clusters: {selector: {matchLabels: {env: none}}}
  template:
    metadata: {name: 'x-{{name}}{{env}}'}
    spec: {source: {path: p}}
---
` + appSetHead + `  generators:
  - clusters: {selector: {matchExpressions: [{key: env, operator: Gt, values: ["1"]}]}}
  template:
    metadata: {name: y}
    spec: {source: {path: p}}
`
	apps, errs, warns := generated(t, manifest, nil)
	want := []string{
		"in-cluster-llm gitops charts/{{metadata.labels.env}} in-cluster-main-{{metadata.annotations.team}} line 28",
		"prod-east-llm gitops charts/prod prod_East-main-{{metadata.annotations.team}} line 28",
		"dev-llm gitops charts/dev dev-main-ml line 28",
		"x-prod_East{{env}} gitops p  line 41",
		"x-{{name}}b gitops p  line 41",
	}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") {
		t.Errorf("applications\n got %q\nwant %q", apps, want)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], `spec.generators[0].clusters.selector: matchExpressions: operator "Gt" is not In, NotIn, Exists or DoesNotExist`) {
		t.Errorf("errors %q", errs)
	}
	wantWarns := []string{
		"Secret/argocd/c3: an Argo CD cluster Secret whose name or server holds a value that is not base64",
		"spec.generators[2]: the clusters generator matches no Argo CD cluster Secret among the manifests",
	}
	if len(warns) != len(wantWarns) {
		t.Fatalf("warnings %q", warns)
	}
	for i, w := range wantWarns {
		if !strings.Contains(warns[i], w) {
			t.Errorf("warning %d: %q, want %q", i, warns[i], w)
		}
	}

	// A Secret that registers in-cluster (its server) takes its place.
	apps, _, _ = generated(t, `apiVersion: v1
kind: Secret
metadata: {name: hub, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster}}
stringData: {name: hub, server: 'https://kubernetes.default.svc'}
---
`+appSetHead+`  generators: [{clusters: {}}]
  template: {metadata: {name: '{{name}}'}, spec: {source: {path: p}}}
`, nil)
	if strings.Join(apps, "\n") != "hub gitops p  line 11" {
		t.Errorf("in-cluster registered by a Secret: applications %q", apps)
	}

	// argocd-cm can turn in-cluster off.
	apps, _, _ = generated(t, argoSecrets+`apiVersion: v1
kind: ConfigMap
metadata: {name: argocd-cm, namespace: argocd}
data: {cluster.inClusterEnabled: "false"}
---
`+appSetHead+`  generators: [{clusters: {}}]
  template: {metadata: {name: '{{name}}'}, spec: {source: {path: p}}}
`, nil)
	if strings.Join(apps, "\n") != "prod_East gitops p  line 31\ndev gitops p  line 31" {
		t.Errorf("in-cluster turned off: applications %q", apps)
	}

	// Without cluster Secrets, in-cluster alone is generated, and a warning says so.
	apps, _, warns = generated(t, appSetHead+`  generators: [{clusters: {}}]
  template: {metadata: {name: '{{name}}'}, spec: {source: {path: p}}}
`, nil)
	if strings.Join(apps, "\n") != "in-cluster gitops p  line 6" || len(warns) != 1 || !strings.Contains(warns[0], "counted for the cluster Argo CD runs in (in-cluster) alone") {
		t.Errorf("no Secrets: applications %q warnings %q", apps, warns)
	}
}

// goTemplate: a cluster's labels nest under .metadata, its values under .values; a matrix's
// second generator takes the first's parameters (a git path per cluster); a generator's own
// template (inside it: list.template) is merged over spec.template (a null there changes
// nothing); templatePatch is rendered per set and merged over the Application (null removes a
// key). Without goTemplate, templatePatch is a warning.
func TestApplicationSetClustersGoTemplate(t *testing.T) {
	repo := fakeRepo{"envs/prod/llm.yaml": "model: llama\n", "envs/dev/tiny.yaml": "model: tiny\n"}
	manifest := argoSecrets + appSetHead + `  goTemplate: true
  generators:
  - matrix:
      generators:
      - clusters: {selector: {matchLabels: {env: prod}}, values: {tier: '{{ .metadata.labels.env | upper }}'}}
      - git: {repoURL: r, files: [{path: 'envs/{{ .metadata.labels.env }}/*'}]}
  - list:
      elements: [{name: solo}]
      template:
        metadata: {namespace: other, name: null}
  template:
    metadata: {name: '{{ .name }}-{{ default "none" .model }}'}
    spec: {source: {path: charts/llm, helm: {releaseName: base}}}
  templatePatch: |
    spec:
      source:
    {{- if .values }}
        helm: {releaseName: '{{ .values.tier }}-{{ .model }}'}
    {{- else }}
        helm: null
    {{- end }}
---
` + appSetHead + `  generators: [{list: {elements: [{a: b}]}}]
  template: {metadata: {name: z}, spec: {source: {path: p}}}
  templatePatch: 'spec: {source: {path: q}}'
`
	apps, errs, warns := generated(t, manifest, repo)
	want := []string{
		"prod_East-llama gitops charts/llm PROD-llama line 36",
		"solo-none other charts/llm  line 36",
		"z gitops p  line 52",
	}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") || len(errs) != 0 {
		t.Errorf("applications\n got %q\nwant %q\nerrors %q", apps, want, errs)
	}
	if len(warns) != 2 || !strings.Contains(warns[1], "spec.templatePatch is not applied: Argo CD applies it only with goTemplate") {
		t.Errorf("warnings %q", warns)
	}
}

// Where a generator's template goes, as Argo CD's schema has it: inside the generator
// (list.template, matrix.template), not beside it, where Kubernetes drops it (a warning). An
// entry naming two generators generates from each with its own template and the entry's post
// selector; inside a matrix or a merge that is an error, and a child's own template is not applied (a warning).
func TestApplicationSetGeneratorTemplates(t *testing.T) {
	manifest := appSetHead + `  generators:
  - list:
      elements: [{name: a}]
      template: {spec: {source: {path: from-list}}}
    git: {repoURL: r, directories: [{path: apps/*}]}
    selector: {matchExpressions: [{key: path.basename, operator: NotIn, values: [batch]}]}
  - matrix:
      generators:
      - list:
          elements: [{name: m}]
          template: {spec: {source: {path: ignored}}}
      - list: {elements: [{env: prod}]}
      template: {spec: {source: {path: from-matrix}}}
  - list: {elements: [{name: beside}]}
    template: {spec: {source: {path: dropped}}}
  - {}
  template:
    metadata: {name: '{{name}}{{path.basename}}{{env}}'}
    spec: {source: {path: base}}
---
` + appSetHead + `  generators:
  - merge:
      mergeKeys: [name]
      generators:
      - list: {elements: [{name: x}]}
        clusters: {}
      - list: {elements: [{name: x}]}
  template: {metadata: {name: '{{name}}'}, spec: {source: {path: p}}}
---
apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata: {name: g, namespace: gitops}
spec:
  generators:
  - git: {repoURL: r, directories: [{path: apps/web}]}
    template: {spec: {source: {path: dropped}}}
  template: {metadata: {name: 'g-{{path.basename}}'}, spec: {source: {path: '{{path}}'}}}
`
	apps, errs, warns := generated(t, manifest, fakeRepo{"apps/web/Chart.yaml": "", "apps/batch/Chart.yaml": ""})
	want := []string{
		"a{{path.basename}}{{env}} gitops from-list  line 22",
		"{{name}}web{{env}} gitops base  line 22",
		"m{{path.basename}}prod gitops from-matrix  line 22",
		"beside{{path.basename}}{{env}} gitops base  line 22",
		"g-web gitops apps/web  line 45",
	}
	if strings.Join(apps, "\n") != strings.Join(want, "\n") {
		t.Errorf("applications\n got %q\nwant %q", apps, want)
	}
	wantWarns := []string{
		"ApplicationSet/gitops/s: spec.generators[1].matrix.generators[0].list.template is not applied: Argo CD does not apply the templates of a matrix's generators",
		"ApplicationSet/gitops/s: spec.generators[2].template is not applied: a generator's template goes inside the generator (spec.generators[2].list.template); beside it, Kubernetes drops the field",
		"ApplicationSet/gitops/s: spec.generators[3]: an unknown generator is not expanded: the Applications it generates are not counted",
		"ApplicationSet/gitops/g: spec.generators[0].template is not applied: a generator's template goes inside the generator (spec.generators[0].git.template); beside it, Kubernetes drops the field",
	}
	if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warns, wantWarns)
	}
	if len(errs) != 1 || errs[0] != "33 ApplicationSet/gitops/s: spec.generators[0].merge.generators[0] names 2 generators (list, clusters): Argo CD takes one per entry of a merge, and fails" {
		t.Errorf("errors %q", errs)
	}
}
