package kubernetes

import (
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

func byAddress(res parser.Result) map[string]parser.Resource {
	m := map[string]parser.Resource{}
	for _, r := range res.Resources {
		m[r.Address] = r
	}
	return m
}

// The workers of a Cluster built from a ClusterClass are priced as Cluster API creates them:
// the class's template patched with the Cluster's variables (a default, a Cluster value, a
// worker's override, a template, an enabledIf), the region patched into the class's
// infrastructure template, the autoscaler's annotations from the class's and the topology's
// metadata. A MachineDeployment Cluster API created for that topology is not counted again.
func TestClusterClassTopologyIsExpanded(t *testing.T) {
	base, err := os.ReadFile("../../testdata/kubernetes/cluster-class.yaml")
	if err != nil {
		t.Fatal(err)
	}
	src := string(base) + `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: serving, namespace: ml}
spec:
  topology:
    class: aws-gpu
    version: v1.31.2
    variables:
    - {name: region, value: eu-central-1}
    workers:
      machineDeployments:
      - {class: gpu-workers, name: l4, replicas: 5}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata:
  name: training-a100-x7k2p
  namespace: ml
  labels: {cluster.x-k8s.io/cluster-name: training, topology.cluster.x-k8s.io/owned: ""}
spec:
  clusterName: training
  replicas: 2
  template:
    spec:
      infrastructureRef: {kind: AWSMachineTemplate, name: aws-gpu-gpu-worker}
`
	// The class's workers are created in its failure domain, one topology's l4 in its own.
	src = strings.Replace(src, "    - class: gpu-workers\n      template:\n", "    - class: gpu-workers\n      failureDomain: us-west-2a\n      template:\n", 1)
	src = strings.Replace(src, "      - {class: gpu-workers, name: l4, replicas: 5}", "      - {class: gpu-workers, name: l4, replicas: 5, failureDomain: eu-central-1b}", 1)
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	got := byAddress(res)
	if len(got) != 3 {
		t.Fatalf("want the three GPU workers, got %+v", got)
	}
	for addr, zone := range map[string]string{"MachineDeployment/ml/training-a100": "us-west-2a", "MachineDeployment/ml/serving-l4": "eu-central-1b"} {
		if r := got[addr]; r.NodeLabels == nil || strings.Join(r.NodeLabels.Zones, ",") != zone {
			t.Errorf("%s: zones %v, want %s", addr, r.NodeLabels, zone)
		}
	}
	a100 := got["MachineDeployment/ml/training-a100"]
	if a100.InstanceType != "p4d.24xlarge" || a100.Quantity != 2 || a100.PurchaseOption != parser.Spot || a100.Region != "us-west-2" ||
		a100.Tags["team"] != "ml-platform" || a100.Source.Line != 142 { // the fixture's line 141, below the failureDomain added
		t.Errorf("a100: %s ×%d %s in %q, tags %v, line %d", a100.InstanceType, a100.Quantity, a100.PurchaseOption, a100.Region, a100.Tags, a100.Source.Line)
	}
	if notes := strings.Join(a100.Notes, "; "); !strings.Contains(notes, "gpuType (replace /spec/template/spec/instanceType), gpuSpot (add /spec/template/spec/spotMarketOptions)") {
		t.Errorf("a100 notes: %s", notes)
	}
	l40s := got["MachineDeployment/ml/training-l40s"]
	if l40s.InstanceType != "g6e.xlarge" || l40s.Quantity != 1 || l40s.PurchaseOption != parser.OnDemand || l40s.ScaleMax == nil || l40s.ScaleMax.Quantity != 4 {
		t.Errorf("l40s: %s ×%d %s, max %+v", l40s.InstanceType, l40s.Quantity, l40s.PurchaseOption, l40s.ScaleMax)
	}
	// The Cluster's own value of gpu is unset here: the schema's default type, and the region
	// the Cluster sets.
	l4 := got["MachineDeployment/ml/serving-l4"]
	if l4.InstanceType != "g6.xlarge" || l4.Quantity != 5 || l4.Region != "eu-central-1" || l4.PurchaseOption != parser.OnDemand {
		t.Errorf("serving l4: %s ×%d in %q %s", l4.InstanceType, l4.Quantity, l4.Region, l4.PurchaseOption)
	}
}

// v1beta2's field names (classRef, templateRef, metadata beside class), a MachinePool of EKS
// managed nodes stamped out of an AWSManagedMachinePoolTemplate, and the region on the managed
// control plane's template.
func TestClusterClassV1Beta2MachinePool(t *testing.T) {
	src := `apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata: {name: eks, namespace: ml}
spec:
  infrastructure:
    templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSManagedClusterTemplate, name: eks}
  controlPlane:
    templateRef: {apiVersion: controlplane.cluster.x-k8s.io/v1beta2, kind: AWSManagedControlPlaneTemplate, name: eks-cp}
  workers:
    machinePools:
    - class: gpu
      bootstrap:
        templateRef: {apiVersion: bootstrap.cluster.x-k8s.io/v1beta2, kind: EKSConfigTemplate, name: eks}
      infrastructure:
        templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSManagedMachinePoolTemplate, name: eks-gpu}
  variables:
  - name: nodeType
    schema: {openAPIV3Schema: {type: string, default: g5.2xlarge}}
  - name: capacity
    schema: {openAPIV3Schema: {type: string}}
  patches:
  - name: nodeType
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
        kind: AWSManagedMachinePoolTemplate
        matchResources: {machinePoolClass: {names: ["*"]}}
      jsonPatches:
      - {op: add, path: /spec/template/spec/instanceType, valueFrom: {variable: nodeType}}
  - name: capacity
    enabledIf: '{{ if .capacity }}true{{ end }}'
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
        kind: AWSManagedMachinePoolTemplate
        matchResources: {machinePoolClass: {names: [gpu]}}
      jsonPatches:
      - {op: add, path: /spec/template/spec/capacityType, valueFrom: {template: '{{ .capacity | lower }}'}}
---
apiVersion: controlplane.cluster.x-k8s.io/v1beta2
kind: AWSManagedControlPlaneTemplate
metadata: {name: eks-cp, namespace: ml}
spec:
  template:
    spec: {region: us-east-2}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSManagedMachinePoolTemplate
metadata: {name: eks-gpu, namespace: ml}
spec:
  template:
    spec:
      scaling: {minSize: 2, maxSize: 6}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: prod, namespace: ml}
spec:
  topology:
    classRef: {name: eks}
    version: v1.32.0
    variables:
    - {name: capacity, value: SPOT}
    workers:
      machinePools:
      - {class: gpu, name: inference, replicas: 3}
      - class: gpu
        name: batch
        replicas: 1
        variables:
          overrides:
          - {name: nodeType, value: p5.48xlarge}
          - {name: capacity, value: ""}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	got := byAddress(res)
	inf, batch := got["MachinePool/ml/prod-inference"], got["MachinePool/ml/prod-batch"]
	if inf.InstanceType != "g5.2xlarge" || inf.Quantity != 3 || inf.PurchaseOption != parser.Spot || inf.Region != "us-east-2" ||
		inf.ScaleMax == nil || inf.ScaleMax.Quantity != 6 || !strings.Contains(inf.ScaleMax.From, "AWSManagedMachinePool/ml/prod-inference") {
		t.Errorf("inference: %s ×%d %s in %q, max %+v", inf.InstanceType, inf.Quantity, inf.PurchaseOption, inf.Region, inf.ScaleMax)
	}
	if batch.InstanceType != "p5.48xlarge" || batch.Quantity != 1 || batch.PurchaseOption != parser.OnDemand || batch.Region != "us-east-2" {
		t.Errorf("batch: %s ×%d %s in %q", batch.InstanceType, batch.Quantity, batch.PurchaseOption, batch.Region)
	}
}

// What cannot be expanded is said, never priced as something it may not be: a patch whose
// template calls a function gpuguard does not have, a region patch that reads an unset
// variable, a worker class the ClusterClass lacks, a template or a class not among the files.
// A patch computed by a runtime extension is noted on the machines it may change.
func TestClusterClassWhatCannotBeExpanded(t *testing.T) {
	class := `apiVersion: cluster.x-k8s.io/v1beta1
kind: ClusterClass
metadata: {name: gcp, namespace: ml}
spec:
  infrastructure:
    ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: GCPClusterTemplate, name: gcp}
  workers:
    machineDeployments:
    - class: hashed
      template:
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: GCPMachineTemplate, name: hashed}
    - class: plain
      template:
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: GCPMachineTemplate, name: plain}
    - class: elsewhere
      template:
        infrastructure:
          ref: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: GCPMachineTemplate, name: not-here}
  variables:
  - name: project
    schema: {openAPIV3Schema: {type: string}}
  patches:
  - name: hashedType
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: GCPMachineTemplate
        matchResources: {machineDeploymentClass: {names: [hashed]}}
      jsonPatches:
      - {op: replace, path: /spec/template/spec/instanceType, valueFrom: {template: '{{ .builtin.cluster.name | sha256sum }}'}}
  - name: region
    definitions:
    - selector:
        apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
        kind: GCPClusterTemplate
        matchResources: {infrastructureCluster: true}
      jsonPatches:
      - {op: replace, path: /spec/template/spec/region, valueFrom: {template: '{{ .regionOf.project }}'}}
  - name: images
    external: {generatePatchesExtension: images.example.com}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: GCPClusterTemplate
metadata: {name: gcp, namespace: ml}
spec:
  template:
    spec: {region: us-central1, project: x}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: GCPMachineTemplate
metadata: {name: hashed, namespace: ml}
spec:
  template:
    spec: {instanceType: a2-highgpu-1g}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: GCPMachineTemplate
metadata: {name: plain, namespace: ml}
spec:
  template:
    spec: {instanceType: g2-standard-8}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  topology:
    class: gcp
    version: v1.31.0
    workers:
      machineDeployments:
      - {class: hashed, name: a, replicas: 1}
      - {class: plain, name: b, replicas: 2}
      - {class: elsewhere, name: d, replicas: 1}
      - {class: missing, name: e, replicas: 1}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: orphan, namespace: ml}
spec:
  topology:
    class: not-read
    version: v1.31.0
    workers:
      machineDeployments:
      - {class: gpu, name: a, replicas: 1}
`
	res := build(t, class, Options{})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	r := one(t, res)
	notes := strings.Join(r.Notes, "; ")
	if r.Address != "MachineDeployment/ml/c-b" || r.InstanceType != "g2-standard-8" || r.Quantity != 2 || r.Region != "" ||
		!strings.Contains(r.RegionUnknown, "the region is set on GCPClusterTemplate/ml/gcp by patch region (/spec/template/spec/region)") ||
		!strings.Contains(notes, "patch images is computed by a runtime extension (images.example.com)") {
		t.Errorf("%s: %s ×%d in %q (%q), notes %s", r.Address, r.InstanceType, r.Quantity, r.Region, r.RegionUnknown, notes)
	}
	want := []string{
		`runs MachineDeployment a of class hashed: its machines are set on GCPMachineTemplate/ml/hashed by patch hashedType (/spec/template/spec/instanceType): template: patch:1: function "sha256sum" not defined`,
		"runs MachineDeployment d of class elsewhere, whose machines' type is in GCPMachineTemplate/ml/not-here, which is not among the files read",
		"runs MachineDeployment e of class missing, which ClusterClass/ml/gcp does not define",
		"ClusterClass/ml/not-read is not among the files read",
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %v", res.Warnings)
	}
	for i, w := range want {
		if !strings.Contains(res.Warnings[i].Message, w) {
			t.Errorf("warning %d: %q, want %q", i, res.Warnings[i].Message, w)
		}
	}
	if res.Warnings[0].Line != 74 || res.Warnings[3].Line != 79 {
		t.Errorf("warning lines %d, %d", res.Warnings[0].Line, res.Warnings[3].Line)
	}
}

// Patch templates come from the pull request: what could run without end or write without end
// is refused, and output that read an unset variable is not a value.
func TestRenderPatchTemplateIsBounded(t *testing.T) {
	vars := map[string]any{"n": 3, "s": "x", "gpu": map[string]any{"type": "g5.xlarge"}}
	for _, c := range []struct{ tmpl, want, err string }{
		{"{{ .gpu.type }}", "g5.xlarge", ""},
		{`{{ if .missing }}a{{ else }}{{ default "b" .missing }}{{ end }}`, "b", ""},
		{"{{ .s | upper | quote }}", `"X"`, ""},
		{"{{ range .n }}x{{ end }}", "", "range"},
		{"{{ range 1000000000000 }}x{{ end }}", "", "range"},
		{`{{ define "t" }}{{ template "t" }}{{ end }}{{ template "t" }}`, "", "calls a template"},
		{`{{ printf "%999999s" "" }}{{ printf "%999999s" "" }}`, "", "over 64 KiB"},
		{"{{ .missing }}", "", "not set"},
		{"{{ .s | sha1sum }}", "", "not defined"},
	} {
		got, err := renderPatchTemplate(c.tmpl, vars, nil)
		if c.err == "" && (err != nil || got != c.want) {
			t.Errorf("%s: %q, %v; want %q", c.tmpl, got, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%s: %q, %v; want an error with %q", c.tmpl, got, err, c.err)
		}
	}
}

func TestApplyJSONPatch(t *testing.T) {
	base := func() any {
		return map[string]any{"template": map[string]any{"spec": map[string]any{"instanceType": "t3.large", "tags": []any{"a"}}}}
	}
	for _, c := range []struct {
		op, path string
		value    any
		want     any
		err      string
	}{
		{"replace", "/spec/template/spec/instanceType", "g5.xlarge", map[string]any{"template": map[string]any{"spec": map[string]any{"instanceType": "g5.xlarge", "tags": []any{"a"}}}}, ""},
		{"add", "/spec/template/spec/spotMarketOptions/maxPrice", "1", map[string]any{"template": map[string]any{"spec": map[string]any{"instanceType": "t3.large", "tags": []any{"a"}, "spotMarketOptions": map[string]any{"maxPrice": "1"}}}}, ""},
		{"remove", "/spec/template/spec/instanceType", nil, map[string]any{"template": map[string]any{"spec": map[string]any{"tags": []any{"a"}}}}, ""},
		{"add", "/spec/template/spec/tags/-", "b", map[string]any{"template": map[string]any{"spec": map[string]any{"instanceType": "t3.large", "tags": []any{"a", "b"}}}}, ""},
		{"add", "/spec/template/spec/tags/0", "z", map[string]any{"template": map[string]any{"spec": map[string]any{"instanceType": "t3.large", "tags": []any{"z", "a"}}}}, ""},
		{"replace", "/spec/template/other/x", "y", nil, "no field other"},
		{"add", "/spec/template/spec/instanceType/x", "y", nil, "not an object or a list"},
		{"add", "/metadata/name", "y", nil, "not under /spec/"},
		{"move", "/spec/template", "y", nil, "not add, replace or remove"},
		{"replace", "/spec/template/spec/tags/5", "y", nil, "no element 5"},
	} {
		got, err := applyJSONPatch(base(), c.op, c.path, c.value)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s %s: %v, want an error with %q", c.op, c.path, err, c.err)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %s: %v, %v; want %v", c.op, c.path, got, err, c.want)
		}
	}
}

func TestLookupVariable(t *testing.T) {
	vars := map[string]any{"httpProxy": map[string]any{"url": "http://p"}, "dns": []any{"1.1.1.1", map[string]any{"ip": "8.8.8.8"}}}
	for path, want := range map[string]any{"httpProxy.url": "http://p", "dns[0]": "1.1.1.1", "dns[1].ip": "8.8.8.8"} {
		if got, err := lookupVariable(vars, path); err != nil || got != want {
			t.Errorf("%s: %v, %v", path, got, err)
		}
	}
	for _, path := range []string{"nope", "dns[2]", "httpProxy.url.x", "dns[0", "httpProxy.port"} {
		if got, err := lookupVariable(vars, path); err == nil {
			t.Errorf("%s: %v, want an error", path, got)
		}
	}
}

// Templates whose spec is not an object (a scalar, a list) are read as templates without
// machines: no panic, no resource, the other workers still read.
func TestClusterClassMalformedTemplates(t *testing.T) {
	src := `apiVersion: cluster.x-k8s.io/v1beta2
kind: ClusterClass
metadata: {name: k, namespace: ml}
spec:
  infrastructure:
    templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSClusterTemplate, name: bad}
  workers:
    machinePools:
    - class: scalar
      infrastructure:
        templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSManagedMachinePoolTemplate, name: scalar}
    machineDeployments:
    - class: good
      infrastructure:
        templateRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta2, kind: AWSMachineTemplate, name: good}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSClusterTemplate
metadata: {name: bad, namespace: ml}
spec: [1, 2]
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSManagedMachinePoolTemplate
metadata: {name: scalar, namespace: ml}
spec: just-text
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: good, namespace: ml}
spec: {template: {spec: {instanceType: g5.xlarge}}}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  topology:
    classRef: {name: k}
    workers:
      machinePools: [{class: scalar, name: p, replicas: 1}]
      machineDeployments: [{class: good, name: d, replicas: 2}]
`
	res := build(t, src, Options{})
	r := one(t, res)
	if r.Address != "MachineDeployment/ml/c-d" || r.InstanceType != "g5.xlarge" || r.Quantity != 2 {
		t.Errorf("%s: %s ×%d", r.Address, r.InstanceType, r.Quantity)
	}
}

// A clusterctl template whose topology's replicas is a variable, with its ClusterClass not among
// the files: the warning still names the workers (it was empty when replicas did not decode as a
// number).
func TestClusterClassMissingWithClusterctlReplicas(t *testing.T) {
	res := build(t, `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c}
spec:
  topology:
    class: quick-start
    workers:
      machineDeployments:
      - {class: default-worker, name: md-0, replicas: "${WORKER_MACHINE_COUNT}"}
`, Options{})
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message,
		"Cluster/default/c runs MachineDeployment md-0 of class default-worker (replicas ${WORKER_MACHINE_COUNT}) from ClusterClass quick-start") {
		t.Fatalf("warnings %+v", res.Warnings)
	}
}
