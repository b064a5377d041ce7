package kubernetes

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// machineSetSrc is a MachineDeployment (or another kind, with the given metadata and spec lines)
// of cluster c in namespace ml, and the AWSMachineTemplate it names.
func machineSetSrc(kind, meta, spec, template string) string {
	return `apiVersion: cluster.x-k8s.io/v1beta1
kind: ` + kind + `
metadata:
  name: gpu
  namespace: ml
` + meta + `spec:
  clusterName: c
` + spec + `  template:
    spec:
      infrastructureRef: {kind: AWSMachineTemplate, name: tpl}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: tpl, namespace: ml}
spec:
  template:
    spec:
` + template
}

// How many machines a machine set runs: replicas as written, the autoscaler's minimum when
// replicas are unset (in either annotation prefix), Cluster API's default of 1 otherwise, and the
// provider pool's minimum when the replicas are managed outside Cluster API. The maximum is the
// autoscaler's, or the pool's own.
func TestMachineSetCounts(t *testing.T) {
	cases := []struct {
		name, meta, spec string
		qty, max         int
		note             string
	}{
		{"replicas", "", "  replicas: 3\n", 3, 0, ""},
		{"autoscaler", "  annotations:\n    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"2\"\n    cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: \"5\"\n", "", 2, 5, "the autoscaler's minimum"},
		{"older prefix", "  annotations:\n    cluster.k8s.io/cluster-api-autoscaler-node-group-min-size: \"0\"\n    cluster.k8s.io/cluster-api-autoscaler-node-group-max-size: \"3\"\n", "", 0, 3, "scaled to zero"},
		{"replicas win over the minimum", "  annotations:\n    cluster.x-k8s.io/cluster-api-autoscaler-node-group-min-size: \"1\"\n", "  replicas: 4\n", 4, 0, ""},
		{"default", "", "", 1, 0, "Cluster API's default of 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, machineSetSrc("MachineDeployment", tc.meta, tc.spec, "      instanceType: g5.xlarge\n"), Options{})
			if len(res.Errors) != 0 || len(res.Resources) != 1 {
				t.Fatalf("errors %+v, resources %+v", res.Errors, res.Resources)
			}
			r := res.Resources[0]
			max := 0
			if r.ScaleMax != nil {
				max = r.ScaleMax.Quantity
			}
			if r.Quantity != tc.qty || max != tc.max || r.InstanceType != "g5.xlarge" || r.Provider != parser.AWS || r.Pod != nil {
				t.Fatalf("%s ×%d max %d (%s), want g5.xlarge ×%d max %d as whole machines", r.InstanceType, r.Quantity, max, r.Provider, tc.qty, tc.max)
			}
			if tc.note != "" && !strings.Contains(strings.Join(r.Notes, "; "), tc.note) {
				t.Errorf("notes %q, want one saying %q", r.Notes, tc.note)
			}
		})
	}

	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: asg
  namespace: ml
  annotations: {cluster.x-k8s.io/replicas-managed-by: external-autoscaler}
spec:
  clusterName: c
  replicas: 1
  template:
    spec:
      infrastructureRef: {kind: AWSMachinePool, name: asg}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachinePool
metadata: {name: asg, namespace: ml}
spec:
  minSize: 3
  maxSize: 12
  awsLaunchTemplate: {instanceType: p4d.24xlarge}
  mixedInstancesPolicy:
    instancesDistribution: {onDemandBaseCapacity: 0, onDemandPercentageAboveBaseCapacity: 0}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 1 {
		t.Fatalf("errors %+v, resources %+v", res.Errors, res.Resources)
	}
	r := res.Resources[0]
	if r.Quantity != 3 || r.ScaleMax == nil || r.ScaleMax.Quantity != 12 || r.PurchaseOption != parser.Spot || r.SpotQuantity != 0 || r.ScaleMax.SpotQuantity != 0 {
		t.Fatalf("%d (max %+v) %s spot %d; want the pool's minimum 3, max 12, all on spot", r.Quantity, r.ScaleMax, r.PurchaseOption, r.SpotQuantity)
	}
}

// Bad counts are errors with the file and line, and the rest of the file is still read.
func TestMachineSetBadCounts(t *testing.T) {
	for _, tc := range []struct{ meta, spec, want string }{
		{"", "  replicas: -2\n", "replicas -2 is not a number of machines"},
		{"  annotations: {cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size: lots}\n", "", `annotation cluster.x-k8s.io/cluster-api-autoscaler-node-group-max-size="lots" is not a number of machines`},
		{"", "  replicas: many\n", `replicas "many" is not a number of machines`},
		{"", "  replicas: [1]\n", "replicas is not a number"},
	} {
		src := machineSetSrc("MachineDeployment", tc.meta, tc.spec, "      instanceType: g5.xlarge\n") + `---
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ml}
spec:
  nodeSelector: {node.kubernetes.io/instance-type: g5.xlarge}
  containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]
`
		res := build(t, src, Options{})
		if len(res.Errors) != 1 || res.Errors[0].Line == 0 || !strings.Contains(res.Errors[0].Message, "MachineDeployment/ml/gpu") || !strings.Contains(res.Errors[0].Message, tc.want) {
			t.Errorf("%q: errors %+v, want one at a line saying %q", tc.spec+tc.meta, res.Errors, tc.want)
		}
		if len(res.Resources) != 1 || res.Resources[0].Address != "Pod/ml/p" {
			t.Errorf("resources %+v, want the pod still read", res.Resources)
		}
	}
}

// Spot and Capacity Blocks on AWS machines; objects the controllers create (a MachineSet of a
// MachineDeployment, a control plane's Machine) are not counted again; CPU machines and kinds of
// other infrastructure providers are not resources.
func TestMachineSetPurchaseAndOwnership(t *testing.T) {
	cases := []struct {
		name, kind, meta, template string
		purchase                   parser.PurchaseOption
		resources                  int
		unresolved                 string
	}{
		{"spot options", "MachineDeployment", "", "      instanceType: g5.xlarge\n      spotMarketOptions: {maxPrice: \"1.00\"}\n", parser.Spot, 1, ""},
		{"null spot options", "MachineDeployment", "", "      instanceType: g5.xlarge\n      spotMarketOptions: null\n", parser.OnDemand, 1, ""},
		{"market type", "MachineDeployment", "", "      instanceType: g5.xlarge\n      marketType: Spot\n", parser.Spot, 1, ""},
		{"capacity block", "MachineDeployment", "", "      instanceType: p5.48xlarge\n      marketType: CapacityBlock\n", parser.OnDemand, 1, "spec.template.spec.marketType"},
		{"cpu machines", "MachineDeployment", "", "      instanceType: m6i.large\n", parser.OnDemand, 0, ""},
		{"owned machine set", "MachineSet", "  labels: {cluster.x-k8s.io/deployment-name: gpu}\n", "      instanceType: g5.xlarge\n", parser.OnDemand, 0, ""},
		{"machine set of its own", "MachineSet", "", "      instanceType: g5.xlarge\n", parser.OnDemand, 1, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			res := build(t, machineSetSrc(tc.kind, tc.meta, "  replicas: 2\n", tc.template), Options{})
			if len(res.Errors) != 0 || len(res.Warnings) != 0 || len(res.Resources) != tc.resources {
				t.Fatalf("errors %+v, warnings %+v, %d resources, want %d", res.Errors, res.Warnings, len(res.Resources), tc.resources)
			}
			if tc.resources == 0 {
				return
			}
			r := res.Resources[0]
			if r.PurchaseOption != tc.purchase {
				t.Errorf("purchase %s, want %s", r.PurchaseOption, tc.purchase)
			}
			if got := len(r.Unresolved) > 0; got != (tc.unresolved != "") || got && (r.Unresolved[0].Attribute != tc.unresolved || r.Unresolved[0].Reason != parser.CapacityBlockReason) {
				t.Errorf("unresolved %+v, want %q", r.Unresolved, tc.unresolved)
			}
		})
	}

	machine := `apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata:
  name: cp-0
  namespace: ml
  labels: {cluster.x-k8s.io/control-plane: ""}
spec:
  clusterName: c
  infrastructureRef: {kind: AWSMachine, name: cp-0}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Machine
metadata: {name: one-off, namespace: ml}
spec:
  clusterName: c
  infrastructureRef: {kind: AWSMachine, name: one-off}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachine
metadata: {name: cp-0, namespace: ml}
spec: {instanceType: g5.xlarge}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachine
metadata: {name: one-off, namespace: ml}
spec: {instanceType: p4d.24xlarge}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: metal, namespace: ml}
spec:
  clusterName: c
  template:
    spec:
      infrastructureRef: {kind: Metal3MachineTemplate, name: metal}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: Metal3MachineTemplate
metadata: {name: metal, namespace: ml}
spec:
  template: {spec: {image: {url: http://example.com/img}}}
`
	res := build(t, machine, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 || len(res.Resources) != 1 ||
		res.Resources[0].Address != "Machine/ml/one-off" || res.Resources[0].Quantity != 1 || res.Resources[0].InstanceType != "p4d.24xlarge" {
		t.Fatalf("errors %+v, warnings %+v, resources %+v; want the one-off Machine only", res.Errors, res.Warnings, res.Resources)
	}
}

// The region and tags come from the cluster's infrastructure: through the Cluster's references,
// or, without the Cluster among the files, from an AWSCluster of the cluster's name (the
// cluster-name label naming it when spec.clusterName is absent). An AzureMachinePool's own
// location wins. When nothing names the region, the resource says what would have.
func TestMachineSetRegion(t *testing.T) {
	awsCluster := `---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSCluster
metadata: {name: c, namespace: ml}
spec:
  region: eu-west-1
  additionalTags: {team: ml, env: dev}
`
	res := build(t, machineSetSrc("MachineDeployment", "", "  replicas: 1\n", "      instanceType: g5.xlarge\n      additionalTags: {env: prod}\n")+awsCluster, Options{})
	if len(res.Resources) != 1 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	r := res.Resources[0]
	if r.Region != "eu-west-1" || r.RegionUnknown != "" || r.Tags["team"] != "ml" || r.Tags["env"] != "prod" {
		t.Errorf("region %q (%q), tags %v; want eu-west-1 from AWSCluster/ml/c and its tags under the template's", r.Region, r.RegionUnknown, r.Tags)
	}

	// The Cluster names infrastructure that is not among the files.
	cluster := `---
apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  infrastructureRef: {kind: AWSCluster, name: c-infra}
`
	res = build(t, machineSetSrc("MachineDeployment", "", "  replicas: 1\n", "      instanceType: g5.xlarge\n")+cluster+awsCluster, Options{})
	if r := res.Resources[0]; r.Region != "" || !strings.Contains(r.RegionUnknown, "AWSCluster/ml/c-infra") {
		t.Errorf("region %q, unknown %q; want the missing AWSCluster/ml/c-infra named", r.Region, r.RegionUnknown)
	}

	azure := `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata:
  name: pool
  namespace: ml
  labels: {cluster.x-k8s.io/cluster-name: az}
spec:
  replicas: 2
  template:
    spec:
      infrastructureRef: {kind: AzureMachinePool, name: pool}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureMachinePool
metadata: {name: pool, namespace: ml}
spec:
  location: West US 2
  template:
    vmSize: Standard_NC24ads_A100_v4
    spotVMOptions: {}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureCluster
metadata: {name: az, namespace: ml}
spec:
  location: eastus
  additionalTags: {project: p}
`
	res = build(t, azure, Options{})
	if len(res.Resources) != 1 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	if r := res.Resources[0]; r.Region != "westus2" || r.Provider != parser.Azure || r.PurchaseOption != parser.Spot || r.Tags["project"] != "p" {
		t.Errorf("%s %s %s tags %v; want the pool's own westus2, spot, the cluster's tags", r.Provider, r.Region, r.PurchaseOption, r.Tags)
	}
}

// A machine set whose infrastructure is missing is a warning when gpuguard would have read it;
// one of a kind it does not read is a warning only when a field names a GPU type.
func TestMachineSetUnreadInfrastructure(t *testing.T) {
	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: missing, namespace: ml}
spec:
  clusterName: c
  template:
    spec:
      infrastructureRef: {kind: GCPMachineTemplate, name: elsewhere}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: docker, namespace: ml}
spec:
  clusterName: c
  template:
    spec:
      infrastructureRef: {kind: DockerMachineTemplate, name: elsewhere}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: oci, namespace: ml}
spec:
  clusterName: c
  template:
    spec:
      infrastructureRef: {kind: OCIManagedMachinePool, name: oci}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: OCIManagedMachinePool
metadata: {name: oci, namespace: ml}
spec:
  nodeShape: VM.GPU.A10.1
  pools:
  - machineType: g5.2xlarge
`
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 2 {
		t.Fatalf("resources %+v, warnings %+v", res.Resources, res.Warnings)
	}
	if w := res.Warnings[0]; w.Line != 1 || !strings.Contains(w.Message, "MachineDeployment/ml/missing takes its machines' type from GCPMachineTemplate/ml/elsewhere, which is not among the files read") {
		t.Errorf("warning %+v", w)
	}
	if w := res.Warnings[1]; w.Line != 19 || !strings.Contains(w.Message, "whose spec.pools[0].machineType names GPU type g5.2xlarge, but gpuguard does not read OCIManagedMachinePool") {
		t.Errorf("warning %+v", w)
	}
}

// A clusterctl template (cluster-template.yaml, filled in by clusterctl generate cluster): a
// variable's default is used, with a note; a count without one is priced at 1 and a region
// without one is left to the default region, both saying which variable; an instance type that
// is a variable without a default is a warning, as it may be a GPU type.
func TestMachineSetClusterctlVariables(t *testing.T) {
	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: "${CLUSTER_NAME}"}
spec:
  infrastructureRef: {kind: AWSManagedControlPlane, name: "${CLUSTER_NAME}-control-plane"}
---
apiVersion: controlplane.cluster.x-k8s.io/v1beta2
kind: AWSManagedControlPlane
metadata: {name: "${CLUSTER_NAME}-control-plane"}
spec: {region: "${AWS_REGION}"}
---
apiVersion: exp.cluster.x-k8s.io/v1alpha3
kind: MachinePool
metadata: {name: "${CLUSTER_NAME}-pool-0"}
spec:
  clusterName: "${CLUSTER_NAME}"
  replicas: ${WORKER_MACHINE_COUNT}
  template:
    spec:
      infrastructureRef: {kind: AWSManagedMachinePool, name: "${CLUSTER_NAME}-pool-0"}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1alpha3
kind: AWSManagedMachinePool
metadata: {name: "${CLUSTER_NAME}-pool-0"}
spec: {amiType: AL2_x86_64_GPU, instanceType: "${GPU_TYPE:=g4dn.xlarge}"}
---
apiVersion: cluster.x-k8s.io/v1beta1
kind: MachineDeployment
metadata: {name: "${CLUSTER_NAME}-md-0"}
spec:
  clusterName: "${CLUSTER_NAME}"
  replicas: ${WORKER_MACHINE_COUNT:=3}
  template:
    spec:
      infrastructureRef: {kind: AWSMachineTemplate, name: "${CLUSTER_NAME}-md-0"}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSMachineTemplate
metadata: {name: "${CLUSTER_NAME}-md-0"}
spec: {template: {spec: {instanceType: "${AWS_NODE_MACHINE_TYPE}"}}}
`
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Resources) != 1 || len(res.Warnings) != 1 {
		t.Fatalf("errors %+v, resources %+v, warnings %+v", res.Errors, res.Resources, res.Warnings)
	}
	r := res.Resources[0]
	notes := strings.Join(r.Notes, "; ")
	if r.InstanceType != "g4dn.xlarge" || r.Quantity != 1 || r.Region != "" || !strings.Contains(r.RegionUnknown, "clusterctl variable AWS_REGION") ||
		!strings.Contains(notes, "clusterctl variable WORKER_MACHINE_COUNT, set when the template is generated: priced at 1") ||
		!strings.Contains(notes, "clusterctl variable GPU_TYPE: priced at its default g4dn.xlarge") {
		t.Errorf("%s ×%d region %q (%q), notes %q", r.InstanceType, r.Quantity, r.Region, r.RegionUnknown, notes)
	}
	if w := res.Warnings[0]; !strings.Contains(w.Message, "spec.template.spec.instanceType is clusterctl variable AWS_NODE_MACHINE_TYPE") {
		t.Errorf("warning %+v", w)
	}
}

// A Cluster with a managed topology: its workers come from a ClusterClass gpuguard does not
// expand, and a warning names them rather than leaving them out in silence; a Cluster without
// topology workers says nothing.
func TestClusterTopologyWorkersAreAWarning(t *testing.T) {
	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: c, namespace: ml}
spec:
  topology:
    class: aws-gpu
    version: v1.31.0
    workers:
      machineDeployments:
      - {class: gpu-workers, name: md-0, replicas: 2}
      machinePools:
      - {class: burst, name: mp-0}
---
apiVersion: cluster.x-k8s.io/v1beta2
kind: Cluster
metadata: {name: cp-only, namespace: ml}
spec:
  topology: {classRef: {name: aws}, version: v1.31.0}
`
	res := build(t, src, Options{})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 || res.Warnings[0].Line != 1 || !strings.Contains(res.Warnings[0].Message,
		"Cluster/ml/c runs MachineDeployment md-0 of class gpu-workers (2 replicas), MachinePool mp-0 of class burst (replicas unset) from ClusterClass aws-gpu") {
		t.Fatalf("resources %+v, warnings %+v", res.Resources, res.Warnings)
	}
}

// CAPA's EKS managed pools: EKS takes the AMI type CAPA sends, and CAPA's CRD defaults an unset
// amiType to AL2_x86_64, which has no NVIDIA driver. A GPU pool without an NVIDIA AMI type
// starts its nodes without the driver (GPU012); an NVIDIA type, a launch template's own image
// or a CPU type is not held against it.
func TestCAPAManagedPoolAMIType(t *testing.T) {
	pool := func(name, spec string) string {
		return `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: eks
  replicas: 1
  template:
    spec:
      infrastructureRef: {kind: AWSManagedMachinePool, name: ` + name + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: AWSManagedMachinePool
metadata: {name: ` + name + `, namespace: ml}
spec: ` + spec + `
---
`
	}
	src := pool("unset", "{instanceType: g5.xlarge}") +
		pool("standard", "{instanceType: g6.xlarge, amiType: AL2023_x86_64_STANDARD}") +
		pool("nvidia", "{instanceType: g6.xlarge, amiType: AL2023_x86_64_NVIDIA}") +
		pool("gpu", "{instanceType: p4d.24xlarge, amiType: AL2_x86_64_GPU}") +
		pool("template", "{awsLaunchTemplate: {instanceType: g5.xlarge}}") +
		pool("inferentia", "{instanceType: inf2.xlarge}")
	res := build(t, src, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.NoGPUDriver
	}
	want := map[string]string{
		"MachinePool/ml/unset":    "spec.amiType is not set, and CAPA's default, AL2_x86_64, is an EKS AMI type without the NVIDIA driver",
		"MachinePool/ml/standard": "spec.amiType AL2023_x86_64_STANDARD, an EKS AMI type without the NVIDIA driver",
		"MachinePool/ml/nvidia":   "", "MachinePool/ml/gpu": "", "MachinePool/ml/template": "", "MachinePool/ml/inferentia": "",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q (errors %v)", got, want, res.Errors)
	}
}

func TestGKEManagedMachinePool(t *testing.T) {
	pool := func(name, replicas, spec string) string {
		return `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: gke
  replicas: ` + replicas + `
  template:
    spec:
      infrastructureRef: {kind: GCPManagedMachinePool, name: ` + name + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: GCPManagedMachinePool
metadata: {name: ` + name + `, namespace: ml}
spec: ` + spec + `
---
`
	}
	// The Cluster names a GCPManagedCluster that is not among the files: the region comes from
	// the control plane's zonal location.
	src := `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: gke, namespace: ml}
spec:
  infrastructureRef: {kind: GCPManagedCluster, name: gke}
  controlPlaneRef: {kind: GCPManagedControlPlane, name: gke-cp}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: GCPManagedControlPlane
metadata: {name: gke-cp, namespace: ml}
spec: {project: p, location: europe-west4-a}
---
` + pool("both", "6", "{instanceType: g2-standard-8, machineType: a2-highgpu-1g, nodeLocations: [europe-west4-a, europe-west4-b], scaling: {minCount: 2, maxCount: 10}}") +
		pool("deprecated", "3", "{machineType: a2-highgpu-1g, preemptible: true, additionalLabels: {team: vision}}") +
		pool("uneven", "4", "{instanceType: g2-standard-4, spot: true}") +
		pool("cpu", "3", "{scaling: {maxCount: 9}}")
	res := build(t, src, Options{})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	type got struct {
		typ, purchase, region string
		n, max                int
		tags                  map[string]string
	}
	gotBy := map[string]got{}
	notes := map[string][]string{}
	for _, r := range res.Resources {
		g := got{typ: r.InstanceType, purchase: string(r.PurchaseOption), region: r.Region, n: r.Quantity, tags: r.Tags}
		if r.ScaleMax != nil {
			g.max = r.ScaleMax.Quantity
		}
		gotBy[r.Address], notes[r.Address] = g, r.Notes
	}
	want := map[string]got{
		// instanceType wins over the deprecated machineType, as CAPG sends it; scaling.maxCount
		// is the pool's total maximum.
		"MachinePool/ml/both":       {typ: "g2-standard-8", purchase: "on_demand", region: "europe-west4", n: 6, max: 10},
		"MachinePool/ml/deprecated": {typ: "a2-highgpu-1g", purchase: "spot", region: "europe-west4", n: 3, tags: map[string]string{"team": "vision"}},
		"MachinePool/ml/uneven":     {typ: "g2-standard-4", purchase: "spot", region: "europe-west4", n: 4},
		// "cpu" sets no type: GKE's default e2-medium has no GPU, so it is not a resource.
	}
	if !reflect.DeepEqual(gotBy, want) {
		t.Errorf("got  %+v\nwant %+v", gotBy, want)
	}
	wantNotes := map[string]string{
		"MachinePool/ml/both":       "GKE pool: 6 machines in all, 3 in each of 2 zones (spec.nodeLocations of GCPManagedMachinePool/ml/both)",
		"MachinePool/ml/deprecated": "GKE pool: 3 machines in all, 1 in each of 3 zones (CAPG's default of 3 zones)",
		"MachinePool/ml/uneven":     "GKE pool: 4 machines are not a multiple of its 3 zones (CAPG's default of 3 zones): CAPG refuses to create it until they are; priced at 4",
	}
	for addr, note := range wantNotes {
		if !slices.Contains(notes[addr], note) {
			t.Errorf("%s: notes %q lack %q", addr, notes[addr], note)
		}
	}
	if !slices.Contains(notes["MachinePool/ml/both"], "region europe-west4 from GCPManagedControlPlane/ml/gke-cp (zone europe-west4-a)") {
		t.Errorf("region note missing: %q", notes["MachinePool/ml/both"])
	}
}

// CAPZ's ASO-based AKS pools: the AzureASOManagedMachinePool's ManagedClustersAgentPool gives the
// VM size, spot priority, autoscaling bounds, tags and driver setting; the MachinePool's replicas
// the count; the region is the location of the ManagedCluster in the AzureASOManagedControlPlane,
// found through the Cluster or, without it, by the cluster's name.
func TestAzureASOManagedMachinePool(t *testing.T) {
	pool := func(name, spec string) string {
		return `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  clusterName: aks
  replicas: 2
  template:
    spec:
      infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedMachinePool, name: ` + name + `}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedMachinePool
metadata: {name: ` + name + `, namespace: ml}
spec:
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedClustersAgentPool
    metadata: {name: ` + name + `}
    spec: ` + spec + `
---
`
	}
	controlPlane := `apiVersion: infrastructure.cluster.x-k8s.io/v1beta1
kind: AzureASOManagedControlPlane
metadata: {name: aks, namespace: ml}
spec:
  version: v1.31.1
  resources:
  - apiVersion: containerservice.azure.com/v1api20240901
    kind: ManagedCluster
    metadata: {name: aks}
    spec: {location: westeurope, dnsPrefix: aks, owner: {name: aks-rg}}
---
`
	pools := pool("a100", "{owner: {name: aks}, mode: User, vmSize: Standard_NC24ads_A100_v4, scaleSetPriority: Spot, enableAutoScaling: true, minCount: 1, maxCount: 5, tags: {team: ml}}") +
		pool("t4", `{owner: {name: aks}, mode: User, vmSize: Standard_NC4as_T4_v3, gpuProfile: {driver: None}}`) +
		pool("system", "{owner: {name: aks}, mode: System, vmSize: Standard_D4s_v5}") +
		pool("skip", `{owner: {name: aks}, vmSize: Standard_NC4as_T4_v3, tags: {SkipGPUDriverInstall: "True"}}`) +
		pool("noskip", `{owner: {name: aks}, vmSize: Standard_NC4as_T4_v3, tags: {SkipGPUDriverInstall: "false"}}`)
	for name, src := range map[string]string{
		"through the Cluster": `apiVersion: cluster.x-k8s.io/v1beta1
kind: Cluster
metadata: {name: aks, namespace: ml}
spec:
  controlPlaneRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedControlPlane, name: aks}
  infrastructureRef: {apiVersion: infrastructure.cluster.x-k8s.io/v1beta1, kind: AzureASOManagedCluster, name: aks}
---
` + controlPlane + pools,
		"by the cluster's name": controlPlane + pools,
	} {
		t.Run(name, func(t *testing.T) {
			res := build(t, src, Options{})
			if len(res.Errors) != 0 || len(res.Warnings) != 0 {
				t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
			}
			var got []string
			for _, r := range res.Resources {
				max := 0
				if r.ScaleMax != nil {
					max = r.ScaleMax.Quantity
				}
				got = append(got, fmt.Sprintf("%s %s ×%d (max %d) %s in %s team=%s driver=%t", r.Address, r.InstanceType, r.Quantity, max, r.PurchaseOption, r.Region, r.Tags["team"], r.NoGPUDriver != ""))
			}
			want := []string{
				"MachinePool/ml/a100 Standard_NC24ads_A100_v4 ×2 (max 5) spot in westeurope team=ml driver=false",
				"MachinePool/ml/t4 Standard_NC4as_T4_v3 ×2 (max 0) on_demand in westeurope team= driver=true",
				// AKS skips the driver only when the tag says true.
				"MachinePool/ml/skip Standard_NC4as_T4_v3 ×2 (max 0) on_demand in westeurope team= driver=true",
				"MachinePool/ml/noskip Standard_NC4as_T4_v3 ×2 (max 0) on_demand in westeurope team= driver=false",
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// Cluster API node groups name the zones their machines run in where the pool or machine says:
// a GKE pool's spec.nodeLocations, an AWS pool's spec.availabilityZones (unless subnets of its
// own place it), a MachineDeployment's or Machine's failureDomain on AWS and GCP. Their pods'
// zone anti-affinity and zone pins count those zones (domains.go).
func TestCAPIZones(t *testing.T) {
	pool := func(kind, spec string) string {
		return `apiVersion: cluster.x-k8s.io/v1beta1
kind: MachinePool
metadata: {name: gpu, namespace: ml}
spec:
  clusterName: c
  replicas: 2
  template:
    spec:
      infrastructureRef: {kind: ` + kind + `, name: gpu}
---
apiVersion: infrastructure.cluster.x-k8s.io/v1beta2
kind: ` + kind + `
metadata: {name: gpu, namespace: ml}
spec: ` + spec + `
`
	}
	inDomain := func(src, fd string) string {
		return strings.Replace(src, "      infrastructureRef: {kind: AWSMachineTemplate, name: tpl}\n",
			"      infrastructureRef: {kind: AWSMachineTemplate, name: tpl}\n      failureDomain: "+fd+"\n", 1)
	}
	deployment := machineSetSrc("MachineDeployment", "", "  replicas: 2\n", "      instanceType: g6.xlarge\n")
	// An AKS pool's zones are named REGION-N, the region its control plane's.
	const aksPlane = "---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta1\nkind: AzureManagedControlPlane\nmetadata: {name: c, namespace: ml}\nspec: {location: eastus2, version: v1.30.0}\n"
	const asoPlane = "---\napiVersion: infrastructure.cluster.x-k8s.io/v1alpha1\nkind: AzureASOManagedControlPlane\nmetadata: {name: c, namespace: ml}\n" +
		"spec:\n  resources:\n  - {apiVersion: containerservice.azure.com/v1api20231001, kind: ManagedCluster, metadata: {name: c}, spec: {location: westus3}}\n"
	asoPool := "{resources: [{apiVersion: containerservice.azure.com/v1api20231001, kind: ManagedClustersAgentPool, metadata: {name: gpu}, spec: {vmSize: Standard_NC24ads_A100_v4, availabilityZones: [\"3\", \"1\"]}}]}"
	for _, c := range []struct {
		name, src, addr string
		zones           []string
	}{
		{"an AKS pool's zones", pool("AzureManagedMachinePool", "{sku: Standard_NC24ads_A100_v4, availabilityZones: [\"2\", \"1\"]}") + aksPlane,
			"MachinePool/ml/gpu", []string{"eastus2-1", "eastus2-2"}},
		{"an AKS pool in no zone", pool("AzureManagedMachinePool", "{sku: Standard_NC24ads_A100_v4}") + aksPlane, "MachinePool/ml/gpu", nil},
		{"an AKS pool's zones, its region unknown", pool("AzureManagedMachinePool", "{sku: Standard_NC24ads_A100_v4, availabilityZones: [\"1\"]}"), "MachinePool/ml/gpu", nil},
		{"an ASO agent pool's zones", pool("AzureASOManagedMachinePool", asoPool) + asoPlane, "MachinePool/ml/gpu", []string{"westus3-1", "westus3-3"}},
		{"an EKS pool's zones", pool("AWSManagedMachinePool", "{instanceType: g6.xlarge, amiType: AL2023_x86_64_NVIDIA, availabilityZones: [us-east-1b, us-east-1a]}"),
			"MachinePool/ml/gpu", []string{"us-east-1a", "us-east-1b"}},
		{"an EKS pool's own subnets", pool("AWSManagedMachinePool", "{instanceType: g6.xlarge, amiType: AL2023_x86_64_NVIDIA, availabilityZones: [us-east-1a], subnetIDs: [subnet-1]}"),
			"MachinePool/ml/gpu", nil},
		{"an AWS machine pool's zones", pool("AWSMachinePool", "{awsLaunchTemplate: {instanceType: g6.xlarge}, availabilityZones: [us-east-1c]}"),
			"MachinePool/ml/gpu", []string{"us-east-1c"}},
		{"a GKE pool's node locations", pool("GCPManagedMachinePool", "{instanceType: g2-standard-8, nodeLocations: [us-central1-b, us-central1-a]}"),
			"MachinePool/ml/gpu", []string{"us-central1-a", "us-central1-b"}},
		{"a GKE pool left to CAPG's default zones", pool("GCPManagedMachinePool", "{instanceType: g2-standard-8}"), "MachinePool/ml/gpu", nil},
		{"a failure domain", inDomain(deployment, "us-east-1d"), "MachineDeployment/ml/gpu", []string{"us-east-1d"}},
		{"no failure domain", deployment, "MachineDeployment/ml/gpu", nil},
		{"a Machine's failure domain", "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Machine\nmetadata: {name: gpu, namespace: ml}\nspec:\n  clusterName: c\n  failureDomain: us-east-1e\n" +
			"  infrastructureRef: {kind: AWSMachine, name: m}\n---\napiVersion: infrastructure.cluster.x-k8s.io/v1beta2\nkind: AWSMachine\nmetadata: {name: m, namespace: ml}\nspec: {instanceType: g6.xlarge}\n",
			"Machine/ml/gpu", []string{"us-east-1e"}},
		{"a failure domain that is no zone", inDomain(deployment, "\"1\""), "MachineDeployment/ml/gpu", nil},
	} {
		res := build(t, c.src, Options{})
		var r *parser.Resource
		for i := range res.Resources {
			if res.Resources[i].Address == c.addr {
				r = &res.Resources[i]
			}
		}
		if r == nil || r.NodeLabels == nil {
			t.Errorf("%s: no node group %s (errors %v, warnings %v)", c.name, c.addr, res.Errors, res.Warnings)
			continue
		}
		if !slices.Equal(r.NodeLabels.Zones, c.zones) || (r.NodeLabels.Zones == nil) != (c.zones == nil) {
			t.Errorf("%s: zones %q, want %q", c.name, r.NodeLabels.Zones, c.zones)
		}
	}
}
