package parser

import "testing"

func TestEKSImagesWithoutTheDriver(t *testing.T) {
	for name, want := range map[string]string{
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2/recommended/image_id":                    "an EKS-optimized Amazon Linux 2 AMI",
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2-arm64/recommended/image_id":              "an EKS-optimized Amazon Linux 2 AMI",
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2-gpu/recommended/image_id":                "",
		"/aws/service/eks/optimized-ami/*/amazon-linux-2023/arm64/standard/recommended/image_id":     "an EKS-optimized Amazon Linux 2023 standard AMI",
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/recommended/image_id":   "an EKS-optimized Amazon Linux 2023 neuron AMI",
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id":   "",
		"/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/*/recommended/image_id":               "",
		"/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id":                              "a Bottlerocket AMI for Kubernetes",
		"/aws/service/bottlerocket/aws-k8s-1.31-fips/x86_64/latest/image_id":                         "a Bottlerocket AMI for Kubernetes",
		"/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/latest/image_id":                       "",
		"/aws/service/bottlerocket/aws-k8s-*/x86_64/latest/image_id":                                 "",
		"amazon-eks-node-al2023-x86_64-standard-1.31-v*":                                             "an EKS-optimized Amazon Linux 2023 standard AMI",
		"amazon-eks-node-al2023-*-standard-1.31-v*":                                                  "",
		"amazon-eks-node-al2023-x86_64-nvidia-1.31-v*":                                               "",
		"amazon-eks-node-1.31-v20250101":                                                             "an EKS-optimized Amazon Linux 2 AMI",
		"amazon-eks-arm64-node-1.31-v*":                                                              "an EKS-optimized Amazon Linux 2 AMI",
		"amazon-eks-gpu-node-1.31-v*":                                                                "",
		"amazon-eks-node-*":                                                                          "",
		"bottlerocket-aws-k8s-1.31-x86_64-*":                                                         "a Bottlerocket AMI for Kubernetes",
		"bottlerocket-aws-k8s-1.31-nvidia-x86_64-*":                                                  "",
		"bottlerocket-aws-k8s-*-x86_64-*":                                                            "",
		"ubuntu/images/hvm-ssd/ubuntu-jammy-22.04-amd64-server-*":                                    "",
		"/aws/service/canonical/ubuntu/eks/22.04/1.31/stable/current/amd64/hvm/ebs-gp2/ami-id":       "",
		"/AWS/service/eks/optimized-ami/1.31/AMAZON-LINUX-2023/x86_64/STANDARD/recommended/image_id": "an EKS-optimized Amazon Linux 2023 standard AMI",
	} {
		if got := EKSImageWithoutDriver(name); got != want {
			t.Errorf("EKSImageWithoutDriver(%q) = %q, want %q", name, got, want)
		}
	}
}
