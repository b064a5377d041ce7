// Package bottlerocket reads what Bottlerocket user data (TOML settings) says of a node's NVIDIA
// GPUs: Bottlerocket's NVIDIA variants run the Kubernetes device plugin themselves, configured by
// settings.kubelet-device-plugins.nvidia, which may share each GPU between pods (time-slicing or
// MPS) or split it into MIG slices. The Terraform reader asks it of an EKS node group's launch
// template, the Kubernetes reader of a Karpenter EC2NodeClass's userData.
package bottlerocket
