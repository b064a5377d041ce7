// Package kubernetes reads Kubernetes manifests (multi-document YAML or JSON, as written or as
// rendered by helm template and kustomize build) into GPU resources.
//
// It decodes each document on its own, so a broken document is reported with its file and line
// while the documents around it are still read. Workloads (Pods, Deployments, StatefulSets,
// ReplicaSets, ReplicationControllers, DaemonSets, Jobs, CronJobs, the controllers that stand in
// for them (OpenShift's DeploymentConfig, OpenKruise's: controllers.go) and the common CRDs that
// carry pod templates or write their own pods: Kubeflow training jobs and Trainer v2 TrainJobs,
// Katib Experiments, JobSet, Seldon Core's SeldonDeployment, CodeFlare's AppWrapper,
// Ray, LeaderWorkerSet, KServe's InferenceService and LLMInferenceService, Knative, Volcano, Argo
// Workflows and Rollouts, the NIM and Spark operators, scheduled Spark applications included) become one resource per GPU-requesting pod role, with
// the GPUs one pod requests (device plugins and DRA claims) and what its node selection says
// about the node it lands on. HorizontalPodAutoscalers, ResourceQuotas on GPU resources, CPU,
// memory and pods with the scopes that pick the pods they count and the global default
// PriorityClass (quota.go), LimitRanges, whose defaults fill in the containers' requests and
// whose bounds refuse pods (limitrange.go), RuntimeClasses, whose pod overhead and scheduling
// the pods that name one get (runtimeclass.go), Karpenter NodePools, GKE ComputeClasses,
// Kueue queues, flavors, cohort trees and their quotas, which decide the flavor a queued workload is admitted
// to or that it never is, and the admission checks that provision its nodes or send it to
// another cluster (kueue.go), Kueue's own configuration, which decides which requests
// count against those quotas and which workloads Kueue manages (kueueconfig.go), Kueue's
// Topologies and PodSet groups, which decide the flavors topology-aware scheduling may use and
// which pods it keeps on one node (kueuetas.go), DRA claim templates, Argo WorkflowTemplates, the
// Deployments a Rollout's workloadRef names, Kubeflow training runtimes and
// LLMInferenceServiceConfigs, found anywhere in the scan, are applied in Build; an autoscaler a
// kustomization builds applies to the workloads of that build only (FromNodes takes a build's
// objects, with the kustomization as their root). Crossplane composites and claims are rendered
// through their Compositions into the managed resources handed to Options.Managed
// (composition.go). Cluster API machine sets (clusterapi.go) and KAITO workspaces (kaito.go)
// declare GPU nodes rather than pods: they become resources of whole instances. Cloud Run's own
// YAML (a Knative Service with Cloud Run's marks, a run.googleapis.com Job) runs on Cloud Run,
// not on nodes: its instances are listed with their GPU and no node (cloudrun.go). A kind it does
// not read whose spec requests GPUs is a warning (unknown.go). Pods that an exclusive placement
// (a JobSet's, a LeaderWorkerSet's group or subgroup, a RoleBasedGroup's) or their own pod
// affinity keeps on one node are marked for the estimator, with the pods of other roles beside
// them (exclusive.go); a placement annotation under a key its kind does not read is a warning
// (placementkeys.go). Placements that give each pod, Job or group a topology domain of its own
// (a zone, a node pool: an own-pod anti-affinity, an exclusive placement, a spread's minDomains)
// are counted against the domains the pods may use, from their node selection, Kueue flavors,
// Karpenter NodePool and the zones and labels of the node groups that run them: those past them
// are a warning, as are pods that select only zones their node groups are not in (domains.go).
//
// The package does not price anything: the estimator turns "which node" into a price.
package kubernetes
