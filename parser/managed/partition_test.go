package managed

import (
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
