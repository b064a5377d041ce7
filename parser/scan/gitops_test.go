package scan

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// resourceLines are a scan's resources, one line each (root, address, instance type,
// quantity×GPUs), sorted.
func resourceLines(res parser.Result) []string {
	var out []string
	for _, r := range res.Resources {
		out = append(out, fmt.Sprintf("%s %s %s %d×%d", r.Root, r.Address, r.InstanceType, r.Quantity, r.Pod.Requested))
	}
	sort.Strings(out)
	return out
}

// messageLines are errors or warnings as "file:line message", the file's base name.
func messageLines(errs []parser.Error) []string {
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s:%d %s", filepath.Base(e.File), e.Line, e.Message))
	}
	return out
}

// app is an Argo CD Application of the chart at path in the acme/platform repository.
func app(name, path, helm string) string {
	return fmt.Sprintf(`apiVersion: argoproj.io/v1alpha1
kind: Application
metadata: {name: %s, namespace: argocd}
spec:
  destination: {server: https://kubernetes.default.svc, namespace: %s}
  sources:
  - repoURL: https://github.com/acme/platform.git
    path: %s
    helm: {%s}
  - {repoURL: https://github.com/acme/platform, ref: values}
  - {repoURL: https://github.com/acme/settings, ref: other}
`, name, strings.TrimPrefix(name, "web-"), path, helm)
}

// An Argo CD Application whose source is a chart directory of the repository being read renders
// that chart as Argo CD does: its release name and destination namespace, its value files
// (relative to the chart, or with a $ref of a source of the same repository to its root), its
// helm values and parameters over them. The chart is then the Applications' input, not counted
// again with its default values. A value file of another repository, or missing and ignored, is
// left out; one missing otherwise is an error, and the Application deploys nothing. The
// Applications of a chart an Application renders are followed (app of apps). A path out of the
// repository, or to no chart, is not read.
func TestArgoCDApplicationsRenderRepositoryCharts(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		"charts/web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/values.yaml":        "replicas: 1\ngpus: 1\ntype: g5.xlarge\n",
		"charts/web/values-prod.yaml":   "replicas: 4\ntype: g5.2xlarge\n",
		"charts/web/templates/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: '{{ .Release.Name }}'}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: '{{ .Values.type }}'}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: {{ .Values.gpus }}}}}]\n",
		"env/two-gpus.yaml":             "gpus: 2\n",
		// app of apps: a chart of Applications, which an Application renders.
		"charts/apps/Chart.yaml":          "apiVersion: v2\nname: apps\nversion: 0.1.0\n",
		"charts/apps/values.yaml":         "team: ml\n",
		"charts/apps/templates/apps.yaml": app("web-batch", "charts/web", "releaseName: 'batch-{{ .Values.team }}', parameters: [{name: replicas, value: '2'}]"),
		"deploy/apps/prod.yaml": app("web-prod", "charts/web", "releaseName: web, valueFiles: [values-prod.yaml, $values/env/two-gpus.yaml, $other/gpus.yaml, absent.yaml], ignoreMissingValueFiles: true, parameters: [{name: replicas, value: '3'}]") + "---\n" +
			app("web-staging", "charts/web", "values: 'type: g6.xlarge'") + "---\n" +
			app("web-root", "charts/apps", "") + "---\n" +
			app("web-broken", "charts/web", "valueFiles: [absent.yaml]") + "---\n" +
			app("web-outside", "../charts/web", "") + "---\n" +
			app("web-elsewhere", "services/web", ""),
	})
	res := Scan([]string{root}, Options{})
	got := resourceLines(res)
	app := func(name string) string {
		return filepath.ToSlash(filepath.Join(root, "deploy/apps/prod.yaml")) + "#argocd/" + name
	}
	want := []string{
		app("web-prod") + " Deployment/prod/web g5.2xlarge 3×2",
		app("web-staging") + " Deployment/staging/web-staging g6.xlarge 1×1",
		filepath.ToSlash(filepath.Join(root, "charts/apps/templates/apps.yaml")) + "#argocd/web-batch Deployment/batch/batch-ml g5.xlarge 2×1",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	var errs, warns []string
	for _, e := range res.Errors {
		errs = append(errs, fmt.Sprintf("%s:%d %s", filepath.Base(e.File), e.Line, e.Message))
	}
	for _, w := range res.Warnings {
		warns = append(warns, w.Message)
	}
	if len(errs) != 1 || !strings.Contains(errs[0], "prod.yaml:37 Application/argocd/web-broken: value file absent.yaml:") || !strings.Contains(errs[0], "Argo CD cannot render the chart") {
		t.Errorf("errors %q, want one: web-broken's missing value file", errs)
	}
	if len(warns) != 1 || warns[0] != "Application/argocd/web-prod: value file $other/gpus.yaml is in https://github.com/acme/settings, not in the repository of the chart: the chart is rendered without it" {
		t.Errorf("warnings %q", warns)
	}
	for _, r := range res.Resources {
		if r.Address == "Deployment/prod/web" && !strings.Contains(strings.Join(r.Notes, "\n"),
			"rendered by Application argocd/web-prod ("+filepath.ToSlash(filepath.Join(root, "deploy/apps/prod.yaml"))+":1) from the Helm chart") {
			t.Errorf("notes %q do not say which Application rendered it", r.Notes)
		}
	}
}

// fluxRelease is a Flux HelmRelease; spec is the rest of its spec, indented two spaces.
func fluxRelease(name, ns, spec string) string {
	return fmt.Sprintf("apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: %s, namespace: %s}\nspec:\n  interval: 10m\n%s", name, ns, spec)
}

// A Flux HelmRelease whose chart comes from a GitRepository, inline or through a HelmChart,
// renders the repository's chart as Flux does: as release spec.releaseName, else
// [targetNamespace-]name, in the target namespace, else its own; with the chart's valuesFiles
// (paths from the repository's root, merged in place of values.yaml), then valuesFrom, then
// values. A value file that is missing stops the release (an error) unless
// ignoreMissingValuesFiles; a valuesFrom not among the manifests is a warning.
// A chart from a HelmRepository or a Bucket is not rendered from the repository, and the chart is not
// counted again with its default values.
func TestFluxHelmReleasesRenderRepositoryCharts(t *testing.T) {
	root := t.TempDir()
	// Post renderers patch what the chart renders: within one, patchesStrategicMerge, then
	// patches, then patchesJson6902; a patch that matches nothing is a warning.
	postRenderers := `  postRenderers:
  - kustomize:
      patchesStrategicMerge:
      - {apiVersion: apps/v1, kind: Deployment, metadata: {name: serving-vllm}, spec: {replicas: 6}}
      patches:
      - target: {kind: Deployment}
        patch: |
          - op: replace
            path: /spec/template/spec/nodeSelector/node.kubernetes.io~1instance-type
            value: g6e.12xlarge
      - patch: |
          apiVersion: apps/v1
          kind: Deployment
          metadata: {name: serving-vllm}
          spec: {replicas: 5}
      - target: {kind: StatefulSet}
        patch: |
          spec: {replicas: 9}
  - kustomize:
      patchesJson6902:
      - target: {kind: Deployment, name: serving-vllm}
        patch: [{op: replace, path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu, value: 4}]
`
	sourceRef := "sourceRef: {kind: GitRepository, name: flux-system, namespace: flux-system}"
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                       "ref: refs/heads/main\n",
		"charts/vllm/Chart.yaml":          "apiVersion: v2\nname: vllm\nversion: 0.1.0\n",
		"charts/vllm/values.yaml":         "replicas: 1\ngpus: 1\ntype: g5.xlarge\n",
		"charts/vllm/values-prod.yaml":    "replicas: 4\ntype: g5.12xlarge\n",
		"charts/vllm/templates/vllm.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: '{{ .Release.Name }}', labels: {team: '${team:=ml}'}}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: '{{ .Values.type }}'}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: {{ .Values.gpus | default 8 }}}}}]\n",
		"env/lab.yaml":                    "replicas: 2\ntype: g6.xlarge\n",
		"clusters/prod/vllm.yaml":         "apiVersion: v1\nkind: Namespace\nmetadata: {name: serving}\n---\n" + fluxRelease("vllm", "flux-system", "  targetNamespace: serving\n  chart:\n    spec:\n      chart: ./charts/vllm\n      "+sourceRef+"\n      valuesFiles: [./charts/vllm/values.yaml, charts/vllm/values-prod.yaml]\n  valuesFrom: [{kind: ConfigMap, name: vllm-overrides}]\n  values: {type: g6e.xlarge}\n"+postRenderers),
		"clusters/prod/overrides.yaml":    "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: vllm-overrides, namespace: flux-system}\ndata:\n  values.yaml: |\n    replicas: 3\n",
		"clusters/lab/vllm.yaml": fluxRelease("lab", "lab", "  releaseName: vllm-lab\n  chartRef: {kind: HelmChart, name: lab-vllm}\n") + "---\n" +
			"apiVersion: source.toolkit.fluxcd.io/v1\nkind: HelmChart\nmetadata: {name: lab-vllm, namespace: lab}\nspec:\n  chart: charts/vllm\n  " + sourceRef + "\n  valuesFiles: [/env/lab.yaml]\n",
		"clusters/apps.yaml": fluxRelease("remote", "apps", "  chart: {spec: {chart: vllm, sourceRef: {kind: HelmRepository, name: vllm}, valuesFiles: [charts/vllm/values-prod.yaml]}}\n") + "---\n" +
			fluxRelease("bucket", "apps", "  chart: {spec: {chart: ./charts/vllm, sourceRef: {kind: Bucket, name: charts}}}\n") + "---\n" +
			fluxRelease("single", "apps", "  chart: {spec: {chart: ./charts/vllm, "+sourceRef+", valuesFile: env/lab.yaml}}\n") + "---\n" +
			fluxRelease("broken", "apps", "  chart: {spec: {chart: ./charts/vllm, "+sourceRef+", valuesFiles: [charts/vllm/absent.yaml]}}\n") + "---\n" +
			fluxRelease("tolerant", "apps", "  chart: {spec: {chart: ./charts/vllm, "+sourceRef+", valuesFiles: [charts/vllm/absent.yaml], ignoreMissingValuesFiles: true}}\n  valuesFrom: [{kind: Secret, name: sealed}, {kind: Secret, name: extra, optional: true}]\n"),
	})
	res := Scan([]string{root}, Options{})
	got := resourceLines(res)
	at := func(file, owner string) string {
		return filepath.ToSlash(filepath.Join(root, file)) + "#" + owner
	}
	want := []string{
		at("clusters/prod/vllm.yaml", "flux-system/vllm") + " Deployment/serving/serving-vllm g6e.12xlarge 5×4",
		at("clusters/lab/vllm.yaml", "lab/lab") + " Deployment/lab/vllm-lab g6.xlarge 2×8",
		at("clusters/apps.yaml", "apps/tolerant") + " Deployment/apps/tolerant g5.xlarge 1×1",
		at("clusters/apps.yaml", "apps/single") + " Deployment/apps/single g6.xlarge 2×8",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	errs, warns := messageLines(res.Errors), messageLines(res.Warnings)
	sort.Strings(warns)
	if len(errs) != 1 || !strings.Contains(errs[0], "apps.yaml:22 HelmRelease/apps/broken: value file charts/vllm/absent.yaml:") || !strings.Contains(errs[0], "Flux cannot render the chart") {
		t.Errorf("errors %q, want one: broken's missing value file", errs)
	}
	wantWarns := []string{
		"apps.yaml:35 HelmRelease/apps/tolerant: spec.valuesFrom[0] (Secret sealed, key values.yaml) is not among the manifests: the values it holds are not read",
		"vllm.yaml:34 this patch matches no object among the chart's objects and is not applied",
	}
	if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warns, wantWarns)
	}
	for _, r := range res.Resources {
		if r.Address == "Deployment/serving/serving-vllm" && !strings.Contains(strings.Join(r.Notes, "\n"),
			"rendered by HelmRelease flux-system/vllm ("+filepath.ToSlash(filepath.Join(root, "clusters/prod/vllm.yaml"))+":5) from the Helm chart "+
				filepath.ToSlash(filepath.Join(root, "charts/vllm"))+" as release serving-vllm with ./charts/vllm/values.yaml, charts/vllm/values-prod.yaml (in place of values.yaml) and the HelmRelease's values, then patched by its post renderers") {
			t.Errorf("notes %q do not say which HelmRelease rendered it, and with what", r.Notes)
		}
	}
}

// appSet is an Argo CD ApplicationSet; spec is the rest of its spec, indented two spaces.
func appSet(name, spec string) string {
	return fmt.Sprintf("apiVersion: argoproj.io/v1alpha1\nkind: ApplicationSet\nmetadata: {name: %s, namespace: argocd}\nspec:\n%s", name, spec)
}

// An Argo CD ApplicationSet generates Applications from its template, and those of a chart
// directory of the repository render it as an Application does: a parameter set per file its
// git files generator matches (their values flattened, with path.* of the file's directory),
// per directory its git directories generator matches (excludes left out), per list element,
// and their matrix; {{param}} substituted, or Go templates with goTemplate. A generator gpuguard
// cannot expand (clusters) is a warning; a template that fails (missingkey=error) an error.
func TestArgoCDApplicationSetsRenderRepositoryCharts(t *testing.T) {
	root := t.TempDir()
	chartApp := func(name, ns, helm string) string {
		return "  template:\n    metadata: {name: '" + name + "'}\n    spec:\n      destination: {server: https://kubernetes.default.svc, namespace: '" + ns + "'}\n" +
			"      source: {repoURL: https://github.com/acme/platform, path: charts/web, helm: {" + helm + "}}\n"
	}
	testutil.WriteFiles(t, root, map[string]string{
		".git/HEAD":                     "ref: refs/heads/main\n",
		"charts/web/Chart.yaml":         "apiVersion: v2\nname: web\nversion: 0.1.0\n",
		"charts/web/values.yaml":        "replicas: 1\ngpus: 1\ntype: g5.xlarge\n",
		"charts/web/templates/web.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: '{{ .Release.Name }}'}\nspec:\n  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: '{{ .Values.type }}'}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: {{ .Values.gpus }}}}}]\n",
		"envs/prod/config.yaml":         "env: prod\nsize: {replicas: 3, type: g5.2xlarge}\n",
		"envs/staging/config.json":      `{"env": "staging", "size": {"replicas": 1, "type": "g6.xlarge"}}`,
		"teams/ml/README.md":            "ml\n",
		"teams/vision/README.md":        "vision\n",
		"teams/archived/README.md":      "old\n",
		"teams/ml/notebooks/a.ipynb":    "{}\n",
		"envs/.draft/config.yaml":       "env: draft\nsize: {replicas: 9, type: p4d.24xlarge}\n",
		"argocd/clusters.yaml": "apiVersion: v1\nkind: Secret\nmetadata: {name: east, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster}}\nstringData: {name: gpu-east, server: https://east.example}\n---\n" +
			"apiVersion: v1\nkind: Secret\nmetadata: {name: west, namespace: argocd, labels: {argocd.argoproj.io/secret-type: cluster}}\nstringData: {name: gpu-west, server: https://west.example}\n",
		"deploy/appsets.yaml": appSet("envs", "  generators:\n  - git: {repoURL: https://github.com/acme/platform, revision: HEAD, files: [{path: 'envs/*/config.*'}]}\n"+
			chartApp("web-{{env}}", "{{path.basename}}", "parameters: [{name: replicas, value: '{{size.replicas}}'}, {name: type, value: '{{ size.type }}'}, {name: team, value: '{{team}}'}]")) + "---\n" +
			appSet("teams", "  goTemplate: true\n  generators:\n  - matrix:\n      generators:\n      - git: {repoURL: https://github.com/acme/platform, revision: HEAD, directories: [{path: 'teams/*'}, {path: teams/archived, exclude: true}]}\n      - list: {elements: [{gpus: 2}]}\n"+
				chartApp("{{ .path.basename }}-batch", "{{ index .path.segments 0 }}", "releaseName: '{{ .path.basename | upper }}', parameters: [{name: gpus, value: '{{ .gpus }}'}]")) + "---\n" +
			appSet("clusters", "  generators:\n  - clusters: {}\n"+chartApp("web-{{name}}", "web", "")) + "---\n" +
			appSet("strict", "  goTemplate: true\n  goTemplateOptions: [missingkey=error]\n  generators:\n  - list: {elements: [{env: x}]}\n"+chartApp("web-{{ .nope }}", "web", "")),
	})
	res := Scan([]string{root}, Options{})
	got := resourceLines(res)
	at := func(name string) string {
		return filepath.ToSlash(filepath.Join(root, "deploy/appsets.yaml")) + "#argocd/" + name
	}
	want := []string{
		at("web-prod") + " Deployment/prod/web-prod g5.2xlarge 3×1",
		at("web-staging") + " Deployment/staging/web-staging g6.xlarge 1×1",
		at("ml-batch") + " Deployment/teams/ML g5.xlarge 1×2",
		at("vision-batch") + " Deployment/teams/VISION g5.xlarge 1×2",
		at("web-in-cluster") + " Deployment/web/web-in-cluster g5.xlarge 1×1",
		at("web-gpu-east") + " Deployment/web/web-gpu-east g5.xlarge 1×1",
		at("web-gpu-west") + " Deployment/web/web-gpu-west g5.xlarge 1×1",
	}
	sort.Strings(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("resources\n got %q\nwant %q", got, want)
	}
	errs, warns := messageLines(res.Errors), messageLines(res.Warnings)
	if len(errs) != 1 || !strings.HasPrefix(errs[0], "appsets.yaml:50 ApplicationSet/argocd/strict: spec.template: ") || !strings.Contains(errs[0], `map has no entry for key "nope"`) {
		t.Errorf("errors %q, want one: strict's missing key", errs)
	}
	if len(warns) != 0 {
		t.Errorf("warnings %q", warns)
	}
}

// A $ref's repository is the chart's whatever form its URL takes (HTTPS, SSH, .git or not).
func TestSameRepo(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"https://github.com/acme/platform.git", "https://github.com/acme/platform/", true},
		{"git@github.com:acme/platform.git", "https://github.com/acme/platform", true},
		{"ssh://git@github.com/acme/platform", "https://GitHub.com/acme/platform", true},
		{"https://github.com/acme/platform", "https://github.com/acme/settings", false},
		{"git@github.com:acme/platform", "git@gitlab.com:acme/platform", false},
	} {
		if got := sameRepo(tc.a, tc.b); got != tc.same {
			t.Errorf("sameRepo(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}

// A git generator's pattern matches segment by segment as path.Match does; ** matches any
// number of directories, none included.
func TestMatchGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"teams/*", "teams/ml", true},
		{"teams/*", "teams/ml/notebooks", false},
		{"teams/*", "teams", false},
		{"envs/*/config.*", "envs/prod/config.json", true},
		{"**/config.yaml", "config.yaml", true},
		{"**/config.yaml", "a/b/c/config.yaml", true},
		{"a/**/c", "a/c", true},
		{"a/**/c", "a/b/x/c", true},
		{"a/**/c", "a/b/x/d", false},
		{"a/**/**/c", "a/b/c", true},
		{"a/[", "a/[", false},
	} {
		if got := matchGlob(c.pattern, c.name); got != c.want {
			t.Errorf("matchGlob(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
	}
}

// A git generator reads the repository its ApplicationSet is in: the first directory above it
// with .git, not the directory gpuguard was given around several repositories.
func TestRepoTreeRootIsTheRepository(t *testing.T) {
	top := t.TempDir()
	testutil.WriteFiles(t, top, map[string]string{
		"a/.git/HEAD":          "ref: refs/heads/main\n",
		"a/envs/prod/x.yaml":   "a\n",
		"a/deploy/appset.yaml": "",
		"envs/other/x.yaml":    "b\n",
	})
	r := &repoTree{opts: Options{links: confine.NewDirs(top)}, trees: map[string][]treeEntry{}}
	got, err := r.Match(filepath.Join(top, "a/deploy/appset.yaml"), "envs/*", true)
	if err != nil || strings.Join(got, ",") != "envs/prod" {
		t.Errorf("Match = %q, %v; want envs/prod of repository a", got, err)
	}
	data, err := r.ReadFile(filepath.Join(top, "a/deploy/appset.yaml"), "envs/prod/x.yaml")
	if err != nil || string(data) != "a\n" {
		t.Errorf("ReadFile = %q, %v", data, err)
	}
}

// The Applications an ApplicationSet generates are read with the manifests: one that installs
// NVIDIA's GPU Operator from its chart repository says how the device plugin shares GPUs, as a
// written Application does, and a config the plugin would refuse is an error at the template.
// An ApplicationSet's file that an Application also deploys says so once.
func TestApplicationSetDevicePluginSharing(t *testing.T) {
	operator := func(name, replicas string) string {
		return appSet(name, "  generators:\n  - list: {elements: [{cluster: in-cluster}]}\n  template:\n    metadata: {name: '{{cluster}}-"+name+"'}\n    spec:\n"+
			"      destination: {server: https://kubernetes.default.svc, namespace: gpu-operator}\n"+
			"      source:\n        chart: gpu-operator\n        repoURL: https://helm.ngc.nvidia.com/nvidia\n        targetRevision: v25.3.0\n"+
			"        helm:\n          valuesObject:\n            devicePlugin:\n              config:\n                create: true\n                name: time-slicing\n                default: any\n                data:\n"+
			"                  any: |\n                    version: v1\n                    sharing:\n                      timeSlicing:\n                        resources:\n                        - {name: nvidia.com/gpu, replicas: "+replicas+"}\n")
	}
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
		"      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	for _, tc := range []struct {
		name     string
		files    map[string]string
		replicas int
		errs     []string
	}{
		{"generated", map[string]string{"platform/operator.yaml": operator("gpu-operator", "4"), "apps/infer.yaml": deployment}, 4, nil},
		{"no ApplicationSet", map[string]string{"apps/infer.yaml": deployment}, 0, nil},
		// The kustomization an Application deploys patches the ApplicationSet: its
		// Applications are read as patched, not as the file is written.
		{"patched by the kustomization an Application deploys", map[string]string{
			"platform/operator.yaml": operator("gpu-operator", "4"), "apps/infer.yaml": deployment,
			"platform/kustomization.yaml": "resources: [operator.yaml]\npatches:\n- target: {kind: ApplicationSet}\n  patch: |\n" +
				"    - {op: replace, path: /spec/template/spec/source/helm/valuesObject/devicePlugin/config/data/any, value: 'version: v1\n\n      sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 8}]}}'}\n",
			"argocd/platform.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: platform, namespace: argocd}\nspec:\n  destination: {server: https://kubernetes.default.svc}\n" +
				"  source: {repoURL: https://github.com/acme/platform, path: platform}\n",
		}, 8, nil},
		{"a config the plugin refuses, in a directory an Application deploys", map[string]string{
			"platform/operator.yaml": operator("gpu-operator", "0"), "apps/infer.yaml": deployment,
			"argocd/platform.yaml": "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: platform, namespace: argocd}\nspec:\n  destination: {server: https://kubernetes.default.svc}\n" +
				"  source: {repoURL: https://github.com/acme/platform, path: platform}\n",
		}, 0, []string{"operator.yaml:8 Application/argocd/in-cluster-gpu-operator: devicePlugin.config.data.any: the device plugin's sharing config: time-slicing resource \"nvidia.com/gpu\": replicas 0 is not"}},
	} {
		t.Run(tc.name, func(t *testing.T) { scanShared(t, tc.files, tc.replicas, tc.errs, nil) })
	}
}

// Charts read as inputs are rendered with their default values only after the GitOps tools'
// first round, and only those it did not consume: the callback is told that the chart an
// Application renders with its own values is taken, and the other is not.
func TestChartDefaultsAfterFirstRound(t *testing.T) {
	root := t.TempDir()
	chart := func(name string) map[string]string {
		return map[string]string{
			"charts/" + name + "/Chart.yaml":       "apiVersion: v2\nname: " + name + "\nversion: 0.1.0\n",
			"charts/" + name + "/templates/d.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: " + name + "}\nspec:\n  template:\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n",
		}
	}
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for _, c := range []map[string]string{chart("web"), chart("batch")} {
		for k, v := range c {
			files[k] = v
		}
	}
	testutil.WriteFiles(t, root, files)
	argo := filepath.Join(root, "apps.yaml")
	plain := []*kubernetes.File{kubernetes.Decode(argo, []byte(app("web-prod", "charts/web", "")))}
	var calls int
	var taken, free bool
	g := renderGitSources(plain, func(consumed map[string]bool) []chartFiles {
		calls++
		taken, free = consumed[realPath(filepath.Join(root, "charts/web"))], consumed[realPath(filepath.Join(root, "charts/batch"))]
		return nil
	}, Options{links: confine.NewDirs(root)})
	if calls != 1 || !taken || free {
		t.Errorf("charts called %d times; web consumed %v, batch consumed %v: want once, true, false", calls, taken, free)
	}
	if len(g.files) == 0 {
		t.Errorf("the Application rendered nothing; errors %q warnings %q", messageLines(g.res.Errors), messageLines(g.res.Warnings))
	}
}

// An Argo CD Application of NVIDIA's GPU Operator chart takes its values from files of the
// repository it is in ($ref/path, the ref's source being this repository), in order, under its
// own helm values: the device plugin config they hold shares the GPUs. A value file that cannot be
// read is a warning and the release is read without it; one that is not YAML values, or a ref no
// source has, is an error, and the release is not read.
func TestArgoValueFilesOfNVIDIACharts(t *testing.T) {
	operator := func(valueFiles, extra string) string {
		return "apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: gpu-operator, namespace: argocd}\nspec:\n" +
			"  destination: {server: https://kubernetes.default.svc, namespace: gpu-operator}\n  sources:\n" +
			"  - chart: gpu-operator\n    repoURL: https://helm.ngc.nvidia.com/nvidia\n    targetRevision: v25.3.0\n    helm:\n      valueFiles: [" + valueFiles + "]\n" + extra +
			"  - {repoURL: https://github.com/acme/platform, ref: values}\n"
	}
	values := func(replicas string) string {
		return "devicePlugin:\n  config:\n    create: true\n    name: time-slicing\n    default: any\n    data:\n      any: |\n        version: v1\n        sharing:\n          timeSlicing:\n            resources:\n            - {name: nvidia.com/gpu, replicas: " + replicas + "}\n"
	}
	const deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: infer, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n" +
		"      nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n"
	const overRide = "      valuesObject: {devicePlugin: {config: {data: {any: 'version: v1\n\n        sharing: {timeSlicing: {resources: [{name: nvidia.com/gpu, replicas: 2}]}}'}}}}\n"
	for _, tc := range []struct {
		name        string
		files       map[string]string
		replicas    int
		errs, warns []string
	}{
		{"a value file of this repository", map[string]string{"argocd/gpu-operator.yaml": operator("$values/clusters/prod/gpu-operator.yaml", ""), "clusters/prod/gpu-operator.yaml": values("4")}, 4, nil, nil},
		{"the later value file wins", map[string]string{"argocd/gpu-operator.yaml": operator("$values/common.yaml, $values/prod.yaml", ""), "common.yaml": values("4"), "prod.yaml": values("8")}, 8, nil, nil},
		{"helm values over the value files", map[string]string{"argocd/gpu-operator.yaml": operator("$values/prod.yaml", overRide), "prod.yaml": values("4")}, 2, nil, nil},
		{"a value file not in the repository", map[string]string{"argocd/gpu-operator.yaml": operator("$values/prod.yaml, $values/other.yaml", ""), "prod.yaml": values("4")}, 4, nil,
			[]string{"gpu-operator.yaml:1 Application/argocd/gpu-operator: spec.sources[0].helm.valueFiles: $values/other.yaml is not in the repository read (not found; ref values is https://github.com/acme/platform): the values of chart gpu-operator are read without it"}},
		{"a missing value file Argo CD is told to skip", map[string]string{"argocd/gpu-operator.yaml": operator("$values/other.yaml, $values/prod.yaml", "      ignoreMissingValueFiles: true\n"), "prod.yaml": values("4")}, 4, nil, nil},
		{"a value file of the chart's own package", map[string]string{"argocd/gpu-operator.yaml": operator("ci/values-prod.yaml", "")}, 0, nil,
			[]string{"gpu-operator.yaml:1 Application/argocd/gpu-operator: spec.sources[0].helm.valueFiles: ci/values-prod.yaml is a file of chart gpu-operator, which gpuguard does not download: its values are read without it"}},
		{"a ref no source has", map[string]string{"argocd/gpu-operator.yaml": operator("$vals/prod.yaml", overRide), "prod.yaml": values("4")}, 0,
			[]string{"gpu-operator.yaml:1 Application/argocd/gpu-operator: spec.sources[0].helm.valueFiles: $vals/prod.yaml: no source has ref vals"}, nil},
		{"a value file that is not YAML values", map[string]string{"argocd/gpu-operator.yaml": operator("$values/prod.yaml", overRide), "prod.yaml": "[1, 2]\n"}, 0,
			[]string{"gpu-operator.yaml:1 Application/argocd/gpu-operator: spec.sources[0].helm.valueFiles: $values/prod.yaml (line 1): cannot unmarshal !!seq into map",
				"prod.yaml:1 document is not a mapping: not a Kubernetes object"}, nil}, // and, walking the repository, the file itself
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.files["apps/infer.yaml"] = deployment
			scanShared(t, tc.files, tc.replicas, tc.errs, tc.warns)
		})
	}
}

// scanShared scans a repository of files whose one GPU resource is a Deployment, and checks how
// many ways its GPUs are shared and the errors and warnings (each by its start).
func scanShared(t *testing.T, files map[string]string, replicas int, errs, warns []string) {
	t.Helper()
	root := t.TempDir()
	files[".git/HEAD"] = "ref: refs/heads/main\n"
	testutil.WriteFiles(t, root, files)
	res := Scan([]string{root}, Options{})
	if len(res.Resources) != 1 {
		t.Fatalf("%d resources, want the Deployment; errors %q", len(res.Resources), messageLines(res.Errors))
	}
	if got := res.Resources[0].Pod.SharedReplicas; got != replicas {
		t.Errorf("shared by %d, want %d; notes %q", got, replicas, res.Resources[0].Notes)
	}
	for _, c := range []struct {
		what      string
		got, want []string
	}{{"errors", messageLines(res.Errors), errs}, {"warnings", messageLines(res.Warnings), warns}} {
		if len(c.got) != len(c.want) {
			t.Fatalf("%s %q, want %d", c.what, c.got, len(c.want))
		}
		for i, want := range c.want {
			if !strings.HasPrefix(c.got[i], want) {
				t.Errorf("%s %q\nwant it to start %q", c.what, c.got[i], want)
			}
		}
	}
}
