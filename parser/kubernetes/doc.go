// Package kubernetes reads Kubernetes manifests (multi-document YAML or JSON, as written or as
// rendered by helm template and kustomize build) into GPU resources.
//
// It decodes each document on its own, so a broken document is reported with its file and line
// while the documents around it are still read. Workloads (Pods, Deployments, StatefulSets,
// ReplicaSets, DaemonSets, Jobs, CronJobs and the common CRDs that carry pod templates: Kubeflow
// training jobs, Ray, LeaderWorkerSet, KServe) become one resource per GPU-requesting pod role,
// with the GPUs one pod requests and what its node selection says about the node it lands on.
// HorizontalPodAutoscalers and Karpenter NodePools found anywhere in the scan are applied in Build.
//
// The package does not price anything: the estimator turns "which node" into a price.
package kubernetes
