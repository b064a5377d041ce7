package managed

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// The official providers' fleets, SageMaker endpoints, batch environments, notebooks, Dataproc
// clusters and Azure Machine Learning clusters are priced as the Terraform resources they are
// generated from, with what they refer to by selector: a fleet's launch template, an
// endpoint's configuration, and the scaling target that names the endpoint by its external
// name.
func TestCrossplaneFleetsAndMLServices(t *testing.T) {
	f := kubernetes.Decode("ml.yaml", []byte(`apiVersion: ec2.aws.upbound.io/v1beta1
kind: SpotFleetRequest
metadata: {name: render}
spec:
  forProvider:
    region: us-east-1
    iamFleetRole: arn:aws:iam::123456789012:role/fleet
    targetCapacity: 4
    launchSpecification:
      - {ami: ami-0123456789abcdef0, instanceType: g6.12xlarge}
---
apiVersion: ec2.aws.upbound.io/v1beta1
kind: LaunchTemplate
metadata:
  name: a10g
  labels: {app: train}
spec:
  forProvider: {region: us-east-1, imageId: ami-0123456789abcdef0, instanceType: g5.2xlarge}
---
apiVersion: ec2.aws.upbound.io/v1beta1
kind: Fleet
metadata:
  name: train
  labels: {app: train}
spec:
  forProvider:
    region: us-east-1
    type: maintain
    launchTemplateConfig:
      - launchTemplateSpecification:
          launchTemplateIdSelector:
            matchLabels: {app: train}
          version: $Latest
    targetCapacitySpecification:
      defaultTargetCapacityType: spot
      totalTargetCapacity: 3
---
apiVersion: sagemaker.aws.upbound.io/v1beta2
kind: EndpointConfiguration
metadata:
  name: chat-config
  labels: {app: chat}
spec:
  forProvider:
    region: us-east-1
    productionVariants:
      - {variantName: main, instanceType: ml.g5.2xlarge, initialInstanceCount: 1}
---
apiVersion: sagemaker.aws.upbound.io/v1beta2
kind: Endpoint
metadata:
  name: chat
  labels: {app: chat}
spec:
  forProvider:
    region: us-east-1
    endpointConfigNameSelector:
      matchLabels: {app: chat}
---
apiVersion: appautoscaling.aws.upbound.io/v1beta1
kind: Target
metadata:
  name: chat
  labels: {app: chat}
spec:
  forProvider:
    region: us-east-1
    serviceNamespace: sagemaker
    resourceId: endpoint/chat/variant/main
    scalableDimension: sagemaker:variant:DesiredInstanceCount
    minCapacity: 2
    maxCapacity: 6
---
apiVersion: sagemaker.aws.upbound.io/v1beta2
kind: EndpointConfiguration
metadata:
  name: embed-v2
  annotations: {crossplane.io/external-name: embed-config}
spec:
  forProvider:
    region: us-east-1
    productionVariants:
      - {variantName: main, instanceType: ml.g6.xlarge, initialInstanceCount: 1}
---
apiVersion: sagemaker.aws.upbound.io/v1beta2
kind: Endpoint
metadata: {name: embed}
spec:
  forProvider: {region: us-east-1, endpointConfigName: embed-config}
---
apiVersion: appautoscaling.aws.upbound.io/v1beta1
kind: Target
metadata: {name: embed}
spec:
  forProvider:
    region: us-east-1
    serviceNamespace: sagemaker
    resourceId: endpoint/embed/variant/main
    scalableDimension: sagemaker:variant:DesiredInstanceCount
    minCapacity: 1
    maxCapacity: 3
---
apiVersion: autoscaling.aws.upbound.io/v1beta1
kind: LaunchConfiguration
metadata:
  name: p4d-v3
  annotations: {crossplane.io/external-name: p4d}
spec:
  forProvider: {region: us-east-1, imageId: ami-0123456789abcdef0, instanceType: p4d.24xlarge}
---
apiVersion: autoscaling.aws.upbound.io/v1beta3
kind: AutoscalingGroup
metadata: {name: train}
spec:
  forProvider:
    region: us-east-1
    availabilityZones: [us-east-1a]
    minSize: 1
    maxSize: 2
    launchConfiguration: p4d
---
apiVersion: batch.aws.upbound.io/v1beta1
kind: ComputeEnvironment
metadata: {name: jobs}
spec:
  forProvider:
    region: us-east-1
    type: MANAGED
    computeResources:
      - type: SPOT
        minVcpus: 8
        maxVcpus: 64
        instanceType: [g5.2xlarge]
---
apiVersion: notebooks.gcp.upbound.io/v1beta2
kind: Instance
metadata: {name: lab}
spec:
  forProvider:
    location: us-west1-a
    machineType: n1-standard-8
    acceleratorConfig: {type: NVIDIA_TESLA_T4, coreCount: 1}
---
apiVersion: dataproc.gcp.upbound.io/v1beta2
kind: Cluster
metadata: {name: etl}
spec:
  forProvider:
    region: us-central1
    clusterConfig:
      masterConfig: {numInstances: 1, machineType: n2-standard-4}
      autoscalingConfig: {policyUri: projects/ml/locations/us-central1/autoscalingPolicies/etl-policy}
      workerConfig:
        numInstances: 2
        machineType: n1-standard-16
        accelerators: [{acceleratorType: nvidia-tesla-t4, acceleratorCount: 2}]
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: InstanceTemplate
metadata: {name: serve}
spec:
  forProvider:
    machineType: a2-highgpu-1g
    scheduling: {onHostMaintenance: TERMINATE}
---
apiVersion: compute.gcp.upbound.io/v1beta2
kind: RegionInstanceGroupManager
metadata: {name: serve}
spec:
  forProvider:
    region: europe-west4
    baseInstanceName: serve
    distributionPolicyZones: [europe-west4-a, europe-west4-b]
    targetSize: 1
    version:
      - instanceTemplateRef: {name: serve}
---
apiVersion: compute.gcp.upbound.io/v1beta1
kind: RegionAutoscaler
metadata: {name: serve}
spec:
  forProvider:
    region: europe-west4
    targetRef: {name: serve}
    autoscalingPolicy:
      - {minReplicas: 2, maxReplicas: 8, cpuUtilization: [{target: 0.6}]}
---
apiVersion: dataproc.gcp.upbound.io/v1beta2
kind: AutoscalingPolicy
metadata: {name: etl-policy}
spec:
  forProvider:
    location: us-central1
    basicAlgorithm: {yarnConfig: {gracefulDecommissionTimeout: 30s, scaleDownFactor: 0.5, scaleUpFactor: 0.5}}
    workerConfig: {maxInstances: 6}
---
apiVersion: sagemaker.aws.upbound.io/v1beta2
kind: NotebookInstance
metadata: {name: lab}
spec:
  forProvider: {region: us-east-1, instanceType: ml.g5.xlarge, roleArn: "arn:aws:iam::123456789012:role/sm"}
---
apiVersion: machinelearningservices.azure.upbound.io/v1beta1
kind: Workspace
metadata:
  name: ws
  labels: {app: aml}
spec:
  forProvider: {location: West Europe}
---
apiVersion: machinelearningservices.azure.upbound.io/v1beta2
kind: ComputeCluster
metadata: {name: a100}
spec:
  forProvider:
    location: West Europe
    vmPriority: LowPriority
    vmSize: Standard_NC24ads_A100_v4
    machineLearningWorkspaceIdSelector:
      matchLabels: {app: aml}
    scaleSettings: {minNodeCount: 1, maxNodeCount: 4, scaleDownNodesAfterIdleDuration: PT10M}
---
apiVersion: machinelearningservices.azure.upbound.io/v1beta2
kind: ComputeInstance
metadata: {name: notebook}
spec:
  forProvider:
    virtualMachineSize: Standard_NC4as_T4_v3
    machineLearningWorkspaceIdSelector:
      matchLabels: {app: aml}
`))
	res := kubernetes.Build([]*kubernetes.File{f}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	var got []string
	for _, r := range res.Resources {
		gpus := ""
		for _, a := range r.Accelerators {
			gpus += fmt.Sprintf("+%d %s", a.Count, a.Type)
		}
		max := 0
		if r.ScaleMax != nil {
			max = r.ScaleMax.Quantity
		}
		if r.ScaleMax != nil && r.ScaleMax.VCPUs > 0 {
			max = r.ScaleMax.VCPUs
		}
		got = append(got, fmt.Sprintf("%s %s%s ×%d (%d vCPUs, max %d) %s in %s unresolved=%d", r.Address, r.InstanceType, gpus, r.Quantity, r.QuantityVCPUs, max, r.PurchaseOption, r.Region, len(r.Unresolved)))
	}
	slices.Sort(got)
	want := []string{
		// Up to its autoscaling policy's maxInstances: the policy_uri ends with the policy's
		// external name.
		"Cluster/etl.worker n1-standard-16+2 nvidia-tesla-t4 ×2 (0 vCPUs, max 6) on_demand in us-central1 unresolved=0",
		"NotebookInstance/lab ml.g5.xlarge ×1 (0 vCPUs, max 0) on_demand in us-east-1 unresolved=0",
		// A compute environment is priced by vCPUs: its minimum, up to its maximum.
		// In its workspace's location, the workspace found by selector.
		"ComputeInstance/notebook Standard_NC4as_T4_v3 ×1 (0 vCPUs, max 0) on_demand in westeurope unresolved=0",
		"ComputeCluster/a100 Standard_NC24ads_A100_v4 ×1 (0 vCPUs, max 4) spot in westeurope unresolved=0",
		"ComputeEnvironment/jobs g5.2xlarge ×0 (8 vCPUs, max 64) spot in us-east-1 unresolved=0",
		// The scaling target names the endpoint; the endpoint names its configuration by
		// selector: the variant runs at least the target's minimum, up to its maximum.
		`EndpointConfiguration/chat-config.production_variants["main"] ml.g5.2xlarge ×2 (0 vCPUs, max 6) on_demand in us-east-1 unresolved=0`,
		// The endpoint and the group name their configuration by its external name.
		`EndpointConfiguration/embed-v2.production_variants["main"] ml.g6.xlarge ×1 (0 vCPUs, max 3) on_demand in us-east-1 unresolved=0`,
		"AutoscalingGroup/train p4d.24xlarge ×1 (0 vCPUs, max 2) on_demand in us-east-1 unresolved=0",
		// Three resources named serve: the autoscaler's target is the group, the group's
		// template the template.
		"RegionInstanceGroupManager/serve a2-highgpu-1g ×2 (0 vCPUs, max 8) on_demand in europe-west4 unresolved=0",
		"Fleet/train g5.2xlarge ×3 (0 vCPUs, max 0) spot in us-east-1 unresolved=0",
		"Instance/lab n1-standard-8+1 nvidia-tesla-t4 ×1 (0 vCPUs, max 0) on_demand in us-west1 unresolved=0",
		"SpotFleetRequest/render g6.12xlarge ×4 (0 vCPUs, max 0) spot in us-east-1 unresolved=0",
	}
	slices.Sort(want)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Capacity reservations declared as managed resources are billed used or not: each is priced for
// the capacity no resource of the root is seen to take, and an instance that takes some says so.
func TestCrossplaneCapacityReservations(t *testing.T) {
	src, err := os.ReadFile("testdata/reservations.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("reservations.yaml", src)}, kubernetes.Options{Managed: Resources})
	if len(res.Errors) != 0 || len(res.Warnings) != 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = fmt.Sprintf("%s %s ×%d", r.Type, r.InstanceType, r.Quantity)
		if r.Address == "CapacityReservation/h100" && !strings.Contains(strings.Join(r.Notes, "\n"), "1 of it taken by Instance/train (priced there), the 1 left idle priced here") {
			t.Errorf("reservation notes %q", r.Notes)
		}
	}
	want := map[string]string{
		"CapacityReservation/h100": "aws_ec2_capacity_reservation p5.48xlarge ×1",
		"Instance/train":           "aws_instance p5.48xlarge ×1",
		"Reservation/a3":           "google_compute_reservation a3-highgpu-8g ×2",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// groupTagManifests is an Auto Scaling group of L4 instances whose cost-allocation tags are
// added by GroupTags, the way the provider's example adds a cluster autoscaler tag
// (examples/autoscaling/v1beta2/grouptag.yaml): one names the group, one selects it, and one
// (v1beta1, a list of one tag) tags the group alone.
const groupTagManifests = `apiVersion: autoscaling.aws.upbound.io/v1beta2
kind: LaunchConfiguration
metadata: {name: l4, labels: {example: tagged}}
spec:
  forProvider: {region: us-east-1, imageId: ami-0123456789abcdef0, instanceType: g6.xlarge}
---
apiVersion: autoscaling.aws.upbound.io/v1beta3
kind: AutoscalingGroup
metadata: {name: tagged, labels: {example: tagged}}
spec:
  forProvider:
    region: us-east-1
    availabilityZones: [us-east-1a]
    minSize: 2
    maxSize: 4
    launchConfigurationSelector: {matchLabels: {example: tagged}}
    tag:
      - {key: team, value: ml, propagateAtLaunch: true}
---
apiVersion: autoscaling.aws.upbound.io/v1beta2
kind: GroupTag
metadata: {name: project}
spec:
  forProvider:
    region: us-east-1
    autoscalingGroupName: tagged
    tag: {key: project, value: search, propagateAtLaunch: true}
---
apiVersion: autoscaling.aws.upbound.io/v1beta2
kind: GroupTag
metadata: {name: env, labels: {example: tagged}}
spec:
  forProvider:
    region: us-east-1
    autoscalingGroupNameSelector: {matchLabels: {example: tagged}}
    tag: {key: env, value: prod, propagateAtLaunch: true}
---
apiVersion: autoscaling.aws.upbound.io/v1beta1
kind: GroupTag
metadata: {name: owner}
spec:
  forProvider:
    region: us-east-1
    autoscalingGroupName: tagged
    tag:
      - {key: owner, value: platform, propagateAtLaunch: false}
`

// GroupTags add tags to the Auto Scaling group they name or select, as aws_autoscaling_group_tag
// does: those propagated at launch tag the instances (the cost-allocation tags GPU005 reads),
// one that is not tags the group alone. Without the GroupTags the group has only its own tag.
func TestCrossplaneGroupTags(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		want      map[string]string
	}{
		{"tagged", groupTagManifests, map[string]string{"team": "ml", "project": "search", "env": "prod"}},
		{"a tag of another group", strings.Replace(groupTagManifests, "autoscalingGroupName: tagged\n    tag: {key: project", "autoscalingGroupName: other\n    tag: {key: project", 1),
			map[string]string{"team": "ml", "env": "prod"}},
		{"no selector match", strings.Replace(groupTagManifests, "autoscalingGroupNameSelector: {matchLabels: {example: tagged}}", "autoscalingGroupNameSelector: {matchLabels: {example: other}}", 1),
			map[string]string{"team": "ml", "project": "search"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := kubernetes.Build([]*kubernetes.File{kubernetes.Decode("tags.yaml", []byte(tc.src))}, kubernetes.Options{Managed: Resources})
			if len(res.Errors) != 0 || len(res.Warnings) != 0 || len(res.Resources) != 1 {
				t.Fatalf("resources %d, errors %+v, warnings %+v", len(res.Resources), res.Errors, res.Warnings)
			}
			r := res.Resources[0]
			if r.Address != "AutoscalingGroup/tagged" || r.InstanceType != "g6.xlarge" || r.Quantity != 2 || !maps.Equal(r.Tags, tc.want) {
				t.Errorf("%s: %s ×%d, tags %v; want g6.xlarge ×2 tagged %v", r.Address, r.InstanceType, r.Quantity, r.Tags, tc.want)
			}
		})
	}
}
