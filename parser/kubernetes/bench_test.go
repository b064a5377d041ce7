package kubernetes

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/corpus"
	"github.com/gpuguard/gpuguard/parser"
)

// BenchmarkParse3000Documents decodes and builds a 3,000-document stream (a mix of workloads
// with GPUs, Services, ConfigMaps, HPAs and NodePools), as helm template output would be.
func BenchmarkParse3000Documents(b *testing.B) {
	data := corpus.KubernetesStream(3000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := Parse("stream.yaml", data, Options{})
		if len(res.Errors) > 0 || len(res.Resources) == 0 {
			b.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
		}
	}
}

// BenchmarkPodsSelectingNodeGroups builds 2,000 Deployments that select one of 600 Terraform
// node groups by its pool name and a declared label, as a large repository's manifests beside
// its Terraform would: each pod's choice looks only at the groups carrying its values.
func BenchmarkPodsSelectingNodeGroups(b *testing.B) {
	groups := make([]NodeGroup, 600)
	for i := range groups {
		groups[i] = NodeGroup{Address: fmt.Sprintf("google_container_node_pool.p%d", i), InstanceType: "g2-standard-8", Provider: parser.GCP,
			Region: "us-central1", Purchase: parser.OnDemand, NodeLabels: parser.NodeLabels{Labels: map[string]string{
				"cloud.google.com/gke-nodepool": fmt.Sprintf("pool-%d", i), "workload": fmt.Sprintf("w%d", i%7)}}}
	}
	var sb strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&sb, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, namespace: ml}\nspec:\n  replicas: 2\n  template:\n    spec:\n"+
			"      nodeSelector: {cloud.google.com/gke-nodepool: pool-%d, workload: w%d}\n      containers: [{name: c, resources: {limits: {nvidia.com/gpu: 1}}}]\n---\n", i, i%600, i%7)
	}
	data := []byte(sb.String())
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := Parse("stream.yaml", data, Options{NodeGroups: groups})
		if len(res.Resources) != 2000 || res.Resources[0].InstanceType != "g2-standard-8" {
			b.Fatalf("%d resources, first on %q", len(res.Resources), res.Resources[0].InstanceType)
		}
	}
}

// BenchmarkClusterClassTopologies expands 300 Clusters built from the ClusterClass of
// testdata/kubernetes/cluster-class.yaml, three GPU workers each with their own variables: every
// worker decodes the class's variables, patches a copy of its template and reads it back.
func BenchmarkClusterClassTopologies(b *testing.B) {
	base, err := os.ReadFile("../../testdata/kubernetes/cluster-class.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.Write(base)
	for i := 0; i < 300; i++ {
		fmt.Fprintf(&sb, "---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nmetadata: {name: c%d, namespace: ml}\nspec:\n  topology:\n    class: aws-gpu\n    version: v1.31.2\n"+
			"    variables:\n    - {name: region, value: us-east-1}\n    workers:\n      machineDeployments:\n"+
			"      - {class: gpu-workers, name: a, replicas: %d}\n"+
			"      - class: gpu-workers\n        name: b\n        replicas: 1\n        variables: {overrides: [{name: gpu, value: {type: p5.48xlarge, spot: true}}]}\n"+
			"      - {class: default-worker, name: cpu, replicas: 3}\n", i, 1+i%4)
	}
	data := []byte(sb.String())
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		res := Parse("stream.yaml", data, Options{})
		if len(res.Errors) > 0 || len(res.Resources) != 2+600 {
			b.Fatalf("errors %v, %d resources", res.Errors, len(res.Resources))
		}
	}
}
