package managed

import (
	"slices"
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
apiVersion: eks.services.k8s.aws/v1alpha1
kind: Nodegroup
metadata: {name: unsized, namespace: ml}
spec:
  name: unsized
  clusterRef: {from: {name: ml}}
  instanceTypes: [g6.xlarge]
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: DataQualityJobDefinition
metadata: {name: quality, namespace: ml}
spec:
  jobDefinitionName: quality
  jobResources: {clusterConfig: {instanceType: ml.g5.xlarge, instanceCount: 1, volumeSizeInGB: 20}}
`

// ACK node groups are priced as aws_eks_node_group: instance types, capacity type, scaling,
// labels and taints from the spec, the region from the resource's annotation, else its
// namespace's default; without either the region is unknown and said why. A GPU kind gpuguard
// does not price is a warning.
func TestACKNodegroups(t *testing.T) {
	f := kubernetes.Decode("ack.yaml", []byte(ackManifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0].Message, "DataQualityJobDefinition/ml/quality (sagemaker.services.k8s.aws/v1alpha1): spec.jobResources.clusterConfig.instanceType is GPU type ml.g5.xlarge") {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "ack.yaml", map[string]string{
		"Nodegroup/ml/gpu":         `g6e.12xlarge ×2 (max 4) spot in "us-west-2" at line 14, 0 unresolved`,
		"Nodegroup/ml/east":        `p5.48xlarge ×1 (max 1) on_demand in "us-east-1" at line 27, 0 unresolved`,
		"Nodegroup/team-b/nowhere": `g5.xlarge ×3 (max 3) on_demand in "" at line 39, 0 unresolved`,
		"Nodegroup/ml/unsized":     `g6.xlarge ×1 (max 0) on_demand in "us-west-2" at line 48, 0 unresolved`,
	})
	for addr, r := range got {
		if !strings.Contains(strings.Join(r.Notes, " "), "an AWS Controllers for Kubernetes resource") {
			t.Errorf("%s: notes %q", addr, r.Notes)
		}
	}
	// Without a scaling configuration the EKS API names no size: priced at one node, and said so.
	for addr, r := range got {
		said := strings.Contains(strings.Join(r.Notes, " "), "scalingConfig.desiredSize) is not set: priced at 1 node")
		if said != (addr == "Nodegroup/ml/unsized") {
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

// EC2 instances, launch templates, fleets and capacity reservations, and SageMaker endpoints
// and notebooks declared with ACK's ec2 and sagemaker controllers (their specs are the APIs'
// create requests: RunInstances, CreateLaunchTemplate, CreateFleet, CreateCapacityReservation,
// CreateEndpointConfig, CreateEndpoint, CreateNotebookInstance; and Application Auto Scaling's
// RegisterScalableTarget).
const ackEC2Manifests = `apiVersion: v1
kind: Namespace
metadata:
  name: ml
  annotations: {services.k8s.aws/default-region: us-west-2}
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: Instance
metadata: {name: box, namespace: edge}
spec:
  imageID: ami-0123456789abcdef0
  instanceType: g5.2xlarge
  maxCount: 3
  placement: {availabilityZone: us-east-1a}
  instanceMarketOptions: {marketType: spot}
  tags: [{key: team, value: ml}, {key: env, value: prod}]
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: LaunchTemplate
metadata: {name: gpu-lt, namespace: ml}
spec:
  name: gpu-workers
  launchTemplateData:
    instanceType: p4d.24xlarge
    tagSpecifications: [{resourceType: instance, tags: [{key: team, value: research}]}]
  tagSpecifications: [{resourceType: launch-template, tags: [{key: owner, value: infra}]}]
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: Instance
metadata: {name: from-template, namespace: ml}
spec:
  launchTemplate: {launchTemplateName: gpu-workers, version: "$Latest"}
  subnetID: subnet-1
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: Instance
metadata: {name: by-id, namespace: ml}
spec:
  launchTemplate: {launchTemplateID: lt-0abc}
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: Fleet
metadata: {name: fleet, namespace: ml}
spec:
  type: maintain
  targetCapacitySpecification: {totalTargetCapacity: 4, defaultTargetCapacityType: spot}
  launchTemplateConfigs:
    - launchTemplateSpecification: {launchTemplateName: gpu-workers, version: "1"}
      overrides: [{instanceType: g6e.12xlarge, weightedCapacity: 2}, {instanceType: g6e.24xlarge}]
---
apiVersion: ec2.services.k8s.aws/v1alpha1
kind: CapacityReservation
metadata: {name: cr, namespace: ml}
spec:
  instanceType: p5.48xlarge
  instancePlatform: Linux/UNIX
  instanceCount: 2
  availabilityZone: us-west-2b
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: EndpointConfig
metadata: {name: llm, namespace: ml}
spec:
  endpointConfigName: llm-config
  productionVariants:
    - {variantName: main, modelName: llm, initialInstanceCount: 2, instanceType: ml.g5.12xlarge}
  tags: [{key: team, value: serving}]
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: Endpoint
metadata: {name: llm, namespace: ml}
spec: {endpointName: llm-endpoint, endpointConfigName: llm-config}
---
apiVersion: applicationautoscaling.services.k8s.aws/v1alpha1
kind: ScalableTarget
metadata: {name: llm, namespace: ml}
spec:
  serviceNamespace: sagemaker
  resourceID: endpoint/llm-endpoint/variant/main
  scalableDimension: "sagemaker:variant:DesiredInstanceCount"
  minCapacity: 3
  maxCapacity: 6
---
apiVersion: sagemaker.services.k8s.aws/v1alpha1
kind: NotebookInstance
metadata: {name: nb, namespace: ml}
spec: {notebookInstanceName: nb, instanceType: ml.g5.xlarge, roleARN: "arn:aws:iam::111122223333:role/sm"}
`

func TestACKEC2AndSageMaker(t *testing.T) {
	f := kubernetes.Decode("ack-ec2.yaml", []byte(ackEC2Manifests))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := checkResources(t, res, "ack-ec2.yaml", map[string]string{
		// The zone of its placement gives the region; spot from its market options.
		"Instance/edge/box": `g5.2xlarge ×1 (max 0) spot in "us-east-1" at line 7, 0 unresolved`,
		// The type from the launch template it names (CreateLaunchTemplate's name).
		"Instance/ml/from-template": `p4d.24xlarge ×1 (max 0) on_demand in "us-west-2" at line 28, 0 unresolved`,
		"Instance/ml/by-id":         ` ×1 (max 0) on_demand in "us-west-2" at line 35, 1 unresolved`,
		// 4 capacity units at weightedCapacity 2, spot by default.
		"Fleet/ml/fleet":            `g6e.12xlarge ×2 (max 0) spot in "us-west-2" at line 41, 0 unresolved`,
		"CapacityReservation/ml/cr": `p5.48xlarge ×2 (max 0) on_demand in "us-west-2" at line 51, 0 unresolved`,
		// Its endpoint's scalable target: at least 3, up to 6.
		`EndpointConfig/ml/llm.production_variants["main"]`: `ml.g5.12xlarge ×3 (max 6) on_demand in "us-west-2" at line 60, 0 unresolved`,
		"NotebookInstance/ml/nb":                            `ml.g5.xlarge ×1 (max 0) on_demand in "us-west-2" at line 84, 0 unresolved`,
	})
	box := got["Instance/edge/box"]
	if box.Tags["team"] != "ml" || box.Tags["env"] != "prod" || !slices.ContainsFunc(box.Notes, func(n string) bool { return strings.Contains(n, "spec.maxCount 3 is not used") }) {
		t.Errorf("box: tags %v, notes %q", box.Tags, box.Notes)
	}
	// The instances' tags are the launch template data's, not the template's own.
	if tags := got["Instance/ml/from-template"].Tags; tags["team"] != "research" || tags["owner"] != "" {
		t.Errorf("from-template: tags %v", tags)
	}
	// What is unknown is said in the manifest's terms.
	byID := got["Instance/ml/by-id"]
	if u := byID.Unresolved; len(u) != 1 || u[0].Attribute != "spec.instanceType" ||
		!slices.Contains(byID.Notes, "the launch template is not among the manifests: its instance type could not be read") {
		t.Errorf("by-id: unresolved %+v, notes %q", u, byID.Notes)
	}
	// Its scalable target is named by its manifest, not the Terraform address it was read as.
	llm := got[`EndpointConfig/ml/llm.production_variants["main"]`]
	if llm.Tags["team"] != "serving" || !slices.Contains(llm.Notes, "autoscaled by ScalableTarget/ml/llm: priced at its min_capacity (3)") ||
		llm.ScaleMax == nil || llm.ScaleMax.From != "max_capacity of ScalableTarget/ml/llm" {
		t.Errorf("endpoint config: tags %v, notes %q, scale max %+v", llm.Tags, llm.Notes, llm.ScaleMax)
	}
}

// ACK spells acronyms in capitals (subnetID, roleARN, HTTPTokens) and EC2 has words of its own
// (vCPU, MiB, IPv6): Terraform's names are those words whole.
func TestACKSnake(t *testing.T) {
	for in, want := range map[string]string{
		"instanceType": "instance_type", "subnetID": "subnet_id", "launchTemplateID": "launch_template_id",
		"roleARN": "role_arn", "HTTPTokens": "http_tokens", "EBSOptimized": "ebs_optimized",
		"vCPUCount": "vcpu_count", "memoryMiB": "memory_mib", "acceleratorTotalMemoryMiB": "accelerator_total_memory_mib",
		"ipv6AddressCount": "ipv6_address_count", "IPv6Addresses": "ipv6_addresses", "name": "name",
	} {
		if got := ackSnake(in); got != want {
			t.Errorf("ackSnake(%q) = %q, want %q", in, got, want)
		}
	}
	// And back, for what a message says of a field.
	for attr, want := range map[string]string{
		"instance_type": "spec.instanceType", "ami": "spec.imageID", "launch_template.id": "spec.launchTemplate.launchTemplateID",
		`production_variants["main"].instance_type`: `spec.productionVariants["main"].instanceType`,
	} {
		typ := "aws_instance"
		if strings.HasPrefix(attr, "production") {
			typ = "aws_sagemaker_endpoint_configuration"
		}
		if got := ackField(attr, typ); got != want {
			t.Errorf("ackField(%q) = %q, want %q", attr, got, want)
		}
	}
}
