package terraform

import (
	"fmt"
	"strings"
	"testing"
)

// Kubernetes workloads in a plan: the typed resource's blocks come as JSON lists, the manifest's
// object as it is.
func TestKubernetesWorkloadsInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2","planned_values":{"root_module":{"resources":[
{"address":"kubernetes_deployment_v1.x","mode":"managed","type":"kubernetes_deployment_v1","name":"x","values":{"metadata":[{"name":"x","namespace":"ml"}],"spec":[{"replicas":"2","template":[{"metadata":[{}],"spec":[{"node_selector":{"node.kubernetes.io/instance-type":"g5.xlarge"},"container":[{"name":"c","resources":[{"limits":{"nvidia.com/gpu":"1"}}]}]}]}]}]}},
{"address":"kubernetes_manifest.y","mode":"managed","type":"kubernetes_manifest","name":"y","values":{"manifest":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"nodeSelector":{"node.kubernetes.io/instance-type":"g6.xlarge"},"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":2}}}]}}}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	var got []string
	for _, r := range res.Resources {
		got = append(got, fmt.Sprintf("%s %s %s x%d gpus=%d", r.Address, r.Type, r.InstanceType, r.Quantity, r.Pod.Requested))
	}
	want := "kubernetes_deployment_v1.x Deployment g5.xlarge x2 gpus=1,kubernetes_manifest.y Pod g6.xlarge x1 gpus=2"
	if strings.Join(got, ",") != want || len(res.Errors) != 0 {
		t.Fatalf("got %q, errors %+v\nwant %q", got, res.Errors, want)
	}
}
