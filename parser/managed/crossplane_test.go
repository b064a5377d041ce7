package managed

import (
	"fmt"
	"maps"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

const manifests = `apiVersion: eks.aws.upbound.io/v1beta1
kind: NodeGroup
metadata:
  name: gpu-train
  annotations:
    gpuguard.dev/profile: profiles/train.yaml
    gpuguard.dev/ignore: GPU009=bought through a savings plan
spec:
  forProvider:
    region: us-east-1
    clusterNameRef: {name: ml}
    instanceTypes: [p4d.24xlarge]
    scalingConfig:
      - {maxSize: 4, minSize: 1}
    tags: {costCenter: ml-42, team: ml}
  initProvider:
    scalingConfig:
      - desiredSize: 2
---
apiVersion: container.gcp.upbound.io/v1beta2
kind: Cluster
metadata: {name: ml-gke}
spec:
  forProvider:
    location: us-central1
    nodeLocations: [us-central1-a, us-central1-b]
    removeDefaultNodePool: true
---
apiVersion: container.gcp.upbound.io/v1beta2
kind: NodePool
metadata: {name: l4-pool}
spec:
  forProvider:
    clusterRef: {name: ml-gke}
    nodeCount: 3
    nodeConfig:
      - machineType: g2-standard-8
        spot: true
---
apiVersion: containerservice.azure.upbound.io/v1beta2
kind: KubernetesCluster
metadata: {name: aks}
spec:
  forProvider:
    location: West Europe
    defaultNodePool:
      - {name: system, vmSize: Standard_D4s_v3, nodeCount: 2}
---
apiVersion: containerservice.azure.m.upbound.io/v1beta1
kind: KubernetesClusterNodePool
metadata: {name: 1-a100, namespace: team-ml}
spec:
  forProvider:
    kubernetesClusterIdRef: {name: aks}
    vmSize: Standard_NC24ads_A100_v4
    nodeCount: 2
    priority: Spot
---
apiVersion: batch.azure.upbound.io/v1beta1
kind: Account
metadata: {name: render}
spec:
  forProvider: {location: East US}
---
apiVersion: batch.azure.upbound.io/v1beta2
kind: Pool
metadata: {name: t4}
spec:
  forProvider:
    accountNameRef: {name: render}
    vmSize: Standard_NC4as_T4_v3
    fixedScale:
      - {targetDedicatedNodes: 1, targetLowPriorityNodes: 3}
---
apiVersion: compute.azure.upbound.io/v1beta2
kind: OrchestratedVirtualMachineScaleSet
metadata: {name: a100-flex}
spec:
  forProvider:
    location: East US
    platformFaultDomainCount: 1
    skuName: Standard_NC24ads_A100_v4
    instances: 6
    priority: Spot
    priorityMix: {baseRegularCount: 1, regularPercentageAboveBase: 20}
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata: {name: data}
spec:
  forProvider: {region: us-east-1}
`

// Managed resources of the official providers are priced as the Terraform resources they are
// generated from: arguments from forProvider (initProvider merged under it, block by block),
// references by name resolved to the resources of that name (a pool's cluster and its zones, a
// node pool's cluster and its location), addresses and lines of the manifests, gpuguard's
// annotations read.
func TestManagedResources(t *testing.T) {
	f := kubernetes.Decode("infra.yaml", []byte(manifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "infra.yaml", map[string]string{
		"NodeGroup/gpu-train": `p4d.24xlarge ×2 (max 4) on_demand in "us-east-1" at line 1, 0 unresolved`,
		// Three nodes in each of its cluster's two zones.
		"NodePool/l4-pool": `g2-standard-8 ×6 (max 0) spot in "us-central1" at line 29, 0 unresolved`,
		// Namespaced (Crossplane v2), in its cluster's location; a name Terraform would not take.
		"KubernetesClusterNodePool/team-ml/1-a100": `Standard_NC24ads_A100_v4 ×2 (max 0) spot in "westeurope" at line 49, 0 unresolved`,
		// One dedicated node and three low-priority ones, in its account's location.
		"Pool/t4": `Standard_NC4as_T4_v3 ×4 (max 0) on_demand in "eastus" at line 65, 0 unresolved`,
		// A Flexible Spot scale set with a Spot Priority Mix: one Regular VM, then 20% of the
		// other five (rounded up), on demand.
		"OrchestratedVirtualMachineScaleSet/a100-flex": `Standard_NC24ads_A100_v4 ×6 (max 0) on_demand in "eastus" at line 75, 0 unresolved`,
	})
	for addr, r := range got {
		if !strings.Contains(strings.Join(r.Notes, " "), "a Crossplane managed resource") {
			t.Errorf("%s: notes %q", addr, r.Notes)
		}
	}
	if flex := got["OrchestratedVirtualMachineScaleSet/a100-flex"]; flex.SpotQuantity != 4 {
		t.Errorf("the scale set's Spot VMs: %d of %d (notes %q)", flex.SpotQuantity, flex.Quantity, flex.Notes)
	}
	if pool := got["Pool/t4"]; pool.SpotQuantity != 3 {
		t.Errorf("the pool's low-priority nodes run on Spot: %d of %d", pool.SpotQuantity, pool.Quantity)
	}
	ng := got["NodeGroup/gpu-train"]
	if ng.Profile != "profiles/train.yaml" || len(ng.Suppressions) != 1 || ng.Suppressions[0].Rule != "GPU009" || ng.Tags["costCenter"] != "ml-42" {
		t.Errorf("annotations and tags: profile %q, suppressions %+v, tags %v", ng.Profile, ng.Suppressions, ng.Tags)
	}
}

func TestSnake(t *testing.T) {
	for in, want := range map[string]string{"instanceTypes": "instance_types", "desiredSize": "desired_size", "vmSize": "vm_size", "ipv6AddressCount": "ipv6_address_count", "region": "region"} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
}

// A manifest's text is not a Terraform template: "${file(...)}" in a tag stays that text, and no
// file is read.
func TestManifestTextIsNotInterpolated(t *testing.T) {
	src := "apiVersion: ec2.aws.upbound.io/v1beta1\nkind: Instance\nmetadata: {name: box}\nspec:\n  forProvider:\n    region: us-east-1\n    instanceType: g6.xlarge\n    tags: {leak: '${file(\"crossplane.go\")}', \"${upper(\\\"k\\\")}\": '%{ if true }x%{ endif }'}\n"
	res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("m.yaml", []byte(src))}, kubernetes.Options{Managed: Resources})
	if len(res.Resources) != 1 || len(res.Warnings) != 0 {
		t.Fatalf("resources %+v, warnings %+v", res.Resources, res.Warnings)
	}
	tags := res.Resources[0].Tags
	if tags["leak"] != `${file("crossplane.go")}` || tags[`${upper("k")}`] != "%{ if true }x%{ endif }" {
		t.Fatalf("tags %q", tags)
	}
}

// Names Terraform would read as the same identifier are kept apart.
func TestNamesStayApart(t *testing.T) {
	doc := func(name, instance string) string {
		return "apiVersion: ec2.aws.upbound.io/v1beta1\nkind: Instance\nmetadata: {name: " + name + "}\nspec:\n  forProvider: {region: us-east-1, instanceType: " + instance + "}\n---\n"
	}
	src := doc("gpu.box", "g5.xlarge") + doc("gpu_box", "g6.xlarge")
	res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("m.yaml", []byte(src))}, kubernetes.Options{Managed: Resources})
	var got []string
	for _, r := range res.Resources {
		got = append(got, r.Address+" "+r.InstanceType)
	}
	if strings.Join(got, ", ") != "Instance/gpu.box g5.xlarge, Instance/gpu_box g6.xlarge" {
		t.Fatalf("%q", got)
	}
}

// AWS resources of one root in different regions are each priced in their own: the provider's
// region is per resource, not the root's last.
func TestResourcesInSeveralRegions(t *testing.T) {
	doc := func(name, region string) string {
		return "apiVersion: ec2.aws.upbound.io/v1beta1\nkind: Instance\nmetadata: {name: " + name + "}\nspec:\n  forProvider: {region: " + region + ", instanceType: g6.xlarge}\n---\n"
	}
	src := doc("east", "us-east-1") + doc("west", "us-west-2") + doc("east-2", "us-east-1") +
		"apiVersion: eks.aws.upbound.io/v1beta1\nkind: NodeGroup\nmetadata: {name: ng}\nspec:\n  forProvider:\n    region: eu-west-1\n    instanceTypes: [g6.xlarge]\n    scalingConfig: [{desiredSize: 2, maxSize: 2, minSize: 0}]\n"
	res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("m.yaml", []byte(src))}, kubernetes.Options{Managed: Resources})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.Region
	}
	want := map[string]string{"Instance/east": "us-east-1", "Instance/west": "us-west-2", "Instance/east-2": "us-east-1", "NodeGroup/ng": "eu-west-1"}
	if !maps.Equal(got, want) || len(res.Warnings) != 0 {
		t.Fatalf("regions %v, want %v; warnings %+v", got, want, res.Warnings)
	}
}

// A managed resource of a kind gpuguard does not price is a warning when it names a GPU type,
// and silent when it does not.
func TestUnpricedKindNamingAGPUIsAWarning(t *testing.T) {
	f := kubernetes.Decode("infra.yaml", []byte(`apiVersion: sagemaker.aws.upbound.io/v1beta1
kind: App
metadata: {name: studio}
spec:
  forProvider:
    region: us-east-1
    appType: JupyterServer
    resourceSpec:
      - instanceType: ml.g5.xlarge
---
apiVersion: s3.aws.upbound.io/v1beta1
kind: Bucket
metadata: {name: data}
spec:
  forProvider: {region: us-east-1}
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Resources) != 0 || len(res.Warnings) != 1 {
		t.Fatalf("resources %+v, warnings %+v", res.Resources, res.Warnings)
	}
	w := res.Warnings[0]
	want := "App/studio (sagemaker.aws.upbound.io/v1beta1): spec.forProvider.resourceSpec[0].instanceType is GPU type ml.g5.xlarge, but gpuguard does not price App managed resources: their GPUs are not counted"
	if w.File != "infra.yaml" || w.Line != 1 || w.Message != want {
		t.Errorf("warning %+v\nwant %q", w, want)
	}
}

// Config Connector's resources are generated from the Terraform google provider too: their spec
// is the resource's arguments (nested blocks as objects), references by name resolve, the node
// pool runs where its cluster does, and metadata.labels are the resource's GCP labels.
func TestConfigConnectorResources(t *testing.T) {
	f := kubernetes.Decode("gke.yaml", []byte(`apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerCluster
metadata: {name: ml, namespace: infra}
spec:
  location: europe-west4
  nodeLocations: [europe-west4-a, europe-west4-b]
  initialNodeCount: 1
  removeDefaultNodePool: true
---
apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata:
  name: l4
  namespace: infra
  labels: {team: vision, env: prod}
  annotations: {gpuguard.dev/profile: profiles/l4.yaml}
spec:
  resourceID: l4-pool
  clusterRef: {name: ml}
  nodeCount: 2
  autoscaling: {minNodeCount: 1, maxNodeCount: 5}
  nodeConfig:
    machineType: g2-standard-8
    spot: true
---
apiVersion: compute.cnrm.cloud.google.com/v1beta1
kind: ComputeInstance
metadata: {name: notebook, namespace: infra, labels: {team: research}}
spec:
  zone: us-central1-a
  machineType: n1-standard-8
  guestAccelerator:
    - type: nvidia-tesla-t4
      count: 1
  scheduling: {onHostMaintenance: TERMINATE}
  bootDisk: {initializeParams: {sourceImageRef: {external: debian-cloud/debian-12}}}
  networkInterface: [{networkRef: {name: default}}]
---
apiVersion: storage.cnrm.cloud.google.com/v1beta1
kind: StorageBucket
metadata: {name: data, namespace: infra}
spec: {location: EU}
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "gke.yaml", map[string]string{
		// Two nodes in each of the cluster's two zones, up to five each; in the cluster's region.
		"ContainerNodePool/infra/l4": `g2-standard-8 ×4 (max 10) spot in "europe-west4" at line 10, 0 unresolved`,
		// Its zone's region.
		"ComputeInstance/infra/notebook": `n1-standard-8 ×1 (max 0) on_demand in "us-central1" at line 26, 0 unresolved`,
	})
	pool := got["ContainerNodePool/infra/l4"]
	if pool.Tags["team"] != "vision" || pool.Tags["env"] != "prod" || pool.Profile != "profiles/l4.yaml" || !strings.Contains(strings.Join(pool.Notes, " "), "a Config Connector resource") {
		t.Errorf("pool: tags %v, profile %q, notes %q", pool.Tags, pool.Profile, pool.Notes)
	}
	vm := got["ComputeInstance/infra/notebook"]
	if len(vm.Accelerators) != 1 || vm.Tags["team"] != "research" {
		t.Errorf("instance: %+v", vm)
	}
}

// Config Connector's managed instance groups follow the Compute API: location is a zone or a
// region, the template is instanceTemplateRef or each version's. Each is priced at its
// template's machine and GPUs, spot from its scheduling, labels from the template's
// metadata.labels; a template alone runs nothing and is no warning.
func TestConfigConnectorInstanceGroups(t *testing.T) {
	f := kubernetes.Decode("mig.yaml", []byte(`apiVersion: compute.cnrm.cloud.google.com/v1beta1
kind: ComputeInstanceTemplate
metadata: {name: t4, namespace: infra, labels: {team: ml}}
spec:
  machineType: n1-standard-8
  guestAccelerator: [{type: nvidia-tesla-t4, count: 2}]
  scheduling: {onHostMaintenance: TERMINATE, preemptible: true, automaticRestart: false}
  disk: [{sourceImageRef: {external: debian-cloud/debian-12}, boot: true}]
---
apiVersion: compute.cnrm.cloud.google.com/v1beta1
kind: ComputeInstanceGroupManager
metadata: {name: regional, namespace: infra}
spec:
  location: europe-west4
  baseInstanceName: r
  targetSize: 3
  instanceTemplateRef: {name: t4}
---
apiVersion: compute.cnrm.cloud.google.com/v1beta1
kind: ComputeInstanceGroupManager
metadata: {name: zonal, namespace: infra}
spec:
  location: us-central1-b
  baseInstanceName: z
  targetSize: 2
  versions: [{name: main, instanceTemplateRef: {name: t4}}]
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	var got []string
	for _, r := range res.Resources {
		gpus := "no GPUs"
		if len(r.Accelerators) == 1 {
			gpus = fmt.Sprintf("%d %s", r.Accelerators[0].Count, r.Accelerators[0].Type)
		}
		got = append(got, fmt.Sprintf("%s %s+%s ×%d %s in %s team=%s unresolved=%d", r.Address, r.InstanceType, gpus, r.Quantity, r.PurchaseOption, r.Region, r.Tags["team"], len(r.Unresolved)))
	}
	want := []string{
		"ComputeInstanceGroupManager/infra/regional n1-standard-8+2 nvidia-tesla-t4 ×3 spot in europe-west4 team=ml unresolved=0",
		"ComputeInstanceGroupManager/infra/zonal n1-standard-8+2 nvidia-tesla-t4 ×2 spot in us-central1 team=ml unresolved=0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Flex-start capacity declared through Config Connector reaches the same mappers as Terraform's:
// a node pool's nodeConfig.flexStart or queuedProvisioning, and a VM's FLEX_START provisioning
// model, carry flex-start's own price (an upper bound at on-demand); a plain pool does not.
func TestConfigConnectorFlexStart(t *testing.T) {
	f := kubernetes.Decode("flex.yaml", []byte(`apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerCluster
metadata: {name: ml, namespace: infra}
spec: {location: us-central1-a}
---
apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: flex, namespace: infra}
spec:
  clusterRef: {name: ml}
  nodeCount: 1
  nodeConfig: {machineType: g2-standard-8, flexStart: true}
---
apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: queued, namespace: infra}
spec:
  clusterRef: {name: ml}
  nodeCount: 1
  queuedProvisioning: {enabled: true}
  nodeConfig: {machineType: a2-highgpu-1g}
---
apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: plain, namespace: infra}
spec:
  clusterRef: {name: ml}
  nodeCount: 1
  nodeConfig: {machineType: g2-standard-8}
---
apiVersion: compute.cnrm.cloud.google.com/v1beta1
kind: ComputeInstance
metadata: {name: flexvm, namespace: infra}
spec:
  zone: us-central1-a
  machineType: g2-standard-8
  scheduling: {provisioningModel: FLEX_START, onHostMaintenance: TERMINATE}
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	own := map[string]bool{}
	for _, r := range res.Resources {
		own[r.Address] = r.OwnPrice != nil && *r.OwnPrice == *parser.FlexStart()
	}
	want := map[string]bool{"ContainerNodePool/infra/flex": true, "ContainerNodePool/infra/queued": true, "ContainerNodePool/infra/plain": false, "ComputeInstance/infra/flexvm": true}
	if !maps.Equal(own, want) {
		t.Fatalf("flex-start by address = %v, want %v", own, want)
	}
}
