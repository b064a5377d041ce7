package parser

import (
	"regexp"
	"strings"
)

// eksImagePatterns are the EKS-optimized AMIs without the NVIDIA driver, by SSM parameter path
// and AMI name (https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id.html,
// https://docs.aws.amazon.com/eks/latest/userguide/retrieve-ami-id-bottlerocket.html): their
// NVIDIA variants name nvidia or gpu in the same place (amazon-linux-2023/x86_64/nvidia,
// amazon-linux-2-gpu, aws-k8s-1.31-nvidia, amazon-eks-gpu-node-1.31-v*). A pattern matches only
// where the variant is spelled out: "amazon-eks-node-*-v*" also matches the AL2023 NVIDIA AMI's
// name, and aws-k8s-* a Bottlerocket NVIDIA variant, so neither is judged.
var eksImagePatterns = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`/aws/service/eks/optimized-ami/[^/]*/amazon-linux-2(-arm64)?/`), "an EKS-optimized Amazon Linux 2 AMI"},
	{regexp.MustCompile(`/aws/service/eks/optimized-ami/[^/]*/amazon-linux-2023/[^/]*/(standard|neuron)/`), "an EKS-optimized Amazon Linux 2023 ${1} AMI"},
	{regexp.MustCompile(`/aws/service/bottlerocket/aws-k8s-[0-9.]+(-fips)?/`), "a Bottlerocket AMI for Kubernetes"},
	{regexp.MustCompile(`^amazon-eks-node-al2023-[^-*]+-(standard|neuron)-`), "an EKS-optimized Amazon Linux 2023 ${1} AMI"},
	{regexp.MustCompile(`^amazon-eks-(arm64-)?node-[0-9]`), "an EKS-optimized Amazon Linux 2 AMI"},
	{regexp.MustCompile(`^bottlerocket-aws-k8s-[0-9.]+(-fips)?-(x86_64|aarch64)-`), "a Bottlerocket AMI for Kubernetes"},
}

// EKSImageWithoutDriver says which EKS-optimized AMI without the NVIDIA driver an SSM parameter
// name or AMI name names ("an EKS-optimized Amazon Linux 2023 standard AMI"), or "" when it
// names another image or cannot be told. A "*" stands for what is not known (a wildcard of an
// AMI name filter, a part known only at apply): where it could spell the NVIDIA variant, the
// name is not judged. The Terraform reader asks it of data sources, the Kubernetes reader of
// Karpenter's EC2NodeClass amiSelectorTerms.
func EKSImageWithoutDriver(name string) string {
	n := strings.ToLower(name)
	if strings.Contains(n, "nvidia") || strings.Contains(n, "gpu") {
		return ""
	}
	for _, p := range eksImagePatterns {
		if m := p.re.FindStringSubmatchIndex(n); m != nil {
			return string(p.re.ExpandString(nil, p.what, n, m))
		}
	}
	return ""
}

// awsNVIDIAFamily are the EC2 families with NVIDIA GPUs, which the EKS-optimized NVIDIA AMIs
// support (https://docs.aws.amazon.com/eks/latest/userguide/ml-eks-optimized-ami.html: p6, p5,
// p4d, p3, g7e, g6, g6e, g6f, gr6, g5, g5g, g4dn). g4ad's GPUs are AMD's, and Inferentia and
// Trainium take the Neuron driver: neither is judged here.
var awsNVIDIAFamily = regexp.MustCompile(`^(p\d|g\d|gr\d)[a-z0-9-]*\.`)

// NVIDIAEC2 reports whether an EC2 instance type has NVIDIA GPUs (g4ad's are AMD's).
func NVIDIAEC2(instanceType string) bool {
	t := strings.ToLower(instanceType)
	return awsNVIDIAFamily.MatchString(t) && !strings.HasPrefix(t, "g4ad.")
}

// EKSAMITypeWithoutDriver reports whether an EKS managed node group AMI type lacks the NVIDIA
// driver. The types with it name it (AL2023_x86_64_NVIDIA, AL2023_ARM_64_NVIDIA,
// BOTTLEROCKET_x86_64_NVIDIA, BOTTLEROCKET_ARM_64_NVIDIA) or are AL2_x86_64_GPU; CUSTOM takes a
// launch template's own image, which is not judged. Enum:
// https://docs.aws.amazon.com/eks/latest/APIReference/API_Nodegroup.html; "non-accelerated
// Amazon EKS AMIs don't support the g3, g4, inf, and p families":
// https://docs.aws.amazon.com/eks/latest/userguide/choosing-instance-type.html.
func EKSAMITypeWithoutDriver(amiType string) bool {
	u := strings.ToUpper(strings.TrimSpace(amiType))
	return u != "" && u != "CUSTOM" && !strings.Contains(u, "NVIDIA") && !strings.Contains(u, "_GPU")
}

// AKSNoDriver says why an AKS pool's GPU nodes start without the NVIDIA driver AKS installs, from
// ARM's gpuProfile.driver ("None") and the pool's tags (SkipGPUDriverInstall=true), or "".
func AKSNoDriver(gpuProfileDriver string, tags map[string]string) string {
	if strings.EqualFold(gpuProfileDriver, "None") {
		return `gpuProfile.driver "None", which skips the NVIDIA driver AKS installs on GPU nodes`
	}
	return AKSSkipDriverTag(tags)
}

// AKSSkipDriverTag says why an AKS pool's tags skip the NVIDIA driver AKS installs on GPU nodes
// (SkipGPUDriverInstall=true, https://learn.microsoft.com/azure/aks/gpu-cluster#skip-gpu-driver-installation),
// or "".
func AKSSkipDriverTag(tags map[string]string) string {
	for k, v := range tags {
		if strings.EqualFold(k, "SkipGPUDriverInstall") && strings.EqualFold(v, "true") {
			return "the tag " + k + " = " + v + ", which skips the NVIDIA driver AKS installs on GPU nodes"
		}
	}
	return ""
}
