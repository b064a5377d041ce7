package managed

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// An AKS cluster, a pool, a VM and a scale set declared with Azure Service Operator, in the shape
// of ASO's samples (v2/samples/containerservice, v2/samples/compute).
const asoManifests = `apiVersion: resources.azure.com/v1api20200601
kind: ResourceGroup
metadata: {name: ml-rg, namespace: ml}
spec:
  location: westus3
---
apiVersion: containerservice.azure.com/v20250801
kind: ManagedCluster
metadata: {name: ml-aks, namespace: ml}
spec:
  location: eastus
  owner: {name: ml-rg}
  dnsPrefix: ml
  agentPoolProfiles:
    - {name: system, count: 2, vmSize: Standard_D4s_v5, mode: System}
    - {name: t4, count: 1, vmSize: Standard_NC4as_T4_v3, mode: User, gpuProfile: {driver: None}}
  identity: {type: SystemAssigned}
---
apiVersion: containerservice.azure.com/v1api20231001
kind: ManagedClustersAgentPool
metadata:
  name: a100
  namespace: ml
  annotations: {gpuguard.dev/profile: profiles/train.yaml}
spec:
  owner: {name: ml-aks}
  azureName: gpua100
  vmSize: Standard_NC24ads_A100_v4
  count: 2
  enableAutoScaling: true
  minCount: 0
  maxCount: 4
  scaleSetPriority: Spot
  nodeLabels: {workload: train}
  tags: {team: ml, leak: '${file("aso.go")}'}
---
apiVersion: compute.azure.com/v1api20220301
kind: VirtualMachine
metadata: {name: box, namespace: ml}
spec:
  owner: {name: ml-rg}
  hardwareProfile: {vmSize: Standard_NC6s_v3}
---
apiVersion: compute.azure.com/v1api20220301
kind: VirtualMachineScaleSet
metadata: {name: vmss, namespace: ml}
spec:
  owner: {name: ml-rg}
  location: eastus
  sku: {name: Standard_NC4as_T4_v3, capacity: 3}
  virtualMachineProfile: {priority: Spot}
---
apiVersion: containerservice.azure.com/v1api20231001
kind: ManagedClustersAgentPool
metadata: {name: elsewhere, namespace: ml}
spec:
  owner: {armId: /subscriptions/s/resourceGroups/g/providers/Microsoft.ContainerService/managedClusters/c}
  vmSize: Standard_NC4as_T4_v3
---
apiVersion: containerservice.azure.com/v1api20231001
kind: ManagedClustersAgentPool
metadata: {name: other-namespace, namespace: team-b}
spec:
  owner: {name: ml-aks}
  vmSize: Standard_NC4as_T4_v3
`

// Azure Service Operator resources are priced as the ARM resources they declare, through the
// azapi_resource reader: an agent pool in the region of the ManagedCluster its owner names (in
// its namespace), a cluster's agentPoolProfiles each, a VM in its resource group's location, a
// scale set's sku and priority.
func TestAzureServiceOperatorResources(t *testing.T) {
	f := kubernetes.Decode("aso.yaml", []byte(asoManifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	// The system pool runs no GPU.
	got := checkResources(t, res, "aso.yaml", map[string]string{
		`ManagedCluster/ml/ml-aks.agentPoolProfiles["t4"]`: `Standard_NC4as_T4_v3 ×1 (max 0) on_demand in "eastus" at line 7, 0 unresolved`,
		"ManagedClustersAgentPool/ml/a100":                 `Standard_NC24ads_A100_v4 ×2 (max 4) spot in "eastus" at line 19, 0 unresolved`,
		// No location: ARM creates it in its resource group's.
		"VirtualMachine/ml/box":                           `Standard_NC6s_v3 ×1 (max 0) on_demand in "westus3" at line 37, 0 unresolved`,
		"VirtualMachineScaleSet/ml/vmss":                  `Standard_NC4as_T4_v3 ×3 (max 0) spot in "eastus" at line 44, 0 unresolved`,
		"ManagedClustersAgentPool/ml/elsewhere":           `Standard_NC4as_T4_v3 ×1 (max 0) on_demand in "" at line 53, 0 unresolved`,
		"ManagedClustersAgentPool/team-b/other-namespace": `Standard_NC4as_T4_v3 ×1 (max 0) on_demand in "" at line 60, 0 unresolved`,
	})
	for addr, r := range got {
		notes := strings.Join(r.Notes, " ")
		if !strings.Contains(notes, "an Azure Service Operator resource") || strings.Contains(notes, "azapi_resource") {
			t.Errorf("%s: notes %q", addr, r.Notes)
		}
	}
	// An owner outside the manifests (an ARM ID, or a cluster of that name in another
	// namespace) leaves the region unknown, said in the manifest's terms.
	for _, addr := range []string{"ManagedClustersAgentPool/ml/elsewhere", "ManagedClustersAgentPool/team-b/other-namespace"} {
		if why := got[addr].RegionUnknown; !strings.Contains(why, "(spec.owner) is not among the manifests") {
			t.Errorf("%s: region unknown because %q", addr, why)
		}
	}
	pool := got["ManagedClustersAgentPool/ml/a100"]
	if pool.Profile != "profiles/train.yaml" || pool.Tags["team"] != "ml" || pool.Tags["leak"] != `${file("aso.go")}` {
		t.Errorf("annotations and tags: profile %q, tags %q", pool.Profile, pool.Tags)
	}
	// AKS puts its spot taint on a Spot pool's nodes; the pool's labels are the nodes'.
	if pool.NodeLabels == nil || pool.NodeLabels.Labels["workload"] != "train" || len(pool.NodeLabels.Taints) != 1 ||
		pool.NodeLabels.Taints[0].Key != "kubernetes.azure.com/scalesetpriority" {
		t.Errorf("node labels %+v", pool.NodeLabels)
	}
	if t4 := got[`ManagedCluster/ml/ml-aks.agentPoolProfiles["t4"]`]; !strings.Contains(t4.NoGPUDriver, `gpuProfile.driver "None"`) {
		t.Errorf("gpuProfile.driver None: %q", t4.NoGPUDriver)
	}
}

func TestASOARMType(t *testing.T) {
	for _, c := range []struct{ apiVersion, want string }{
		{"containerservice.azure.com/v1api20231001", "T@2023-10-01"},
		{"containerservice.azure.com/v20250801", "T@2025-08-01"},
		{"containerservice.azure.com/v1api20231102preview", "T@2023-11-02-preview"},
		{"containerservice.azure.com/v1beta20210501", "T@2021-05-01"},
		{"containerservice.azure.com/v1api20231001storage", "T"},
	} {
		if got := asoARMType(c.apiVersion, "T"); got != c.want {
			t.Errorf("%s: %s, want %s", c.apiVersion, got, c.want)
		}
	}
}

// ASO keeps a workspace compute's ARM properties, a union of shapes, under the shape's name
// (properties.amlCompute): read as the ARM body, the cluster runs in its workspace's region, the
// compute instance in its own location.
func TestASOWorkspaceCompute(t *testing.T) {
	f := kubernetes.Decode("aml.yaml", []byte(`apiVersion: machinelearningservices.azure.com/v1api20240401
kind: Workspace
metadata: {name: ws, namespace: ml}
spec:
  location: eastus
  owner: {name: ml-rg}
---
apiVersion: machinelearningservices.azure.com/v1api20240401
kind: WorkspacesCompute
metadata: {name: a100, namespace: ml}
spec:
  owner: {name: ws}
  properties:
    amlCompute:
      computeType: AmlCompute
      properties:
        vmSize: Standard_NC24ads_A100_v4
        vmPriority: LowPriority
        scaleSettings: {minNodeCount: 1, maxNodeCount: 8}
---
apiVersion: machinelearningservices.azure.com/v1api20240401
kind: WorkspacesCompute
metadata: {name: nb, namespace: ml}
spec:
  owner: {name: ws}
  location: westus2
  properties:
    computeInstance:
      computeType: ComputeInstance
      properties: {vmSize: Standard_NC4as_T4_v3}
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	checkResources(t, res, "aml.yaml", map[string]string{
		"WorkspacesCompute/ml/a100": `Standard_NC24ads_A100_v4 ×1 (max 8) spot in "eastus" at line 8, 0 unresolved`,
		"WorkspacesCompute/ml/nb":   `Standard_NC4as_T4_v3 ×1 (max 0) on_demand in "westus2" at line 21, 0 unresolved`,
	})
}
