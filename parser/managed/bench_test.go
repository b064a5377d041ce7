package managed

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// BenchmarkSelectors300Groups prices one file of 300 GCP managed instance groups written as
// Crossplane managed resources the way the providers' examples are: each group, its template
// and its autoscaler carry one label and find each other by selector, 900 resources in one
// root. Each selector is matched against every resource of the root.
func BenchmarkSelectors300Groups(b *testing.B) {
	var sb strings.Builder
	for i := range 300 {
		fmt.Fprintf(&sb, `apiVersion: compute.gcp.upbound.io/v1beta2
kind: InstanceTemplate
metadata: {name: g%[1]d, labels: {example: g%[1]d}}
spec: {forProvider: {machineType: g2-standard-4, scheduling: {preemptible: true}}}
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: InstanceGroupManager
metadata: {name: g%[1]d, labels: {example: g%[1]d}}
spec:
  forProvider:
    zone: us-east4-a
    baseInstanceName: g%[1]d
    version: [{instanceTemplateSelector: {matchLabels: {example: g%[1]d}}}]
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: Autoscaler
metadata: {name: g%[1]d, labels: {example: g%[1]d}}
spec:
  forProvider:
    zone: us-east4-a
    targetSelector: {matchLabels: {example: g%[1]d}}
    autoscalingPolicy: {minReplicas: 1, maxReplicas: 4}
---
`, i)
	}
	src := []byte(sb.String())
	b.ReportAllocs()
	for b.Loop() {
		f := kubernetes.Decode("groups.yaml", src)
		res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
		if len(res.Resources) != 300 || len(res.Errors)+len(res.Warnings) > 0 {
			b.Fatalf("%d resources, errors %v, warnings %v", len(res.Resources), res.Errors, res.Warnings)
		}
	}
}
