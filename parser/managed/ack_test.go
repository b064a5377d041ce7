package managed

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// EKS node groups declared with AWS Controllers for Kubernetes, in the shape of the eks
// controller's Nodegroup (CreateNodegroup's request in camelCase).
const ackManifests = `apiVersion: v1
kind: Namespace
metadata:
  name: ml
  annotations: {services.k8s.aws/default-region: us-west-2}
---
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Cluster
metadata: {name: ml, namespace: ml}
spec:
  name: ml
  roleARN: arn:aws:iam::111122223333:role/eks
---
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Nodegroup
metadata: {name: gpu, namespace: ml}
spec:
  name: gpu-train
  clusterRef: {from: {name: ml}}
  instanceTypes: [g6e.12xlarge, g6e.24xlarge]
  capacityType: SPOT
  scalingConfig: {minSize: 0, maxSize: 4, desiredSize: 2}
  labels: {workload: train}
  taints: [{key: nvidia.com/gpu, value: "true", effect: NO_SCHEDULE}]
  tags: {team: ml}
---
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Nodegroup
metadata:
  name: east
  namespace: ml
  annotations: {services.k8s.aws/region: us-east-1}
spec:
  name: east
  clusterName: other
  instanceTypes: [p5.48xlarge]
  scalingConfig: {minSize: 1, maxSize: 1, desiredSize: 1}
---
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Nodegroup
metadata: {name: nowhere, namespace: team-b}
spec:
  name: nowhere
  clusterName: other
  instanceTypes: [g5.xlarge]
  scalingConfig: {minSize: 1, maxSize: 3, desiredSize: 3}
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: Instance
metadata: {name: box, namespace: ml}
spec:
  instanceType: g5.2xlarge
`

// ACK node groups are priced as aws_eks_node_group: instance types, capacity type, scaling,
// labels and taints from the spec, the region from the resource's annotation, else its
// namespace's default; without either the region is unknown and said why. A GPU kind gpuguard
// does not price is a warning.
func TestACKNodegroups(t *testing.T) {
	f := kubernetes.Decode("ack.yaml", []byte(ackManifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "Instance/ml/box (ec2.services.k8s.aws/v1alpha1): spec.instanceType is GPU type g5.2xlarge") {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "ack.yaml", map[string]string{
		"Nodegroup/ml/gpu":         `g6e.12xlarge ×2 (max 4) spot in "us-west-2" at line 14, 0 unresolved`,
		"Nodegroup/ml/east":        `p5.48xlarge ×1 (max 1) on_demand in "us-east-1" at line 27, 0 unresolved`,
		"Nodegroup/team-b/nowhere": `g5.xlarge ×3 (max 3) on_demand in "" at line 39, 0 unresolved`,
	})
	for addr, r := range got {
		if !strings.Contains(strings.Join(r.Notes, " "), "an AWS Controllers for Kubernetes resource") {
			t.Errorf("%s: notes %q", addr, r.Notes)
		}
	}
	if why := got["Nodegroup/team-b/nowhere"].RegionUnknown; !strings.Contains(why, "services.k8s.aws/region annotation") {
		t.Errorf("region unknown because %q", why)
	}
	ng := got["Nodegroup/ml/gpu"]
	if ng.Tags["team"] != "ml" || ng.NodeLabels == nil || ng.NodeLabels.Labels["workload"] != "train" ||
		ng.NodeLabels.Labels["eks.amazonaws.com/nodegroup"] != "gpu-train" || len(ng.NodeLabels.Taints) != 1 || ng.NodeLabels.Taints[0].Effect != "NoSchedule" {
		t.Errorf("tags %v, node labels %+v", ng.Tags, ng.NodeLabels)
	}
}
