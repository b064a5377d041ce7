package terraform

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
)

// GPU node groups whose nodes start without the GPU driver. Each cloud's managed node groups
// install the NVIDIA driver on GPU machines unless a setting says otherwise; then the nodes
// offer no nvidia.com/gpu to pods, which stay Pending while the GPU nodes are billed, unless
// something else on the cluster installs the driver (the NVIDIA GPU Operator). The readers
// below record such a setting on the resource (parser.Resource.NoGPUDriver), only where the
// configuration states it: a setting known only at apply, or left to the cloud's default, is
// not held against the group. Rule GPU012 reports it.

// awsNVIDIAFamily are the EC2 families with NVIDIA GPUs, which the EKS-optimized NVIDIA AMIs
// serve (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html lists
// p6, p5, p4d, p3, g7e, g6, g6e, g6f, gr6, g5, g5g, g4dn). g4ad's GPUs are AMD's, and
// Inferentia and Trainium take the Neuron driver: neither is judged here.
var awsNVIDIAFamily = regexp.MustCompile(`^(p\d|g\d|gr\d)[a-z0-9-]*\.`)

// eksDriver reads an EKS managed node group's ami_type. The EKS API asks for a GPU AMI type
// with GPU instance types (CreateNodegroup, instanceTypes); the AMI types with the NVIDIA
// driver name it (AL2023_x86_64_NVIDIA, AL2023_ARM_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA,
// BOTTLEROCKET_ARM_64_NVIDIA) or are AL2_x86_64_GPU; CUSTOM takes the launch template's own
// image, which gpuguard cannot see into. Enum: https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html;
// "non-accelerated Amazon EKS AMIs don't support the g3, g4, inf, and p families":
// https://docs.aws.amazon.com/eks/latest/userguide/choosing-instance-type.html. An unset
// ami_type is left to EKS, which gpuguard does not second-guess.
func eksDriver(r *parser.Resource, w *view) {
	t := strings.ToLower(r.InstanceType)
	if !awsNVIDIAFamily.MatchString(t) || strings.HasPrefix(t, "g4ad.") {
		return
	}
	ami, ok := w.quiet().str("ami_type")
	if !ok {
		return // EKS picks the AMI, or it is known only at apply
	}
	u := strings.ToUpper(ami)
	if u == "CUSTOM" || strings.Contains(u, "NVIDIA") || strings.Contains(u, "_GPU") {
		return
	}
	r.NoGPUDriver = fmt.Sprintf("ami_type = %q, an EKS AMI type without the NVIDIA driver", ami)
}

// aksDriver reads an AKS pool's gpu_driver: "None" skips the driver AKS otherwise installs on
// GPU sizes (the API's gpuProfile.driver, default Install:
// https://learn.microsoft.com/rest/api/aks/agent-pools/create-or-update, GPUProfile), as does
// the older node pool tag SkipGPUDriverInstall=true
// (https://learn.microsoft.com/azure/aks/use-nvidia-gpu, "Skip GPU driver installation").
func aksDriver(r *parser.Resource, pool *view) {
	if !parser.IsGPUInstanceType(parser.Azure, r.InstanceType) {
		return
	}
	if d, ok := pool.quiet().str("gpu_driver"); ok && strings.EqualFold(d, "None") {
		r.NoGPUDriver = `gpu_driver = "None", which skips the NVIDIA driver AKS installs on GPU nodes`
		return
	}
	for k, v := range pool.quiet().strMap("tags") {
		if strings.EqualFold(k, "SkipGPUDriverInstall") && strings.EqualFold(v, "true") {
			r.NoGPUDriver = "the tag " + k + " = " + v + ", which skips the NVIDIA driver AKS installs on GPU nodes"
			return
		}
	}
}

// gkeDriver reads a GKE pool's guest_accelerator.gpu_driver_installation_config:
// INSTALLATION_DISABLED turns off the driver GKE installs on GPU nodes (by default since
// 1.30.1-gke.1156000 when no version is given:
// https://cloud.google.com/kubernetes-engine/docs/how-to/gpus#create-gpu-pool-auto-drivers).
func gkeDriver(r *parser.Resource, nodeConfig *view) {
	for _, ga := range nodeConfig.blocks("guest_accelerator") {
		for _, cfg := range ga.blocks("gpu_driver_installation_config") {
			if v, ok := cfg.quiet().str("gpu_driver_version"); ok && strings.EqualFold(v, "INSTALLATION_DISABLED") {
				r.NoGPUDriver = `guest_accelerator.gpu_driver_installation_config.gpu_driver_version = "INSTALLATION_DISABLED", which turns off the NVIDIA driver GKE installs on GPU nodes`
				return
			}
		}
	}
}
