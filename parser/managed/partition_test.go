package managed

import (
	"fmt"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// The MIG partitions of node pools declared as managed resources reach the Terraform readers
// with their arguments: Config Connector's gpuPartitionSize (also the label on the pool's nodes)
// and the Azure Service Operator's gpuInstanceProfile.
func TestManagedNodePoolPartitions(t *testing.T) {
	f := kubernetes.Decode("pools.yaml", []byte(`apiVersion: container.cnrm.cloud.google.com/v1beta1
kind: ContainerNodePool
metadata: {name: mig, namespace: infra}
spec:
  location: us-central1-a
  nodeCount: 1
  clusterRef: {name: ml}
  nodeConfig:
    machineType: a2-highgpu-1g
    guestAccelerator:
      - {type: nvidia-tesla-a100, count: 1, gpuPartitionSize: 1g.5gb}
---
apiVersion: containerservice.azure.com/v1api20240901
kind: ManagedClustersAgentPool
metadata: {name: mig, namespace: infra}
spec:
  owner: {name: aks}
  vmSize: Standard_NC24ads_A100_v4
  count: 1
  gpuInstanceProfile: MIG3g
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = r.GPUPartition
		if r.Address == "ContainerNodePool/infra/mig" && (r.NodeLabels == nil || r.NodeLabels.Labels[kubernetes.LabelGKEGPUPartition] != "1g.5gb") {
			t.Errorf("%s: node labels %+v lack the partition", r.Address, r.NodeLabels)
		}
	}
	if got["ContainerNodePool/infra/mig"] != "1g.5gb" || got["ManagedClustersAgentPool/infra/mig"] != "MIG3g" {
		t.Errorf("partitions %v", got)
	}
}

// A node pool declared as a managed resource among the manifests is a node group its pods
// select by the cloud's group label, whose value is the pool's name: for Crossplane's providers
// its external name (the crossplane.io/external-name annotation, else metadata.name), for Config
// Connector its resourceID or name. A pod on it is placed there, on its MIG slices.
func TestPodsSelectManagedNodePools(t *testing.T) {
	f := kubernetes.Decode("pools.yaml", []byte(`apiVersion: container.gcp.upbound.io/v1beta2
kind: NodePool
metadata: {name: mig-pool}
spec:
  forProvider:
    location: us-central1-a
    cluster: ml
    nodeCount: 1
    nodeConfig:
      machineType: a2-highgpu-1g
      guestAccelerator:
        - {type: nvidia-tesla-a100, count: 1, gpuPartitionSize: 1g.5gb}
---
apiVersion: eks.aws.upbound.io/v1beta1
kind: NodeGroup
metadata:
  name: gpu-nodes
  annotations: {crossplane.io/external-name: l4-workers}
spec:
  forProvider:
    region: us-east-1
    clusterName: ml
    instanceTypes: [g6.xlarge]
    scalingConfig: [{minSize: 1, maxSize: 2, desiredSize: 1}]
---
apiVersion: containerservice.azure.upbound.io/v1beta2
kind: KubernetesClusterNodePool
metadata: {name: a100}
spec:
  forProvider:
    kubernetesClusterId: x
    vmSize: Standard_NC24ads_A100_v4
    nodeCount: 1
    gpuInstance: MIG3g
`+
		deployment("embed", 7, "cloud.google.com/gke-nodepool: mig-pool")+
		deployment("chat", 1, "eks.amazonaws.com/nodegroup: l4-workers")+
		deployment("rank", 2, "kubernetes.azure.com/agentpool: a100")))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := map[string]struct{ group, instance, mig string }{
		"Deployment/ml/embed": {"NodePool/mig-pool", "a2-highgpu-1g", "1g.5gb"},
		"Deployment/ml/chat":  {"NodeGroup/gpu-nodes", "g6.xlarge", ""},
		"Deployment/ml/rank":  {"KubernetesClusterNodePool/a100", "Standard_NC24ads_A100_v4", "MIG3g"},
	}
	seen := 0
	for _, r := range res.Resources {
		w, ok := want[r.Address]
		if !ok {
			continue
		}
		seen++
		if len(r.Pod.NodeGroups) != 1 || r.Pod.NodeGroups[0].Address != w.group || r.InstanceType != w.instance || r.Pod.MIGProfile != w.mig {
			t.Errorf("%s: groups %+v, instance %q, MIG %q; want %s, %s, %q", r.Address, r.Pod.NodeGroups, r.InstanceType, r.Pod.MIGProfile, w.group, w.instance, w.mig)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d Deployments built", seen, len(want))
	}
}

// deployment is a Deployment of replicas pods in namespace ml, each asking for one
// nvidia.com/gpu on the nodes selector selects.
func deployment(name string, replicas int, selector string) string {
	return fmt.Sprintf("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: %s, namespace: ml}\nspec:\n  replicas: %d\n  template:\n    spec:\n"+
		"      nodeSelector: {%s}\n      containers:\n        - {name: c, resources: {limits: {nvidia.com/gpu: 1}}}\n", name, replicas, selector)
}
