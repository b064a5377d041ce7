package managed

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// FuzzResources feeds arbitrary manifests through the hook for operators' objects: resources of any
// shape become Terraform JSON and are evaluated. It must never panic (the evaluator reports a
// panic as an internal error), hang, or return a negative quantity.
func FuzzResources(f *testing.F) {
	for _, name := range []string{"crossplane.yaml", "crossplane-scheduled.yaml", "azure-service-operator.yaml", "ack.yaml"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "kubernetes", name)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(manifests))
	f.Add([]byte(scheduledManifests))
	f.Add([]byte("apiVersion: compute.gcp.upbound.io/v1beta2\nkind: InstanceGroupManager\nmetadata: {name: g, namespace: a, labels: {x: '1'}}\nspec:\n  forProvider: {zone: [1], version: [{instanceTemplateSelector: {matchLabels: {x: 1}, matchControllerRef: x}}], targetSizeRef: {name: g, namespace: 3, policy: {resolve: Always}}, targetSize: x}\n---\napiVersion: compute.gcp.upbound.io/v1beta2\nkind: Autoscaler\nmetadata: {name: g, labels: {x: '1'}}\nspec: {forProvider: {targetSelector: {matchLabels: [1]}, autoscalingPolicy: {scalingSchedules: 3}}}\n"))
	f.Add([]byte(asoManifests))
	f.Add([]byte(asoScheduledManifests))
	f.Add([]byte(ackManifests))
	f.Add([]byte(ackEC2Manifests))
	f.Add([]byte(ackSageMakerJobs))
	f.Add([]byte("apiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: HyperParameterTuningJob\nmetadata: {name: h, annotations: {gpuguard.dev/hours-per-month: x}}\nspec: {hyperParameterTuningJobConfig: {resourceLimits: {maxParallelTrainingJobs: 9223372036854775807, maxNumberOfTrainingJobs: -1}}, trainingJobDefinitions: [{resourceConfig: {instanceGroups: [{instanceCount: 9223372036854775807}]}}, 2]}\n---\napiVersion: sagemaker.services.k8s.aws/v1alpha1\nkind: TrainingJob\nmetadata: {name: t}\nspec: {resourceConfig: [1], tags: {a: b}}\n"))
	f.Add([]byte("apiVersion: ec2.services.k8s.aws/v1alpha1\nkind: LaunchTemplate\nmetadata: {name: l}\nspec: {name: l, launchTemplateData: [1], tags: [3, {key: [1]}]}\n---\napiVersion: ec2.services.k8s.aws/v1alpha1\nkind: Instance\nmetadata: {name: i}\nspec: {placement: x, maxCount: {a: 1}, launchTemplate: {launchTemplateName: l}, tags: [{key: a, value: '${x}'}]}\n"))
	f.Add([]byte("apiVersion: containerservice.azure.com/v1api20231001\nkind: ManagedClustersAgentPool\nmetadata: {name: p}\nspec: {owner: [x], azureName: 3, vmSize: {a: b}, tags: '${x}', sku: 1}\n---\napiVersion: eks.services.k8s.aws/v1alpha1\nkind: Nodegroup\nmetadata: {name: n, annotations: {services.k8s.aws/region: '${x}'}}\nspec: {clusterRef: {from: 3}, scalingConfig: [1], taints: x}\n"))
	f.Add([]byte("apiVersion: ec2.aws.upbound.io/v1beta1\nkind: Instance\nmetadata: {name: \"${x}\"}\nspec:\n  forProvider: {region: [1], instanceType: {a: b}, tags: 3, fooRef: [{name: x}], launchTemplate: [{idRef: {name: x}}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("fuzz.yaml", data)}, kubernetes.Options{Managed: Resources})
		for _, r := range res.Resources {
			if r.Quantity < 0 {
				t.Fatalf("negative quantity: %+v", r)
			}
		}
		for _, e := range append(res.Errors, res.Warnings...) {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluator panicked: %s", e.Message)
			}
		}
	})
}
