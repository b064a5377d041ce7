package kustomize

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/internal/confine"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/internal/yamlpos"
	"github.com/gpuguard/gpuguard/parser"
)

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: train
  labels: {app: train}
spec:
  replicas: 1
  template:
    metadata:
      labels: {app: train}
    spec:
      containers:
        - name: trainer
          image: trainer:1
          resources:
            limits: {nvidia.com/gpu: 1}
        - name: sidecar
          image: log:1
      tolerations: [{key: a}]
`

// build writes files under a new directory, moves there and builds dir.
func build(t *testing.T, files map[string]string, dir string) Result {
	t.Helper()
	root := t.TempDir()
	testutil.WriteFiles(t, root, files)
	t.Chdir(root)
	return Build(dir, confine.NewDirs("."))
}

func only(t *testing.T, res Result) *yaml.Node {
	t.Helper()
	if len(res.Errors) > 0 || len(res.Objects) != 1 {
		t.Fatalf("errors %+v, %d objects", res.Errors, len(res.Objects))
	}
	return res.Objects[0].Node
}

func TestStrategicMerge(t *testing.T) {
	res := build(t, map[string]string{
		"base/deploy.yaml":        deployment,
		"base/kustomization.yaml": "resources: [deploy.yaml]\n",
		"prod/kustomization.yaml": "resources: [../base]\npatchesStrategicMerge: [gpus.yaml]\n",
		"prod/gpus.yaml": `apiVersion: apps/v1
kind: Deployment
metadata: {name: train}
spec:
  template:
    spec:
      containers:
        - name: trainer
          resources:
            limits: {nvidia.com/gpu: 8}
        - name: sidecar
          $patch: delete
        - name: exporter
          image: dcgm:1
      tolerations: [{key: b}]
      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}
  replicas: null
`,
	}, "prod")
	n := only(t, res)
	for path, want := range map[string]string{
		"spec.template.spec.containers.0.name":                             "trainer",
		"spec.template.spec.containers.0.image":                            "trainer:1", // kept: merged by name
		"spec.template.spec.containers.0.resources.limits.nvidia.com/gpu":  "8",
		"spec.template.spec.containers.1.name":                             "exporter", // sidecar deleted, exporter added
		"spec.template.spec.containers":                                    "len 2",
		"spec.template.spec.tolerations.0.key":                             "b", // a list without a merge key is replaced
		"spec.template.spec.tolerations":                                   "len 1",
		"spec.template.spec.nodeSelector.node.kubernetes.io/instance-type": "p5.48xlarge",
		"spec.replicas": "<none>", // null removes
	} {
		if got := getPath(n, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
	if len(res.Files) != 2 || filepath.Base(res.Files[1]) != "gpus.yaml" {
		t.Errorf("files read %v", res.Files)
	}
}

// getPath is get for paths whose keys hold dots (label and resource names): it tries the
// longest key first.
func getPath(n *yaml.Node, path string) string {
	parts := strings.Split(path, ".")
	for len(parts) > 0 {
		if n == nil {
			return "<none>"
		}
		if n.Kind == yaml.SequenceNode {
			i := int(parts[0][0] - '0')
			if i >= len(n.Content) {
				return "<none>"
			}
			n, parts = n.Content[i], parts[1:]
			continue
		}
		found := false
		for k := len(parts); k > 0; k-- {
			if v := yamlpos.Value(n, strings.Join(parts[:k], ".")); v != nil {
				n, parts, found = v, parts[k:], true
				break
			}
		}
		if !found {
			return "<none>"
		}
	}
	if n.Kind == yaml.SequenceNode {
		return "len " + string(rune('0'+len(n.Content)))
	}
	return n.Value
}

// A custom resource has no schema kustomize knows: its lists are replaced whole, as in
// kustomize, where a Deployment's containers merge by name.
func TestCustomResourceListsAreReplaced(t *testing.T) {
	job := `apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ft}
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: pytorch
              image: trainer:1
              resources: {limits: {nvidia.com/gpu: 1}}
            - name: logger
              image: log:1
`
	n := only(t, build(t, map[string]string{
		"job.yaml": job,
		"kustomization.yaml": `resources: [job.yaml]
patches:
  - patch: |-
      apiVersion: kubeflow.org/v1
      kind: PyTorchJob
      metadata: {name: ft}
      spec:
        pytorchReplicaSpecs:
          Worker:
            replicas: 4
            template:
              spec:
                containers:
                  - name: pytorch
                    resources: {limits: {nvidia.com/gpu: 8}}
`,
	}, "."))
	for path, want := range map[string]string{
		"spec.pytorchReplicaSpecs.Worker.replicas":                                                   "4",
		"spec.pytorchReplicaSpecs.Worker.template.spec.containers":                                   "len 1",
		"spec.pytorchReplicaSpecs.Worker.template.spec.containers.0.resources.limits.nvidia.com/gpu": "8",
		"spec.pytorchReplicaSpecs.Worker.template.spec.containers.0.image":                           "<none>",
	} {
		if got := getPath(n, path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

func TestJSON6902AndTargets(t *testing.T) {
	res := build(t, map[string]string{
		"deploy.yaml": deployment + "---\n" + strings.ReplaceAll(deployment, "train", "serve"),
		"kustomization.yaml": `resources: [deploy.yaml]
patches:
  - target: {kind: Deploy.*, name: "tr.*", labelSelector: "app=train"}
    patch: |-
      - op: add
        path: /spec/template/spec/nodeSelector
        value: {node.kubernetes.io/instance-type: g6e.12xlarge}
      - op: replace
        path: /spec/template/spec/containers/0/resources/limits/nvidia.com~1gpu
        value: 4
      - op: remove
        path: /spec/template/spec/containers/1
      - op: add
        path: /spec/template/spec/containers/-
        value: {name: added}
      - op: copy
        from: /spec/replicas
        path: /spec/minReadySeconds
      - op: move
        from: /spec/template/spec/tolerations
        path: /spec/template/spec/moved
`,
	}, ".")
	if len(res.Errors) > 0 || len(res.Objects) != 2 {
		t.Fatalf("errors %+v, %d objects", res.Errors, len(res.Objects))
	}
	train, serve := res.Objects[0].Node, res.Objects[1].Node
	for path, want := range map[string]string{
		"spec.template.spec.nodeSelector.node.kubernetes.io/instance-type": "g6e.12xlarge",
		"spec.template.spec.containers.0.resources.limits.nvidia.com/gpu":  "4",
		"spec.template.spec.containers.1.name":                             "added",
		"spec.minReadySeconds":                                             "1",
		"spec.template.spec.tolerations":                                   "<none>",
		"spec.template.spec.moved.0.key":                                   "a",
	} {
		if got := getPath(train, path); got != want {
			t.Errorf("train %s = %q, want %q", path, got, want)
		}
	}
	if got := getPath(serve, "spec.template.spec.containers.0.resources.limits.nvidia.com/gpu"); got != "1" {
		t.Errorf("the patch reached an object its target does not select: %s", got)
	}
}

func TestNamesNamespacesLabelsReplicas(t *testing.T) {
	hpa := "apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: train}\nspec:\n  scaleTargetRef: {kind: Deployment, name: train}\n"
	n := build(t, map[string]string{
		"base/deploy.yaml":        deployment,
		"base/hpa.yaml":           hpa,
		"base/kustomization.yaml": "resources: [deploy.yaml, hpa.yaml]\nnamePrefix: base-\n",
		"kustomization.yaml": `resources: [base]
namespace: ml
namePrefix: prod-
nameSuffix: -v2
labels:
  - pairs: {team: ml}
    includeTemplates: true
commonAnnotations: {gpuguard.dev/hours-per-month: "200"}
replicas: [{name: base-train, count: 4}]
`,
	}, ".")
	if len(n.Errors) > 0 || len(n.Objects) != 2 {
		t.Fatalf("errors %+v, %d objects", n.Errors, len(n.Objects))
	}
	d, h := n.Objects[0].Node, n.Objects[1].Node
	for path, want := range map[string]string{
		"metadata.name":                      "prod-base-train-v2",
		"metadata.namespace":                 "ml",
		"metadata.labels.team":               "ml",
		"metadata.labels.app":                "train",
		"spec.template.metadata.labels.team": "ml",
		"spec.template.metadata.annotations.gpuguard.dev/hours-per-month": "200",
		"metadata.annotations.gpuguard.dev/hours-per-month":               "200",
		"spec.replicas": "4", // named as the base named it
	} {
		if got := getPath(d, path); got != want {
			t.Errorf("deployment %s = %q, want %q", path, got, want)
		}
	}
	if got := getPath(h, "spec.scaleTargetRef.name"); got != "prod-base-train-v2" {
		t.Errorf("the autoscaler's target is %q", got)
	}
}

// A prefixed ResourceClaimTemplate stays the one its pods claim.
func TestClaimReferencesFollowRenames(t *testing.T) {
	res := build(t, map[string]string{
		"claims.yaml":        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaimTemplate\nmetadata: {name: gpus}\nspec:\n  spec:\n    devices:\n      requests: [{name: g, exactly: {deviceClassName: gpu.nvidia.com, count: 2}}]\n",
		"job.yaml":           "apiVersion: batch/v1\nkind: Job\nmetadata: {name: train}\nspec:\n  template:\n    spec:\n      resourceClaims: [{name: g, resourceClaimTemplateName: gpus}, {name: other, resourceClaimTemplateName: elsewhere}]\n      containers: [{name: c, resources: {claims: [{name: g}]}}]\n",
		"kustomization.yaml": "resources: [claims.yaml, job.yaml]\nnamePrefix: team-\n",
	}, ".")
	if len(res.Errors) > 0 || len(res.Objects) != 2 {
		t.Fatalf("errors %+v, %d objects", res.Errors, len(res.Objects))
	}
	job := res.Objects[1].Node
	if got := getPath(job, "spec.template.spec.resourceClaims.0.resourceClaimTemplateName"); got != "team-gpus" {
		t.Errorf("claim template %q", got)
	}
	if got := getPath(job, "spec.template.spec.resourceClaims.1.resourceClaimTemplateName"); got != "elsewhere" {
		t.Errorf("a template not in the build was renamed: %q", got)
	}
}

func TestComponents(t *testing.T) {
	n := only(t, build(t, map[string]string{
		"deploy.yaml":            deployment,
		"gpu/kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1alpha1\nkind: Component\npatches:\n  - path: more.yaml\n",
		"gpu/more.yaml":          "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: train}\nspec: {replicas: 6}\n",
		"kustomization.yaml":     "resources: [deploy.yaml]\ncomponents: [gpu]\n",
	}, "."))
	if got := getPath(n, "spec.replicas"); got != "6" {
		t.Errorf("replicas %s", got)
	}
}

// Problems are errors or warnings with the file that has them; nothing stops the build of
// the rest, nothing outside the checked directories is read, and cycles end.
func TestProblems(t *testing.T) {
	for _, tc := range []struct {
		name, kustomization string
		extra               map[string]string
		err, warn           string
		objects             int
	}{
		{name: "missing resource", kustomization: "resources: [nosuch.yaml, deploy.yaml]\n", err: "k/kustomization.yaml:1: resource \"nosuch.yaml\"", objects: 1},
		{name: "missing patch", kustomization: "resources: [deploy.yaml]\npatches:\n  - path: nosuch-patch.yaml\n", err: "k/kustomization.yaml:3: patch \"nosuch-patch.yaml\"", objects: 1},
		{name: "remote on its line", kustomization: "resources:\n  - deploy.yaml\n  - https://example.com/base\n", warn: "k/kustomization.yaml:3: remote resource", objects: 1},
		{name: "outside", kustomization: "resources: [/etc/hostname, deploy.yaml]\n", err: "outside the checked directories", objects: 1},
		{name: "remote", kustomization: "resources: ['https://github.com/acme/k8s//base?ref=v1', deploy.yaml]\n", warn: "remote resource", objects: 1},
		{name: "cycle", kustomization: "resources: [a]\n", extra: map[string]string{"a/kustomization.yaml": "resources: [../b]\n", "b/kustomization.yaml": "resources: [../a]\n"}, err: "include each other"},
		{name: "self", kustomization: "resources: [., deploy.yaml]\n", err: "include each other", objects: 1},
		{name: "patch matches nothing", kustomization: "resources: [deploy.yaml]\npatches:\n  - patch: |-\n      kind: Deployment\n      metadata: {name: other}\n      spec: {replicas: 3}\n", warn: "matches no object", objects: 1},
		{name: "json patch without target", kustomization: "resources: [deploy.yaml]\npatchesJson6902:\n  - patch: |-\n      - {op: remove, path: /spec}\n", err: "needs a target", objects: 1},
		{name: "json patch bad path", kustomization: "resources: [deploy.yaml]\npatches:\n  - target: {kind: Deployment}\n    patch: |-\n      - {op: replace, path: /spec/nosuch/x, value: 1}\n", err: "JSON patch replace", objects: 1},
		{name: "copy bomb", kustomization: "resources: [deploy.yaml]\npatches:\n  - target: {kind: Deployment}\n    patch: |-\n" + copyBomb(64), err: "grows past", objects: 1},
		{name: "replicas of nothing", kustomization: "resources: [deploy.yaml]\nreplicas: [{name: nosuch, count: 3}]\n", warn: "no Deployment", objects: 1},
		{name: "helm", kustomization: "resources: [deploy.yaml]\nhelmCharts:\n  - name: x\n", warn: "helmCharts are not inflated", objects: 1},
		{name: "invalid", kustomization: "resources: {\n", err: "invalid kustomization"},
		{name: "invalid manifest", kustomization: "resources: [bad.yaml, deploy.yaml]\n", extra: map[string]string{"bad.yaml": "kind: [\n"}, err: "bad.yaml", objects: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := map[string]string{"deploy.yaml": deployment, "k/kustomization.yaml": tc.kustomization}
			for k, v := range tc.extra {
				files["k/"+k] = v
			}
			// The unit's files sit in k/, the deployment one level up: resources name it
			// relative to k/.
			files["k/kustomization.yaml"] = strings.ReplaceAll(tc.kustomization, "deploy.yaml", "../deploy.yaml")
			res := build(t, files, "k")
			if errs := text(res.Errors); tc.err != "" && !strings.Contains(errs, tc.err) || tc.err == "" && errs != "" {
				t.Errorf("errors:\n%s\nwant %q", errs, tc.err)
			}
			if warns := text(res.Warnings); tc.warn != "" && !strings.Contains(warns, tc.warn) {
				t.Errorf("warnings:\n%s\nwant %q", warns, tc.warn)
			}
			if len(res.Objects) != tc.objects {
				t.Errorf("%d objects, want %d", len(res.Objects), tc.objects)
			}
		})
	}
}

// copyBomb is a JSON patch that copies the object's spec into itself n times, doubling it each
// time.
func copyBomb(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "      - {op: copy, from: /spec, path: /spec/c%d}\n", i)
	}
	return b.String()
}

func text(errs []parser.Error) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "%s:%d: %s\n", filepath.ToSlash(e.File), e.Line, e.Message)
	}
	return b.String()
}

const gpuConfig = `apiVersion: v1
kind: ConfigMap
metadata: {name: gpu}
data:
  NODE: g6e.12xlarge
  GPUS: "4"
  IMAGE: "vllm/vllm-openai:v0.9.1"
  POOL: spot-g5
`

// Replacements copy a source field into target fields after the other transformers, with
// kustomize's field paths: bracketed keys with dots, list elements by field or index, every
// element, delimiter parts on either side, created fields, rejected targets, entries from a file.
func TestReplacements(t *testing.T) {
	res := build(t, map[string]string{
		"base/deploy.yaml":        deployment,
		"base/config.yaml":        gpuConfig,
		"base/kustomization.yaml": "resources: [deploy.yaml, config.yaml]\n",
		"prod/more.yaml": `- source: {kind: ConfigMap, name: gpu, fieldPath: data.POOL, options: {delimiter: "-", index: 1}}
  targets:
    - select: {kind: Deployment}
      fieldPaths: [spec.template.metadata.labels.pool]
      options: {create: true}
`,
		"prod/kustomization.yaml": `resources: [../base]
namePrefix: prod-
replacements:
  - source: {kind: ConfigMap, name: gpu, fieldPath: data.NODE}
    targets:
      - select: {kind: Deployment, name: train}
        fieldPaths: ["spec.template.spec.nodeSelector.[node.kubernetes.io/instance-type]"]
        options: {create: true}
  - source: {kind: ConfigMap, name: gpu, fieldPath: data.GPUS}
    targets:
      - select: {kind: Deployment}
        fieldPaths: ["spec.template.spec.containers.[name=trainer].resources.limits.[nvidia.com/gpu]"]
  - source: {kind: ConfigMap, name: gpu, fieldPath: data.IMAGE, options: {delimiter: ":", index: 1}}
    targets:
      - select: {kind: Deployment}
        fieldPaths: [spec.template.spec.containers.0.image]
        options: {delimiter: ":", index: 1}
  - source: {kind: ConfigMap, name: gpu, fieldPath: metadata.name}
    targets:
      - select: {kind: Deployment}
        reject: [{name: train}]
        fieldPaths: [spec.template.spec.containers.*.image]
  - path: more.yaml
`,
	}, "prod")
	var deploy *yaml.Node
	for _, o := range res.Objects {
		if scalar(yamlpos.Value(o.Node, "kind")) == "Deployment" {
			deploy = o.Node
		}
	}
	if len(res.Errors) > 0 || deploy == nil {
		t.Fatalf("errors %+v", res.Errors)
	}
	get := func(path string) string {
		t.Helper()
		n, err := fieldNodes(deploy, path, false)
		if err != nil || len(n) != 1 {
			t.Fatalf("%s: %v (%d)", path, err, len(n))
		}
		return n[0].Value
	}
	checks := map[string]string{
		"metadata.name": "prod-train",
		"spec.template.spec.nodeSelector.[node.kubernetes.io/instance-type]":             "g6e.12xlarge",
		"spec.template.spec.containers.[name=trainer].resources.limits.[nvidia.com/gpu]": "4",
		"spec.template.spec.containers.0.image":                                          "trainer:v0.9.1",
		"spec.template.spec.containers.1.image":                                          "log:1", // the rejected target is untouched
		"spec.template.metadata.labels.pool":                                             "g5",
	}
	for path, want := range checks {
		if got := get(path); got != want {
			t.Errorf("%s = %q, want %q", path, got, want)
		}
	}
}

// A replacement kustomize build would fail on is an error at its line; the rest still apply.
// vars are not substituted, and a warning says so.
func TestReplacementProblems(t *testing.T) {
	res := build(t, map[string]string{
		"base/deploy.yaml":  deployment,
		"base/config.yaml":  gpuConfig,
		"base/config2.yaml": strings.Replace(gpuConfig, "name: gpu", "name: gpu2", 1),
		"kustomization.yaml": `resources: [base/deploy.yaml, base/config.yaml, base/config2.yaml]
replacements:
  - source: {kind: ConfigMap, name: missing}
    targets: [{select: {kind: Deployment}, fieldPaths: [metadata.name]}]
  - source: {kind: ConfigMap}
    targets: [{select: {kind: Deployment}, fieldPaths: [metadata.name]}]
  - source: {kind: ConfigMap, name: gpu, fieldPath: data.NODE}
    targets: [{select: {kind: Deployment}, fieldPaths: [spec.template.spec.nodeSelector.zone]}]
  - source: {kind: ConfigMap, name: gpu, fieldPath: data.GPUS}
    targets: [{select: {kind: Deployment}, fieldPaths: ["spec.replicas"]}]
vars:
  - name: X
    objref: {kind: ConfigMap, name: gpu, apiVersion: v1}
`,
	}, ".")
	var got []string
	for _, e := range res.Errors {
		got = append(got, fmt.Sprintf("%d %s", e.Line, e.Message))
	}
	want := []string{
		`3 replacement: source {kind=ConfigMap, name=missing} selects no object`,
		`5 replacement: source {kind=ConfigMap} selects more than one object`,
		`7 replacement: target field "spec.template.spec.nodeSelector.zone" of {kind=Deployment}: "nodeSelector" not found`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var deploy *yaml.Node
	for _, o := range res.Objects {
		if scalar(yamlpos.Value(o.Node, "kind")) == "Deployment" {
			deploy = o.Node
		}
	}
	if r := yamlpos.Value(yamlpos.Value(deploy, "spec"), "replicas"); scalar(r) != "4" || r.Tag != "!!int" {
		t.Errorf("the replacement after the failed ones still applies, a quoted number into a number field as a number: replicas %+v", r)
	}
	if len(res.Warnings) != 1 || res.Warnings[0].Line != 12 || !strings.Contains(res.Warnings[0].Message, "vars") {
		t.Errorf("warnings %+v", res.Warnings)
	}
}

// A replacement that copies a large source into many fields is stopped, not left to grow the
// objects without bound.
func TestReplacementCopyIsBounded(t *testing.T) {
	var data, items strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&data, "    k%d: v\n", i)
	}
	for range 400 {
		items.WriteString("    - {}\n")
	}
	res := build(t, map[string]string{
		"src.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n" + data.String(),
		"list.yaml": "apiVersion: v1\nkind: List\nmetadata: {name: l}\nitems:\n" + items.String(),
		"kustomization.yaml": `resources: [src.yaml, list.yaml]
replacements:
  - source: {kind: ConfigMap, name: big, fieldPath: data}
    targets: [{select: {kind: List}, fieldPaths: ["items.*"]}]
`,
	}, ".")
	if len(res.Errors) != 1 || !strings.Contains(res.Errors[0].Message, "copies more than") {
		t.Fatalf("errors %+v", res.Errors)
	}
}

// ConfigMap and Secret generators make their objects from files, literals and env files, in the
// kustomization's namespace and with its name prefix; an overlay's merge or replace changes the
// base's; a Flux HelmRelease's valuesFrom follows the renamed object.
func TestGenerators(t *testing.T) {
	res := build(t, map[string]string{
		"base/nvdp-values.yaml": "config:\n  map:\n    default: x\n",
		"base/settings.env":     "# comment\nMODE=fast\n\nLEVEL=2\n",
		"base/release.yaml":     "apiVersion: helm.toolkit.fluxcd.io/v2\nkind: HelmRelease\nmetadata: {name: nvdp}\nspec:\n  valuesFrom:\n  - {kind: ConfigMap, name: nvdp-values}\n  - {kind: Secret, name: token}\n  - {kind: ConfigMap, name: elsewhere}\n",
		"base/kustomization.yaml": `resources: [release.yaml]
configMapGenerator:
- name: nvdp-values
  files: [values.yaml=nvdp-values.yaml]
- name: settings
  envs: [settings.env]
  literals: [owner="ml"]
secretGenerator:
- name: token
  literals: [values.yaml=a]
`,
		"prod/kustomization.yaml": `resources: [../base]
namespace: nvidia
namePrefix: prod-
configMapGenerator:
- name: settings
  behavior: merge
  literals: [LEVEL=3]
secretGenerator:
- name: token
  behavior: replace
  literals: [other=b]
`,
	}, "prod")
	if len(res.Errors) > 0 || len(res.Objects) != 4 {
		t.Fatalf("errors %+v, %d objects", res.Errors, len(res.Objects))
	}
	got := map[string]string{}
	for _, o := range res.Objects {
		b, _ := yaml.Marshal(o.Node)
		got[scalar(yamlpos.Value(o.Node, "kind"))+"/"+scalar(yamlpos.Value(yamlpos.Value(o.Node, "metadata"), "name"))] = string(b)
	}
	for name, want := range map[string][]string{
		"ConfigMap/prod-nvdp-values": {"namespace: nvidia", "values.yaml: |\n        config:\n          map:\n            default: x\n"},
		"ConfigMap/prod-settings":    {"LEVEL: \"3\"", "MODE: fast", "owner: ml"},
		"Secret/prod-token":          {"stringData:\n    other: b\n"},
		"HelmRelease/prod-nvdp":      {"name: prod-nvdp-values", "name: prod-token", "name: elsewhere"},
	} {
		for _, w := range want {
			if !strings.Contains(got[name], w) {
				t.Errorf("%s lacks %q:\n%s", name, w, got[name])
			}
		}
	}
	if strings.Contains(got["Secret/prod-token"], "values.yaml") {
		t.Errorf("replace kept the base's data:\n%s", got["Secret/prod-token"])
	}
	for _, f := range []string{"nvdp-values.yaml", "settings.env"} {
		found := false
		for _, r := range res.Files {
			found = found || strings.HasSuffix(r, f)
		}
		if !found {
			t.Errorf("files %q lack %s", res.Files, f)
		}
	}
	res = build(t, map[string]string{
		"k/kustomization.yaml": "configMapGenerator:\n- name: a\n  files: [missing.yaml]\n- name: b\n  behavior: merge\n  literals: [x=1]\n- name: c\n  literals: [novalue]\n",
	}, "k")
	if len(res.Errors) != 3 || !strings.Contains(res.Errors[0].Message, `ConfigMap generator "a": file "missing.yaml"`) ||
		!strings.Contains(res.Errors[1].Message, `behavior merge, but no base generates ConfigMap b`) || !strings.Contains(res.Errors[2].Message, `literal "novalue" is not key=value`) {
		t.Errorf("errors %+v", res.Errors)
	}
}
