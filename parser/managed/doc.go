// Package managed prices the cloud resources a repository declares as Kubernetes objects of
// cloud operators, each through the Terraform resource it corresponds to:
//   - Crossplane managed resources of the official providers (eks.aws.upbound.io NodeGroup,
//     container.gcp.upbound.io NodePool, containerservice.azure.upbound.io
//     KubernetesClusterNodePool, instances, groups and scale sets and their autoscalers and
//     schedules and tags, fleets, SageMaker and Azure Machine Learning compute), built with upjet, whose
//     spec.forProvider is the Terraform resource's arguments in camelCase (crossplane.go);
//   - Google's Config Connector (container.cnrm.cloud.google.com ContainerNodePool and
//     ContainerCluster, compute.cnrm.cloud.google.com ComputeInstance, ComputeInstanceTemplate and
//     ComputeInstanceGroupManager), whose spec is, but for the group manager's Compute API
//     fields;
//   - Azure Service Operator v2 (containerservice.azure.com ManagedCluster and
//     ManagedClustersAgentPool, compute.azure.com VirtualMachine and VirtualMachineScaleSet,
//     machinelearningservices.azure.com WorkspacesCompute, insights.azure.com
//     Autoscalesetting, whose targetResourceUriReference names its scale set),
//     whose spec is the ARM request, written as the azapi_resource of that ARM type (aso.go);
//   - AWS Controllers for Kubernetes (eks.services.k8s.aws Nodegroup; ec2.services.k8s.aws
//     Instance, LaunchTemplate, Fleet and CapacityReservation; sagemaker.services.k8s.aws
//     EndpointConfig, Endpoint and NotebookInstance; Application Auto Scaling's
//     ScalableTarget), whose spec is the AWS API's request, close to the Terraform arguments
//     (ack.go); and SageMaker's TrainingJob, HyperParameterTuningJob, ProcessingJob and
//     TransformJob, which no Terraform resource declares, read directly as the instances they
//     run for one run (acksagemaker.go).
//
// The package writes the objects of a root as one Terraform JSON configuration, references by
// name and label selectors resolved as Crossplane resolves them (managed.go), and prices it with package terraform's mappers; a kind it does not price that
// names a GPU type is a warning. It does not print or exit.
package managed
