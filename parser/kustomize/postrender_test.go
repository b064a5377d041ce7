package kustomize

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A post renderer patches a chart's objects in place: a custom resource's list is replaced
// whole, a Deployment's containers merge by name; a broken inline patch, a JSON 6902 patch that
// is not a list and one without a target are errors at their lines, and the rest still apply.
func TestPostRender(t *testing.T) {
	objs, err := DecodeObjects("chart/templates/all.yaml", []byte(`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  template:
    spec:
      containers:
      - {name: app, image: a}
      - {name: sidecar, image: s}
---
apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
  workerGroupSpecs: [{groupName: a, replicas: 1}, {groupName: b, replicas: 1}]
---
just text
`))
	if err != nil || len(objs) != 2 {
		t.Fatalf("DecodeObjects: %d objects, %v", len(objs), err)
	}
	var spec yaml.Node
	if err := yaml.Unmarshal([]byte(`patches:
- target: {kind: RayCluster}
  patch: |
    spec:
      workerGroupSpecs: [{groupName: gpu, replicas: 3}]
- patch: |
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: web}
    spec:
      template:
        spec:
          containers: [{name: app, resources: {limits: {nvidia.com/gpu: 2}}}]
- patch: '{broken'
- patch: |
    - {op: remove, path: /spec/template}
patchesJson6902:
- target: {kind: Deployment}
  patch: {op: remove}
`), &spec); err != nil {
		t.Fatal(err)
	}
	errs, warns := PostRender("release.yaml", spec.Content[0], objs)
	var got []string
	for _, o := range objs {
		b, _ := yaml.Marshal(o.Node)
		got = append(got, string(b))
	}
	want := []string{`apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
    template:
        spec:
            containers:
                - {name: app, image: a, resources: {limits: {nvidia.com/gpu: 2}}}
                - {name: sidecar, image: s}
`, `apiVersion: ray.io/v1
kind: RayCluster
metadata: {name: ray}
spec:
    workerGroupSpecs: [{groupName: gpu, replicas: 3}]
`}
	if strings.Join(got, "---\n") != strings.Join(want, "---\n") {
		t.Errorf("patched\n%s\nwant\n%s", strings.Join(got, "---\n"), strings.Join(want, "---\n"))
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, fmt.Sprintf("%s:%d %s", e.File, e.Line, e.Message))
	}
	wantErrs := []string{
		"release.yaml:14 postRenderers kustomize: inline patch: invalid YAML",
		"release.yaml:19 postRenderers kustomize: patchesJson6902: patch is not a list of operations",
		"release.yaml:15 a JSON 6902 patch needs a target",
	}
	if len(msgs) != len(wantErrs) || len(warns) != 0 {
		t.Fatalf("errors %q, want %q; warnings %v", msgs, wantErrs, warns)
	}
	for i := range wantErrs {
		if !strings.HasPrefix(msgs[i], wantErrs[i]) {
			t.Errorf("error %d: %q, want %q", i, msgs[i], wantErrs[i])
		}
	}
}
