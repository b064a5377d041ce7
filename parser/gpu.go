package parser

import (
	"regexp"
	"strings"
)

// GPU instance families by provider, by name. They decide which compute resources belong in the
// inventory: a type outside them is CPU-only and left out (a resource whose type cannot be
// resolved is kept, unresolved, because it might be a GPU).
//
//   - AWS accelerated computing families (P, G, Inf, Trn, DL), EC2 or SageMaker (ml.) names:
//     https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html
//   - GCP accelerator-optimized machine series A2, A3, A4, G2, G4 (N1 takes attached GPUs), and
//     any later A series or any type named -highgpu-, -megagpu-, -ultragpu- or -edgegpu-, so that
//     a machine type newer than the catalog is reported unpriced rather than left out:
//     https://cloud.google.com/compute/docs/accelerator-optimized-machines
//   - Azure GPU-accelerated sizes, the N family (NC, ND, NG, NV):
//     https://learn.microsoft.com/azure/virtual-machines/sizes/overview
var gpuFamilies = map[string]*regexp.Regexp{
	AWS:   regexp.MustCompile(`^(ml\.)?(p\d|g\d|gr\d|inf\d|trn\d|dl\d)[a-z0-9-]*\.`),
	GCP:   regexp.MustCompile(`^(a\d+x?|g2|g4)-|-(highgpu|megagpu|ultragpu|edgegpu)-`),
	Azure: regexp.MustCompile(`(?i)^standard_n[a-z]`),
}

var (
	gcpMachineName  = regexp.MustCompile(`^[a-z][a-z0-9]*-(standard|highgpu|megagpu|ultragpu|highmem|highcpu|edgegpu)-\d+g?$`)
	awsInstanceName = regexp.MustCompile(`^(ml\.)?[a-z][a-z0-9-]*\.[a-z0-9-]+$`)
)

// IsGPUInstanceType reports whether an instance, machine or VM size name belongs to a GPU
// family of the provider.
func IsGPUInstanceType(provider, instanceType string) bool {
	re, ok := gpuFamilies[provider]
	if !ok {
		return false
	}
	return re.MatchString(strings.TrimSpace(instanceType))
}

// ProviderOfInstanceType guesses the provider from an instance type's naming scheme, for inputs
// that do not say (a Kubernetes node label). It returns Unknown when the name fits none.
func ProviderOfInstanceType(t string) string {
	switch {
	case strings.HasPrefix(strings.ToLower(t), "standard_"):
		return Azure
	case gcpMachineName.MatchString(t):
		return GCP
	case awsInstanceName.MatchString(t):
		return AWS
	}
	return Unknown
}

var (
	awsRegionName   = regexp.MustCompile(`^[a-z]{2}(-gov)?-[a-z]+-\d$`)
	gcpRegionName   = regexp.MustCompile(`^[a-z]+-[a-z]+\d+$`)
	azureRegionName = regexp.MustCompile(`^[a-z]+[a-z0-9]*$`)
)

// ProviderOfRegion tells the cloud from a region's name (us-east-1, us-central1, eastus).
func ProviderOfRegion(region string) string {
	r := NormalizeRegion(region)
	switch {
	case r == "":
		return Unknown
	case awsRegionName.MatchString(r):
		return AWS
	case gcpRegionName.MatchString(r):
		return GCP
	case azureRegionName.MatchString(r):
		return Azure
	}
	return Unknown
}

// gcpBuiltInSeries are the GCP accelerator types that come only built into accelerator-optimized
// machine types, with the machine series that carry each: GCP attaches none of them to an N1
// VM, and a guest_accelerator block on such a machine must name its own GPUs. From Compute
// Engine's GPU models table (https://cloud.google.com/compute/docs/gpus) and the
// accelerator-optimized machine family page
// (https://cloud.google.com/compute/docs/accelerator-optimized-machines), read 2026-11.
var gcpBuiltInSeries = map[string][]string{
	"nvidia-tesla-a100":     {"a2-highgpu-", "a2-megagpu-"},
	"nvidia-a100-80gb":      {"a2-ultragpu-"},
	"nvidia-h100-80gb":      {"a3-highgpu-", "a3-edgegpu-"},
	"nvidia-h100-mega-80gb": {"a3-megagpu-"},
	"nvidia-h200-141gb":     {"a3-ultragpu-"},
	"nvidia-b200":           {"a4-highgpu-"},
	"nvidia-gb200":          {"a4x-highgpu-"},
	"nvidia-l4":             {"g2-standard-"},
	"nvidia-rtx-pro-6000":   {"g4-standard-"},
}

// GCPBuiltInSeries returns the machine series (name prefixes: "g2-standard-") that come with the
// accelerator type built in; none for a type attached to N1 VMs instead.
func GCPBuiltInSeries(accelerator string) []string { return gcpBuiltInSeries[accelerator] }

// GCPBuiltInAccelerator returns the accelerator type built into a GCP machine type ("nvidia-l4"
// for g2-standard-8), or "" for a machine type without GPUs of its own.
func GCPBuiltInAccelerator(machineType string) string {
	for acc, series := range gcpBuiltInSeries {
		for _, s := range series {
			if strings.HasPrefix(machineType, s) {
				return acc
			}
		}
	}
	return ""
}

// ReportedMiBTolerance is how far a GPU's memory as the driver reports it (GPU feature
// discovery's nvidia.com/gpu.memory) may be from the catalog's reported_mib and still be that
// GPU: totals move by a few MiB between boards and drivers, and an H100 (81559) must not pass
// for an A100 80GB (81920).
const ReportedMiBTolerance = 0.0025

// NodeGPUs are the GPUs of a node, as NVIDIA's GPU feature discovery labels it
// (nvidia.com/gpu.product, gpu.count, gpu.memory, gpu.family, gpu.compute.major and minor): the
// catalog's key of the GPU, how many a node has, each one's memory in MiB as the driver reports
// it, its architecture ("" when GFD's name for it is not known) and CUDA compute capability (0
// when not an NVIDIA GPU).
type NodeGPUs struct {
	Key                        string
	Count                      int
	ReportedMiB                int
	Family                     string
	ComputeMajor, ComputeMinor int
}
