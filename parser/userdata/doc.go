// Package userdata reads what the texts an instance boots with say of the Kubernetes node it
// boots: the cluster it joins and the labels and taints it registers with, which are what pods
// select and tolerate. Those texts are an EC2 instance's user data, a Compute Engine instance's
// user-data and startup-script metadata, or an Azure VM's custom data (ReadAll). A self-managed
// node group (an Auto Scaling group, a managed instance group, a scale set) has no labels but
// these.
//
// It reads the three ways EKS nodes are bootstrapped:
//   - the EKS-optimized Amazon Linux 2 AMI's /etc/eks/bootstrap.sh, whose --kubelet-extra-args
//     carry the kubelet's --node-labels and --register-with-taints;
//   - nodeadm's NodeConfig (Amazon Linux 2023), whose spec.kubelet.flags carry the same flags and
//     spec.kubelet.config.registerWithTaints the taints;
//   - Bottlerocket's TOML settings (settings.kubernetes.node-labels and node-taints);
//
// and the nodes of clusters run on EC2 without EKS:
//   - k3s and RKE2 agents (their binaries, install scripts and services), with node-label and
//     node-taint from their configuration files and command lines;
//   - kubeadm join, with its JoinConfiguration and the kubelet's KUBELET_EXTRA_ARGS.
//
// User data may be base64, gzip, or a MIME multi-part archive of such parts, as cloud-init takes
// it; cloud-config's runcmd is read as a script and its write_files as files. A startup script
// (Source.Script) is read as a shell script whatever its first line. The configuration
// files k3s, RKE2 and kubeadm read are known when the user data writes them (write_files, or a
// script's here-document or echo into the file). Nothing here runs the scripts: a label set from
// what a script computes at boot is reported as unknown, not guessed.
package userdata
