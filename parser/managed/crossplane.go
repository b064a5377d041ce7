package managed

import (
	"cmp"
	"strings"
	"unicode"

	"github.com/gpuguard/gpuguard/parser/kubernetes"
)

// kinds maps the managed resources that run GPU machines, by API group (without the version and
// without Crossplane v2's ".m" for namespaced ones) and kind, to the Terraform resource type
// their provider is generated from. The official providers are built with upjet from the
// Terraform providers, so a managed resource's spec.forProvider holds that resource's arguments
// in camelCase (https://github.com/crossplane/upjet). Resources they launch through references
// (launch templates) are listed too, so that references resolve.
var kinds = map[string]string{
	"ec2.aws.upbound.io/Instance":                                 "aws_instance",
	"ec2.aws.upbound.io/SpotInstanceRequest":                      "aws_spot_instance_request",
	"ec2.aws.upbound.io/SpotFleetRequest":                         "aws_spot_fleet_request",
	"ec2.aws.upbound.io/Fleet":                                    "aws_ec2_fleet",
	"ec2.aws.upbound.io/LaunchTemplate":                           "aws_launch_template",
	"ec2.aws.upbound.io/CapacityReservation":                      "aws_ec2_capacity_reservation",
	"autoscaling.aws.upbound.io/AutoscalingGroup":                 "aws_autoscaling_group",
	"autoscaling.aws.upbound.io/LaunchConfiguration":              "aws_launch_configuration",
	"autoscaling.aws.upbound.io/Schedule":                         "aws_autoscaling_schedule",
	"autoscaling.aws.upbound.io/GroupTag":                         "aws_autoscaling_group_tag",
	"eks.aws.upbound.io/NodeGroup":                                "aws_eks_node_group",
	"batch.aws.upbound.io/ComputeEnvironment":                     "aws_batch_compute_environment",
	"sagemaker.aws.upbound.io/Endpoint":                           "aws_sagemaker_endpoint",
	"sagemaker.aws.upbound.io/EndpointConfiguration":              "aws_sagemaker_endpoint_configuration",
	"sagemaker.aws.upbound.io/NotebookInstance":                   "aws_sagemaker_notebook_instance",
	"appautoscaling.aws.upbound.io/Target":                        "aws_appautoscaling_target",
	"compute.gcp.upbound.io/Instance":                             "google_compute_instance",
	"compute.gcp.upbound.io/InstanceTemplate":                     "google_compute_instance_template",
	"compute.gcp.upbound.io/InstanceFromTemplate":                 "google_compute_instance_from_template",
	"compute.gcp.upbound.io/InstanceGroupManager":                 "google_compute_instance_group_manager",
	"compute.gcp.upbound.io/RegionInstanceGroupManager":           "google_compute_region_instance_group_manager",
	"compute.gcp.upbound.io/Autoscaler":                           "google_compute_autoscaler",
	"compute.gcp.upbound.io/RegionAutoscaler":                     "google_compute_region_autoscaler",
	"compute.gcp.upbound.io/Reservation":                          "google_compute_reservation",
	"container.gcp.upbound.io/Cluster":                            "google_container_cluster",
	"container.gcp.upbound.io/NodePool":                           "google_container_node_pool",
	"notebooks.gcp.upbound.io/Instance":                           "google_notebooks_instance",
	"dataproc.gcp.upbound.io/Cluster":                             "google_dataproc_cluster",
	"dataproc.gcp.upbound.io/AutoscalingPolicy":                   "google_dataproc_autoscaling_policy",
	"containerservice.azure.upbound.io/KubernetesCluster":         "azurerm_kubernetes_cluster",
	"containerservice.azure.upbound.io/KubernetesClusterNodePool": "azurerm_kubernetes_cluster_node_pool",
	"compute.azure.upbound.io/LinuxVirtualMachine":                "azurerm_linux_virtual_machine",
	"compute.azure.upbound.io/LinuxVirtualMachineScaleSet":        "azurerm_linux_virtual_machine_scale_set",
	"compute.azure.upbound.io/WindowsVirtualMachine":              "azurerm_windows_virtual_machine",
	"compute.azure.upbound.io/WindowsVirtualMachineScaleSet":      "azurerm_windows_virtual_machine_scale_set",
	"compute.azure.upbound.io/OrchestratedVirtualMachineScaleSet": "azurerm_orchestrated_virtual_machine_scale_set",
	"insights.azure.upbound.io/MonitorAutoscaleSetting":           "azurerm_monitor_autoscale_setting",
	"batch.azure.upbound.io/Account":                              "azurerm_batch_account",
	"batch.azure.upbound.io/Pool":                                 "azurerm_batch_pool",
	"machinelearningservices.azure.upbound.io/Workspace":          "azurerm_machine_learning_workspace",
	"machinelearningservices.azure.upbound.io/ComputeCluster":     "azurerm_machine_learning_compute_cluster",
	"machinelearningservices.azure.upbound.io/ComputeInstance":    "azurerm_machine_learning_compute_instance",
}

// externalNames are the Terraform arguments the official providers fill from a managed
// resource's external name instead of a forProvider field (upjet's TemplatedStringAsIdentifier
// in each provider's external-name configuration): the crossplane.io/external-name annotation,
// which Crossplane sets to metadata.name unless it is given. A node group's name is what its
// nodes' group label says, which pods select; an Auto Scaling group's is what its scheduled
// actions name, a launch configuration's what a group names, a SageMaker endpoint
// configuration's what an endpoint names, an endpoint's what its scaling target's
// resource_id says, and a Dataproc autoscaling policy's what a cluster's policy_uri ends with.
var externalNames = map[string]string{
	"google_container_node_pool":           "name",
	"aws_eks_node_group":                   "node_group_name",
	"azurerm_kubernetes_cluster_node_pool": "name",
	"aws_autoscaling_group":                "name",
	"aws_launch_configuration":             "name",
	"aws_sagemaker_endpoint":               "name",
	"aws_sagemaker_endpoint_configuration": "name",
	"google_dataproc_autoscaling_policy":   "policy_id",
}

// crossplaneArguments is a Crossplane managed resource's forProvider with initProvider under it,
// and its external name where that is an argument.
func crossplaneArguments(mr kubernetes.ManagedResource, typ string) (map[string]any, error) {
	var spec struct {
		ForProvider  map[string]any `yaml:"forProvider"`
		InitProvider map[string]any `yaml:"initProvider"`
	}
	if mr.Spec != nil && mr.Spec.Kind != 0 {
		if err := mr.Spec.Decode(&spec); err != nil {
			return nil, err
		}
	}
	// initProvider holds what is set only when the resource is created (a node group's
	// desired size, left to the autoscaler afterwards); forProvider wins where both say.
	args := merge(spec.InitProvider, spec.ForProvider)
	if arg := externalNames[typ]; arg != "" && args[arg] == nil {
		args[arg] = cmp.Or(mr.Annotations["crossplane.io/external-name"], mr.Name)
	}
	return args, nil
}

// merge is base with over's keys on top, objects merged key by key, and lists of objects (a
// Terraform block, scalingConfig: [{...}]) element by element, as Crossplane merges
// initProvider into forProvider.
func merge(base, over map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range over {
		out[k] = mergeValue(out[k], v)
	}
	return out
}

func mergeValue(base, over any) any {
	switch o := over.(type) {
	case map[string]any:
		if b, ok := base.(map[string]any); ok {
			return merge(b, o)
		}
	case []any:
		b, ok := base.([]any)
		if !ok || len(b) != len(o) {
			return over
		}
		out := make([]any, len(o))
		for i := range o {
			bm, bok := b[i].(map[string]any)
			om, ook := o[i].(map[string]any)
			if !bok || !ook {
				return over
			}
			out[i] = merge(bm, om)
		}
		return out
	}
	return over
}

// snake turns an upjet camelCase argument name into Terraform's snake_case
// (instanceTypes → instance_types, desiredSize → desired_size).
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
