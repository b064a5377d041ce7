package kubernetes

import (
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// A manifest read without the Flux Kustomization that deploys it is priced with the defaults of
// its post-build variables (${name:=default} and the other forms; an unquoted one read as a
// number), and a warning names them. Shell text (command, args, env) is not read for them. A
// variable with no default where a number goes is an error that says what it is; an object with
// substitution disabled is read as written.
func TestFluxDefaults(t *testing.T) {
	doc := `apiVersion: apps/v1
kind: Deployment
metadata: {name: llm, namespace: ml, labels: {team: "${team:=x}-ml"}}
spec:
  replicas: ${replicas:=2}
  template:
    spec:
      nodeSelector: {node.kubernetes.io/instance-type: "${gpu_type:-g6e.12xlarge}"}
      containers:
      - name: c
        args: ["${MODE:-serve}"]
        env: [{name: PORT, value: "${PORT:=8080}"}]
        resources: {limits: {nvidia.com/gpu: "${gpus=4}"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ml}
spec:
  replicas: ${web_replicas}
  template:
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: raw
  namespace: ml
  annotations: {kustomize.toolkit.fluxcd.io/substitute: disabled}
spec:
  replicas: ${raw_replicas:=1}
  template:
    spec:
      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: many, namespace: ml}
spec:
  replicas: many
`
	res := Parse("apps.yaml", []byte(doc), Options{})
	if len(res.Resources) != 1 {
		t.Fatalf("%d resources, want 1", len(res.Resources))
	}
	r := res.Resources[0]
	if got := fmt.Sprintf("%s %s %d×%d", r.Address, r.InstanceType, r.Quantity, r.Pod.Requested); got != "Deployment/ml/llm g6e.12xlarge 2×4" {
		t.Errorf("resource %s", got)
	}
	var warns, errs []string
	for _, w := range res.Warnings {
		warns = append(warns, fmt.Sprintf("%d %s", w.Line, w.Message))
	}
	for _, e := range res.Errors {
		errs = append(errs, fmt.Sprintf("%d %s", e.Line, e.Message))
	}
	wantWarns := []string{"1 Deployment/ml/llm: Flux post-build variables priced with their defaults (replicas=2, gpu_type=g6e.12xlarge, gpus=4): no Flux Kustomization among the files read deploys this manifest, and the one that does may set them; check the repository's root with it"}
	if strings.Join(warns, "\n") != strings.Join(wantWarns, "\n") {
		t.Errorf("warnings\n got %q\nwant %q", warns, wantWarns)
	}
	hint := "(a Flux post-build variable: the Flux Kustomization that deploys this file substitutes it when it has spec.postBuild; check the repository's root with it)"
	if len(errs) != 3 || !strings.HasPrefix(errs[0], "19 Deployment/ml/web: ") || !strings.HasSuffix(errs[0], hint) ||
		!strings.HasPrefix(errs[1], "31 Deployment/ml/raw: ") || !strings.HasSuffix(errs[1], hint) ||
		!strings.HasPrefix(errs[2], "40 Deployment/ml/many: ") || strings.Contains(errs[2], "Flux") {
		t.Errorf("errors %q", errs)
	}

	// Objects a kustomization built (a Flux base read on its own) likewise.
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc[:strings.Index(doc, "---")]), &n); err != nil {
		t.Fatal(err)
	}
	res = Build([]*File{FromNodes("base/llm.yaml", "base", "", []*yaml.Node{n.Content[0]})}, Options{})
	if len(res.Resources) != 1 || res.Resources[0].Quantity != 2 || len(res.Warnings) != 1 || res.Warnings[0].Message != strings.TrimPrefix(wantWarns[0], "1 ") {
		t.Errorf("built: %d resources, warnings %v", len(res.Resources), res.Warnings)
	}
}
