package terraform

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A self-managed node group (an Auto Scaling group) has no labels but those its nodes register
// with: its launch template's or launch configuration's user data (bootstrap.sh, nodeadm,
// Bottlerocket) says them, and its cluster autoscaler tags may. Pods that select them run on
// the group; its taints keep off pods that do not tolerate them (a taint on nvidia.com/gpu would
// not: Kubernetes' ExtendedResourceToleration adds its toleration to pods that request GPUs). An Auto Scaling group that
// neither bootstraps a node nor is tagged as a cluster's is no node group.
func TestSelfManagedNodeGroup(t *testing.T) {
	const al2 = `base64encode(<<-EOT
    #!/bin/bash
    set -e
    /etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=workload=inference --register-with-taints=dedicated=ml:NoSchedule'
    EOT
  )`
	const nodeadm = `<<-EOT
    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      cluster:
        name: ml
      kubelet:
        flags: ["--node-labels=workload=inference"]
    EOT`
	const bottlerocket = `base64encode(<<-EOT
    [settings.kubernetes]
    cluster-name = "ml"
    [settings.kubernetes.node-labels]
    workload = "inference"
    [settings.kubelet-device-plugins.nvidia]
    device-sharing-strategy = "time-slicing"
    [settings.kubelet-device-plugins.nvidia.time-slicing]
    replicas = 4
    rename-by-default = false
    EOT
  )`
	const k3s = `base64encode(<<-EOT
    #!/bin/bash
    mkdir -p /etc/rancher/k3s
    cat > /etc/rancher/k3s/config.yaml <<'EOF'
    node-label:
      - workload=inference
    EOF
    curl -sfL https://get.k3s.io | K3S_URL=https://k3s.internal:6443 K3S_TOKEN=$(cat /run/token) sh -s - agent --node-taint dedicated=ml:NoSchedule
    EOT
  )`
	const rke2 = `<<-EOT
    #cloud-config
    write_files:
      - path: /etc/rancher/rke2/config.yaml
        content: |
          server: https://rke2.internal:9345
          node-label: ["workload=inference"]
    runcmd:
      - systemctl enable --now rke2-agent
    EOT`
	const kubeadm = `<<-EOT
    #!/bin/bash
    echo 'KUBELET_EXTRA_ARGS="--node-labels=workload=inference"' > /etc/default/kubelet
    kubeadm join 10.0.0.5:6443 --token abc.def --discovery-token-ca-cert-hash sha256:00
    EOT`
	const toleration = `toleration {
          key      = "dedicated"
          operator = "Exists"
          effect   = "NoSchedule"
        }`
	const clusterTag = `tag {
    key                 = "kubernetes.io/cluster/ml"
    value               = "owned"
    propagate_at_launch = true
  }`
	const caLabel = `tag {
    key                 = "k8s.io/cluster-autoscaler/node-template/label/workload"
    value               = "inference"
    propagate_at_launch = false
  }`
	const caTaint = `tag {
    key                 = "k8s.io/cluster-autoscaler/node-template/taint/accelerator"
    value               = "h100:NoExecute"
    propagate_at_launch = false
  }`
	kopsTags := strings.Join([]string{caLabel, caTaint, `tag {
    key                 = "k8s.io/cluster-autoscaler/node-template/label/kops.k8s.io/instancegroup"
    value               = "gpu"
    propagate_at_launch = true
  }`}, "\n")
	// stack is a g5.xlarge group of 2 nodes launched from a template (or, with launchConfig, a
	// launch configuration) with userData, and a 4-replica Deployment selecting
	// workload=inference.
	stack := func(userData string, launchConfig bool, tags, podSpec string) string {
		launch := fmt.Sprintf(`resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
  user_data     = %s
}`, userData)
		use := `launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }`
		if launchConfig {
			launch = fmt.Sprintf(`resource "aws_launch_configuration" "gpu" {
  name          = "gpu"
  image_id      = "ami-123"
  instance_type = "g5.xlarge"
  user_data     = %s
}`, userData)
			use = `launch_configuration = aws_launch_configuration.gpu.name`
		}
		return fmt.Sprintf(`provider "aws" { region = "us-east-1" }
variable "user_data" {
  type = string
}
%s
resource "aws_autoscaling_group" "gpu" {
  name             = "gpu"
  desired_capacity = 2
  min_size         = 0
  max_size         = 4
  %s
  %s
}
%s`, launch, use, tags, inferDeployment(4, podSpec))
	}
	for _, tc := range []struct {
		name, src string
		onGroup   bool // the pods run on the group
		replicas  int  // how many pods share each GPU, when they do
		none      bool // the group is no node group
		note      string
		warn      string
		err       string
	}{
		{name: "AL2 bootstrap.sh, a toleration", src: stack(al2, false, "", toleration), onGroup: true,
			note: "a self-managed node group: its nodes join the cluster ml with the labels and taints bootstrap.sh registers in aws_launch_template.gpu's user data"},
		{name: "AL2 bootstrap.sh, no toleration: the pods stay Pending", src: stack(al2, false, "", ""), onGroup: true,
			warn: "main.tf:26: kubernetes_deployment_v1.infer: Deployment/default/infer: its pods select workload=inference, but do not tolerate the taints of the node groups that carry it: aws_autoscaling_group.gpu (taint dedicated=ml:NoSchedule)"},
		{name: "nodeadm in a launch configuration's plain user data", src: stack(nodeadm, true, "", ""), onGroup: true,
			note: "labels and taints nodeadm's NodeConfig registers in aws_launch_configuration.gpu's user data"},
		{name: "Bottlerocket settings share the GPUs", src: stack(bottlerocket, false, "", ""), onGroup: true, replicas: 4,
			note: "settings.kubelet-device-plugins.nvidia in aws_launch_template.gpu's user_data, the Bottlerocket settings its nodes boot with, shares each GPU as 4 units of nvidia.com/gpu (time-slicing)"},
		{name: "a cluster's tag, user data known at apply: any label may select it", src: stack("var.user_data", false, clusterTag, ""), onGroup: true,
			note: "its user data is known only at apply"},
		{name: "a cluster autoscaler label tag, user data that does not bootstrap", src: stack(`"#!/bin/bash\necho hi\n"`, false, caLabel, ""), onGroup: true,
			note: "its user data does not bootstrap the node in a way gpuguard reads"},
		{name: "the user data's labels win over the autoscaler's tags", src: stack(al2, false, strings.ReplaceAll(caLabel, `"inference"`, `"batch"`), toleration), onGroup: true,
			note: `its cluster autoscaler tag says the nodes' label workload is "batch", but their user data registers "inference"`},
		{name: "a cluster autoscaler taint tag keeps off pods that do not tolerate it; user data that does not bootstrap", src: stack(`"#!/bin/bash\necho hi\n"`, false, caLabel+"\n"+caTaint, toleration), onGroup: true,
			warn: "main.tf:30: kubernetes_deployment_v1.infer: Deployment/default/infer: its pods select workload=inference, but do not tolerate the taints of the node groups that carry it: aws_autoscaling_group.gpu (taint accelerator=h100:NoExecute)"},
		{name: "the autoscaler's taints join the user data's", src: stack(al2, false, caTaint, toleration), onGroup: true,
			warn: "main.tf:30: kubernetes_deployment_v1.infer: Deployment/default/infer: its pods select workload=inference, but do not tolerate the taints of the node groups that carry it: aws_autoscaling_group.gpu (taint accelerator=h100:NoExecute)"},
		{name: "a kops instance group: its autoscaler tags are all its labels and taints", src: stack(`"#!/bin/bash\n/opt/kops/bin/nodeup --conf=/opt/kops/conf/kube_env.yaml\n"`, false, kopsTags, ""), onGroup: true,
			note: "a kops instance group: its nodes carry the labels and taints its cluster autoscaler tags name",
			warn: "main.tf:35: kubernetes_deployment_v1.infer: Deployment/default/infer: its pods select workload=inference, but do not tolerate the taints of the node groups that carry it: aws_autoscaling_group.gpu (taint accelerator=h100:NoExecute)"},
		{name: "k3s: a configuration file from a here-document, taints on the installer's command line", src: stack(k3s, false, "", toleration), onGroup: true,
			note: "a self-managed node group: its nodes join the cluster https://k3s.internal:6443 with the labels and taints k3s registers in aws_launch_template.gpu's user data"},
		{name: "k3s's taint keeps off pods that do not tolerate it", src: stack(k3s, false, "", ""), onGroup: true,
			warn: "main.tf:30: kubernetes_deployment_v1.infer: Deployment/default/infer: its pods select workload=inference, but do not tolerate the taints of the node groups that carry it: aws_autoscaling_group.gpu (taint dedicated=ml:NoSchedule)"},
		{name: "RKE2: cloud-config writes the configuration, runcmd starts the agent", src: stack(rke2, true, "", ""), onGroup: true,
			note: "join the cluster https://rke2.internal:9345 with the labels and taints RKE2 registers in aws_launch_configuration.gpu's user data"},
		{name: "kubeadm join: KUBELET_EXTRA_ARGS", src: stack(kubeadm, false, "", ""), onGroup: true,
			note: "join the cluster 10.0.0.5:6443 with the labels and taints kubeadm join registers"},
		{name: "neither bootstraps a node nor is tagged", src: stack(`"#!/bin/bash\necho hi\n"`, false, "", ""), none: true},
		{name: "a label the kubelet refuses", src: stack(strings.ReplaceAll(al2, "workload=inference", "node-role.kubernetes.io/gpu=true"), false, "", toleration),
			note: "the labels and taints its nodes register with are not known", none: true, // its nodes never join
			err: "main.tf:5: aws_launch_template.gpu: user_data: line 3: bootstrap.sh --kubelet-extra-args: kubelet flag --node-labels: the kubelet refuses to start with node-role.kubernetes.io/gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			if !oneOrNone(res.Errors, tc.err) {
				t.Fatalf("errors %v, want %q", res.Errors, tc.err)
			}
			if !oneOrNone(res.Warnings, tc.warn) {
				t.Errorf("warnings %v, want %q", res.Warnings, tc.warn)
			}
			got := byAddress(t, res)
			group, infer := got["aws_autoscaling_group.gpu"], got["kubernetes_deployment_v1.infer"]
			if group.InstanceType != "g5.xlarge" || group.Quantity != 2 || infer.Pod == nil {
				t.Fatalf("resources %+v", got)
			}
			on := len(infer.Pod.NodeGroups) == 1 && infer.Pod.NodeGroups[0].Address == "aws_autoscaling_group.gpu"
			if on != tc.onGroup || infer.Pod.SharedReplicas != tc.replicas {
				t.Errorf("pods on the group %v, shared by %d; want %v, %d; notes %q", on, infer.Pod.SharedReplicas, tc.onGroup, tc.replicas, infer.Notes)
			}
			if on && infer.InstanceType != "g5.xlarge" {
				t.Errorf("the pods run on %q", infer.InstanceType)
			}
			if notes := strings.Join(append(group.Notes, infer.Notes...), "\n"); tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
			if (group.NodeLabels == nil) != tc.none {
				t.Errorf("node labels %+v", group.NodeLabels)
			}
			// Only what gpuguard cannot read leaves the group's labels open.
			if open := strings.Contains(tc.name, "any label may select it") || strings.Contains(tc.name, "does not bootstrap"); group.NodeLabels != nil && group.NodeLabels.Partial != open {
				t.Errorf("labels partly unknown %v, want %v", group.NodeLabels.Partial, open)
			}
		})
	}
}

// terraform-aws-modules/eks's self-managed node groups tag their Auto Scaling groups as the
// cluster's and write user data by ami_type: gpuguard's stand-in does both, so the labels in
// bootstrap_extra_args (AL2, Bottlerocket) or cloudinit_pre_nodeadm (AL2023) place the pods
// that select them. A custom user data template is not rendered: any label may select the group.
func TestSelfManagedEKSModule(t *testing.T) {
	call := func(version, group string) string {
		return `provider "aws" { region = "us-east-1" }
module "eks" {
  source  = "terraform-aws-modules/eks/aws"
  version = "` + version + `"
  ` + map[bool]string{true: `name = "ml"`, false: `cluster_name = "ml"`}[version == "~> 21.0"] + `
  self_managed_node_groups = {
    gpu = {
      instance_type = "g6.xlarge"
      min_size      = 2
      desired_size  = 2
      ` + group + `
    }
  }
}
` + inferDeployment(2, "")
	}
	const address = `module.eks.module.self_managed_node_group["gpu"].aws_autoscaling_group.this[0]`
	for _, tc := range []struct {
		name, src string
		partial   bool // the group's labels are not known
		note      string
	}{
		{name: "AL2023: a NodeConfig in cloudinit_pre_nodeadm", src: call("~> 21.0", `ami_type = "AL2023_x86_64_NVIDIA"
      cloudinit_pre_nodeadm = [{
        content_type = "application/node.eks.aws"
        content      = <<-EOT
          apiVersion: node.eks.aws/v1alpha1
          kind: NodeConfig
          spec:
            kubelet:
              flags:
                - --node-labels=workload=inference
        EOT
      }]`), note: "its nodes join the cluster ml with the labels and taints nodeadm's NodeConfig registers"},
		{name: "AL2: bootstrap_extra_args", src: call("~> 20.0", `ami_type = "AL2_x86_64_GPU"
      bootstrap_extra_args = "--kubelet-extra-args '--node-labels=workload=inference'"`), note: "with the labels and taints bootstrap.sh registers"},
		{name: "Bottlerocket: bootstrap_extra_args", src: call("~> 21.0", `ami_type = "BOTTLEROCKET_x86_64_NVIDIA"
      bootstrap_extra_args = <<-EOT
        [settings.kubernetes.node-labels]
        workload = "inference"
      EOT`), note: "with the labels and taints Bottlerocket's settings registers"},
		{name: "a cluster autoscaler tag names the label; the user data does not", src: call("~> 21.0", `ami_type = "AL2023_x86_64_NVIDIA"
      autoscaling_group_tags = { "k8s.io/cluster-autoscaler/node-template/label/workload" = "inference" }`)},
		{name: "a custom user data template", src: call("~> 21.0", `ami_type = "AL2023_x86_64_NVIDIA"
      user_data_template_path = "${path.module}/user-data.tpl"`), partial: true, note: "without user data gpuguard reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatal(res.Errors)
			}
			got := byAddress(t, res)
			group, infer := got[address], got["kubernetes_deployment_v1.infer"]
			if group.NodeLabels == nil || infer.Pod == nil {
				t.Fatalf("resources %+v", got)
			}
			if group.NodeLabels.Partial != tc.partial || !tc.partial && group.NodeLabels.Labels["workload"] != "inference" {
				t.Errorf("labels %+v", group.NodeLabels)
			}
			if len(infer.Pod.NodeGroups) != 1 || infer.InstanceType != "g6.xlarge" {
				t.Errorf("pods on %+v (%s); notes %q", infer.Pod.NodeGroups, infer.InstanceType, infer.Notes)
			}
			if notes := strings.Join(group.Notes, "\n"); !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}

// An EKS managed node group's nodes also register with the labels in its launch template's
// user data when EKS merges it (a NodeConfig, Bottlerocket settings) or the group boots its own
// image, whose bootstrap.sh the user data runs; with EKS's own AL2 image a bootstrap.sh call in
// the user data is not how the nodes join.
func TestManagedNodeGroupUserData(t *testing.T) {
	stack := func(amiType, launchTemplate string) string {
		return fmt.Sprintf(`provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "gpu" {
  name = "gpu"
  %s
}
resource "aws_eks_node_group" "gpu" {
  cluster_name    = "ml"
  node_group_name = "gpu"
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  %s
  instance_types  = ["g6.xlarge"]
  labels          = { team = "ml" }
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
resource "aws_eks_node_group" "train" {
  cluster_name    = "ml"
  node_group_name = "train"
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  instance_types  = ["p5.48xlarge"]
  labels          = { workload = "training" }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
%s`, launchTemplate, amiType, inferDeployment(1, ""))
	}
	const nodeConfig = `user_data = base64encode(<<-EOT
    MIME-Version: 1.0
    Content-Type: multipart/mixed; boundary="//"

    --//
    Content-Type: application/node.eks.aws

    apiVersion: node.eks.aws/v1alpha1
    kind: NodeConfig
    spec:
      kubelet:
        flags: ["--node-labels=workload=inference"]
    --//--
    EOT
  )`
	const script = `user_data = base64encode("#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args '--node-labels=workload=inference'\n")`
	for _, tc := range []struct {
		name, src string
		on        bool
	}{
		{"AL2023: EKS merges the NodeConfig", stack(`ami_type = "AL2023_x86_64_NVIDIA"`, nodeConfig), true},
		{"a custom AMI runs the user data's bootstrap.sh", stack("", `image_id = "ami-123"`+"\n  "+script), true},
		{"EKS's AL2 image: bootstrap.sh in the user data is not how nodes join", stack(`ami_type = "AL2_x86_64_GPU"`, script), false},
		{"a custom AMI that starts a k3s agent: not how EKS nodes join", stack("", `image_id = "ami-123"`+"\n  "+`user_data = base64encode("#!/bin/bash\nk3s agent --node-label workload=inference\n")`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatal(res.Errors)
			}
			got := byAddress(t, res)
			group, infer := got["aws_eks_node_group.gpu"], got["kubernetes_deployment_v1.infer"]
			if group.NodeLabels == nil || infer.Pod == nil {
				t.Fatalf("resources %+v", got)
			}
			on := len(infer.Pod.NodeGroups) == 1 && infer.Pod.NodeGroups[0].Address == "aws_eks_node_group.gpu"
			if on != tc.on || group.NodeLabels.Labels["team"] != "ml" || group.NodeLabels.Labels["eks.amazonaws.com/nodegroup"] != "gpu" {
				t.Errorf("pods on the group %v, want %v; labels %v; notes %q", on, tc.on, group.NodeLabels.Labels, infer.Notes)
			}
			if noted := strings.Contains(strings.Join(group.Notes, "\n"), "its nodes also register with the labels and taints in aws_launch_template.gpu's user data"); noted != tc.on {
				t.Errorf("notes %q", group.Notes)
			}
		})
	}
}

// oneOrNone says whether problems are none when want is "", else one that starts with want
// (file:line: message).
func oneOrNone(problems []parser.Error, want string) bool {
	if want == "" {
		return len(problems) == 0
	}
	return len(problems) == 1 && strings.HasPrefix(problems[0].Error(), want)
}

// inferDeployment is a Deployment of replicas pods of one GPU each that select
// workload=inference, with podSpec (a toleration, say) in their spec.
func inferDeployment(replicas int, podSpec string) string {
	return fmt.Sprintf(`resource "kubernetes_deployment_v1" "infer" {
  metadata { name = "infer" }
  spec {
    replicas = %d
    template {
      metadata {}
      spec {
        node_selector = { workload = "inference" }
        %s
        container {
          name = "c"
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}
`, replicas, podSpec)
}

// A label whose value a node's user data computes at boot (zone=$(...)) may hold any value: the
// group may carry any zone a pod selects (whether it does is not known, so the pod is not placed
// by it), whatever the cluster autoscaler's tag for the label says; the labels the user data
// does set still place pods, and those it does not set stay unset.
func TestSelfManagedNodeUnknownLabelValues(t *testing.T) {
	const script = `#!/bin/bash\nk3s agent --node-label workload=inference --node-label \"zone=$(cloud-init query availability_zone)\"\n`
	stack := func(tags, selector string) string {
		return fmt.Sprintf(`provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
  user_data     = base64encode("%s")
}
resource "aws_autoscaling_group" "gpu" {
  name             = "gpu"
  desired_capacity = 2
  min_size         = 0
  max_size         = 4
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
  %s
}
resource "aws_eks_node_group" "custom" {
  cluster_name    = "ml"
  node_group_name = "custom"
  node_role_arn   = "arn"
  subnet_ids      = ["s"]
  instance_types  = ["g6.xlarge"]
  labels          = { tier = "custom", zone = "us-east-1c", rack = "r1" }
  launch_template {
    id      = aws_launch_template.eks.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 1
  }
}
resource "aws_launch_template" "eks" {
  name     = "eks"
  image_id = "ami-123"
  user_data = base64encode("#!/bin/bash\n/etc/eks/bootstrap.sh ml --kubelet-extra-args \"--node-labels=zone=$ZONE\"\n")
}
resource "kubernetes_deployment_v1" "infer" {
  metadata { name = "infer" }
  spec {
    replicas = 1
    template {
      metadata {}
      spec {
        node_selector = %s
        container {
          name = "c"
          resources { limits = { "nvidia.com/gpu" = 1 } }
        }
      }
    }
  }
}`, script, tags, selector)
	}
	const caZone = `tag {
    key                 = "k8s.io/cluster-autoscaler/node-template/label/zone"
    value               = "us-east-1a"
    propagate_at_launch = false
  }`
	for _, tc := range []struct {
		name, tags, selector, on, why string
	}{
		{"the known labels place the pods", "", `{ workload = "inference" }`, "aws_autoscaling_group.gpu", ""},
		{"any zone may be the group's", "", `{ workload = "inference", zone = "us-east-1b" }`, "", "aws_autoscaling_group.gpu may carry it"},
		{"any zone, whatever the autoscaler's tag says", caZone, `{ workload = "inference", zone = "us-east-1b" }`, "", "aws_autoscaling_group.gpu may carry it"},
		{"a label the user data does not set", "", `{ workload = "inference", rack = "r2", zone = "us-east-1b" }`, "", "which none of the node groups read with it carries"},
		{"a managed group's custom AMI computes its zone too, over the group's label", "", `{ tier = "custom", zone = "us-east-1c" }`, "", "aws_eks_node_group.custom may carry it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, stack(tc.tags, tc.selector), Options{})
			if len(res.Errors) > 0 {
				t.Fatal(res.Errors)
			}
			got := byAddress(t, res)
			group, infer := got["aws_autoscaling_group.gpu"], got["kubernetes_deployment_v1.infer"]
			if group.NodeLabels == nil || infer.Pod == nil {
				t.Fatalf("resources %+v", got)
			}
			on := ""
			if len(infer.Pod.NodeGroups) == 1 {
				on = infer.Pod.NodeGroups[0].Address
			}
			why := ""
			for _, u := range infer.Unresolved {
				why += u.Reason
			}
			if on != tc.on || group.NodeLabels.Partial || !strings.Contains(why, tc.why) {
				t.Errorf("pods on %q, want %q; group labels %+v; unresolved %q, want %q", on, tc.on, group.NodeLabels, why, tc.why)
			}
			if !strings.Contains(strings.Join(group.Notes, "\n"), "the value of the label zone in aws_launch_template.gpu's user data is computed at boot") {
				t.Errorf("notes %q", group.Notes)
			}
		})
	}
}

// Compute Engine instance groups and instances, Azure scale sets and VMs, and EC2 instances
// that boot k3s, RKE2 or kubeadm nodes are node groups too: the texts they boot with (GCE's
// user-data and startup scripts, Azure's custom data, EC2 user data) register their labels and
// taints, and the pods that select them run there.
func TestBootNodeGroups(t *testing.T) {
	const k3sAgent = `k3s agent --server https://k3s.internal:6443 --node-label workload=inference`
	template := func(metadata string) string {
		return fmt.Sprintf(`provider "google" { region = "us-central1" }
resource "google_compute_instance_template" "gpu" {
  name_prefix  = "gpu-"
  machine_type = "g2-standard-4"
  disk { source_image = "ubuntu-os-cloud/ubuntu-2204-lts" }
  network_interface { network = "default" }
  scheduling { on_host_maintenance = "TERMINATE" }
  %s
}
`, metadata)
	}
	gce := func(metadata string) string {
		return template(metadata) + `resource "google_compute_instance_group_manager" "gpu" {
  name               = "gpu"
  zone               = "us-central1-a"
  base_instance_name = "gpu"
  target_size        = 2
  version { instance_template = google_compute_instance_template.gpu.id }
}
`
	}
	projectMetadata := func(body string) string {
		return "resource \"google_compute_project_metadata\" \"common\" {\n" + body + "\n}\n"
	}
	const rke2Config = `"user-data" = <<-EOT
    #cloud-config
    write_files:
      - path: /etc/rancher/rke2/config.yaml
        content: |
          server: https://rke2.internal:9345
          node-label: ["workload=inference"]
    EOT
  `
	azure := func(typ, extra string) string {
		return fmt.Sprintf(`provider "azurerm" {
  features {}
}
resource "%s" "gpu" {
  name                = "gpu"
  resource_group_name = "rg"
  location            = "eastus"
  admin_username      = "azureuser"
  %s
}
`, typ, extra)
	}
	const k3sInstall = `curl -sfL https://get.k3s.io | K3S_URL=https://k3s.internal:6443 sh -s - agent --node-label workload=inference`
	const k3sB64 = `base64encode("#!/bin/bash\n` + k3sInstall + `\n")`
	avmVM := func(extra string) string {
		return `module "vm" {
  source              = "Azure/avm-res-compute-virtualmachine/azurerm"
  name                = "gpu"
  location            = "eastus"
  resource_group_name = "rg"
  zone                = "1"
  os_type             = "Linux"
  sku_size            = "Standard_NC4as_T4_v3"
  ` + extra + `
}
`
	}
	avmVMSS := func(extra string) string {
		return `module "vmss" {
  source                      = "Azure/avm-res-compute-virtualmachinescaleset/azurerm"
  name                        = "gpu"
  location                    = "eastus"
  resource_group_name         = "rg"
  platform_fault_domain_count = 1
  sku_name                    = "Standard_NC4as_T4_v3"
  instances                   = 2
  ` + extra + `
}
`
	}
	vmssExt := func(settings string) string {
		return `resource "azurerm_virtual_machine_scale_set_extension" "k3s" {
  name                         = "k3s"
  virtual_machine_scale_set_id = azurerm_linux_virtual_machine_scale_set.gpu.id
  publisher                    = "Microsoft.Azure.Extensions"
  type                         = "CustomScript"
  type_handler_version         = "2.1"
  ` + settings + `
}
`
	}
	for _, tc := range []struct {
		name, src, group string
		none             bool   // no node group: the pods run nowhere known
		partial          bool   // some labels are not known
		note, err        string // a note of the group's, the one error
	}{
		{name: "a GCE startup script without #! runs k3s", group: "google_compute_instance_group_manager.gpu",
			src:  gce(`metadata = { "startup-script" = "` + k3sAgent + `" }`),
			note: "a self-managed node group: its nodes join the cluster https://k3s.internal:6443 with the labels and taints k3s registers in google_compute_instance_template.gpu's metadata"},
		{name: "cloud-init writes RKE2's configuration, the startup script starts it", group: "google_compute_instance_group_manager.gpu",
			src:  gce("metadata = {\n" + rke2Config + "\"startup-script\" = \"systemctl enable --now rke2-agent\"\n}"),
			note: "join the cluster https://rke2.internal:9345 with the labels and taints RKE2 registers"},
		{name: "metadata_startup_script runs kubeadm join", group: "google_compute_instance_group_manager.gpu",
			src:  gce(`metadata_startup_script = "echo 'KUBELET_EXTRA_ARGS=--node-labels=workload=inference' > /etc/default/kubelet\nkubeadm join 10.0.0.5:6443 --token abc.def\n"`),
			note: "with the labels and taints kubeadm join registers"},
		{name: "a startup script fetched at boot may add labels", group: "google_compute_instance_group_manager.gpu", partial: true,
			src:  gce(`metadata = { "startup-script" = "` + k3sAgent + `", "startup-script-url" = "gs://b/s.sh" }`),
			note: "metadata.startup-script-url of google_compute_instance_template.gpu cannot be read"},
		{name: "a startup script that starts no node", group: "google_compute_instance_group_manager.gpu", none: true,
			src: gce(`metadata = { "startup-script" = "apt-get install -y nvidia-driver-550" }`)},
		{name: "a label k3s's kubelet refuses", group: "google_compute_instance_group_manager.gpu", none: true,
			src:  gce(`metadata = { "startup-script" = "k3s agent --node-label node-role.kubernetes.io/gpu=true" }`),
			note: "google_compute_instance_template.gpu's metadata cannot be read",
			err:  "main.tf:2: google_compute_instance_template.gpu: metadata.startup-script: line 1: k3s: "},
		{name: "the project's startup script", group: "google_compute_instance_group_manager.gpu",
			src:  gce("") + projectMetadata(`metadata = { "startup-script" = "`+k3sAgent+`" }`),
			note: "a self-managed node group: its nodes join the cluster https://k3s.internal:6443 with the labels and taints k3s registers in google_compute_project_metadata.common's project metadata"},
		{name: "a project metadata item", group: "google_compute_instance_group_manager.gpu",
			src: gce(`metadata = { "user-data" = "#cloud-config\nwrite_files:\n  - path: /etc/rancher/k3s/config.yaml\n    content: |\n      node-label: [workload=inference]\n" }`) + `
resource "google_compute_project_metadata_item" "startup" {
  key   = "startup-script"
  value = "k3s agent --server https://k3s.internal:6443"
}
`,
			note: "registers in google_compute_instance_template.gpu's metadata and google_compute_project_metadata_item.startup's startup-script"},
		{name: "the instance's startup script replaces the project's", group: "google_compute_instance_group_manager.gpu", none: true,
			src: gce(`metadata = { "startup-script-url" = "gs://b/s.sh" }`) + projectMetadata(`metadata = { "startup-script" = "`+k3sAgent+`" }`)},
		{name: "an empty startup script is none", group: "google_compute_instance_group_manager.gpu",
			src:  gce(`metadata_startup_script = ""`) + projectMetadata(`metadata = { "startup-script" = "`+k3sAgent+`" }`),
			note: "k3s registers in google_compute_instance_template.gpu's metadata and google_compute_project_metadata.common's project metadata"},
		{name: "another project's metadata", group: "google_compute_instance_group_manager.gpu", none: true,
			src: strings.Replace(gce(""), `name_prefix  = "gpu-"`, `name_prefix  = "gpu-"`+"\n  project = \"ml\"", 1) + projectMetadata(`project = "web"`+"\n"+`metadata = { "startup-script" = "`+k3sAgent+`" }`)},
		{name: "the project's startup-script-url may add labels", group: "google_compute_instance_group_manager.gpu", partial: true,
			src: strings.Replace(gce(""), `name_prefix  = "gpu-"`, `name_prefix  = "gpu-"`+"\n  project = \"ml\"", 1) +
				projectMetadata(`project = "ml"`+"\n"+`metadata = { "startup-script" = "`+k3sAgent+`", "startup-script-url" = "gs://b/more.sh" }`),
			note: "metadata.startup-script-url of google_compute_project_metadata.common cannot be read"},
		{name: "a project metadata item's startup-script-url may add labels", group: "google_compute_instance_group_manager.gpu", partial: true,
			src: gce("") + `
resource "google_compute_project_metadata_item" "startup" {
  key   = "startup-script"
  value = "` + k3sAgent + `"
}
resource "google_compute_project_metadata_item" "url" {
  key   = "startup-script-url"
  value = "gs://b/more.sh"
}
`,
			note: "value of google_compute_project_metadata_item.url cannot be read"},
		{name: "an instance from a template not in the configuration boots with the project's script", group: "google_compute_instance_from_template.gpu",
			src: `provider "google" { region = "us-central1" }
resource "google_compute_instance_from_template" "gpu" {
  name                     = "one"
  zone                     = "us-central1-a"
  source_instance_template = "projects/p/global/instanceTemplates/gpu"
  machine_type             = "g2-standard-4"
}
` + projectMetadata(`metadata = { "startup-script" = "`+k3sAgent+`" }`),
			note: "a self-managed Kubernetes node: it joins the cluster https://k3s.internal:6443 with the labels and taints k3s registers in google_compute_project_metadata.common's project metadata"},
		{name: "an error in the project's startup script is the project metadata's", group: "google_compute_instance_group_manager.gpu", none: true,
			src:  gce("") + projectMetadata(`metadata = { "startup-script" = "k3s agent --node-taint gpu=true:Sometimes" }`),
			note: "google_compute_project_metadata.common's project metadata cannot be read",
			err:  "main.tf:17: google_compute_project_metadata.common: metadata.startup-script: line 1: k3s: "},
		{name: "the project's startup script, set above the modules", group: "module.mig.google_compute_region_instance_group_manager.mig",
			src: projectMetadata(`metadata = { "startup-script" = "`+k3sAgent+`" }`) + `
module "tpl" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  region       = "us-central1"
  machine_type = "g2-standard-4"
}
module "mig" {
  source            = "terraform-google-modules/vm/google//modules/mig"
  region            = "us-central1"
  instance_template = module.tpl.self_link
  target_size       = 2
}
`,
			note: "k3s registers in google_compute_project_metadata.common's project metadata"},
		{name: "one GCE instance", group: "google_compute_instance.gpu",
			src: `provider "google" { region = "us-central1" }
resource "google_compute_instance" "gpu" {
  name         = "gpu"
  zone         = "us-central1-a"
  machine_type = "g2-standard-4"
  boot_disk {
    initialize_params { image = "ubuntu-os-cloud/ubuntu-2204-lts" }
  }
  network_interface { network = "default" }
  metadata_startup_script = "` + k3sAgent + `"
}
`,
			note: "a self-managed Kubernetes node: it joins the cluster https://k3s.internal:6443 with the labels and taints k3s registers in google_compute_instance.gpu's metadata"},
		{name: "a GCE instance from a template boots with the template's metadata", group: "google_compute_instance_from_template.gpu",
			src: template(`metadata = { "startup-script" = "`+k3sAgent+`" }`) + `
resource "google_compute_instance_from_template" "gpu" {
  name                     = "one"
  zone                     = "us-central1-a"
  source_instance_template = google_compute_instance_template.gpu.self_link_unique
}
`,
			note: "registers in google_compute_instance_template.gpu's metadata"},
		{name: "a GCE instance's own metadata replaces its template's", group: "google_compute_instance_from_template.gpu", none: true,
			src: template(`metadata = { "startup-script" = "`+k3sAgent+`" }`) + `
resource "google_compute_instance_from_template" "gpu" {
  name                     = "one"
  zone                     = "us-central1-a"
  source_instance_template = google_compute_instance_template.gpu.self_link_unique
  metadata                 = { "startup-script" = "nvidia-smi" }
}
`},
		{name: "the Google VM modules: the template's startup_script", group: "module.mig.google_compute_region_instance_group_manager.mig",
			src: `provider "google" { region = "us-central1" }
module "tpl" {
  source         = "terraform-google-modules/vm/google//modules/instance_template"
  region         = "us-central1"
  machine_type   = "g2-standard-4"
  startup_script = "` + k3sAgent + `"
}
module "mig" {
  source            = "terraform-google-modules/vm/google//modules/mig"
  region            = "us-central1"
  instance_template = module.tpl.self_link
  target_size       = 2
}
`,
			note: "k3s registers in module.tpl.google_compute_instance_template.tpl's metadata"},
		{name: "an Azure scale set's custom data", group: "azurerm_linux_virtual_machine_scale_set.gpu",
			src:  azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2\n  custom_data = "+k3sB64),
			note: "a self-managed node group: its nodes join the cluster https://k3s.internal:6443 with the labels and taints k3s registers in azurerm_linux_virtual_machine_scale_set.gpu's custom data"},
		{name: "a Windows scale set runs no cloud-init", group: "azurerm_windows_virtual_machine_scale_set.gpu", none: true,
			src: azure("azurerm_windows_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2\n  custom_data = "+k3sB64)},
		{name: "the deprecated scale set's os_profile", group: "azurerm_virtual_machine_scale_set.gpu",
			src:  azure("azurerm_virtual_machine_scale_set", "sku {\n    name = \"Standard_NC4as_T4_v3\"\n    capacity = 2\n  }\n  os_profile {\n    computer_name_prefix = \"gpu\"\n    admin_username = \"a\"\n    custom_data = \"#!/bin/bash\\n"+k3sAgent+"\\n\"\n  }"),
			note: "k3s registers in azurerm_virtual_machine_scale_set.gpu's custom data"},
		{name: "one Azure VM", group: "azurerm_linux_virtual_machine.gpu",
			src:  azure("azurerm_linux_virtual_machine", "size = \"Standard_NC4as_T4_v3\"\n  custom_data = "+k3sB64),
			note: "a self-managed Kubernetes node: it joins the cluster"},
		{name: "an ARM scale set's customData", group: "azapi_resource.gpu",
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = {
    sku = { name = "Standard_NC4as_T4_v3", capacity = 2 }
    properties = { virtualMachineProfile = { osProfile = { customData = ` + k3sB64 + ` } } }
  }
}
`,
			note: "k3s registers in azapi_resource.gpu's customData"},
		{name: "a scale set extension's commandToExecute", group: "azurerm_linux_virtual_machine_scale_set.gpu",
			src:  azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2") + vmssExt(`settings = jsonencode({ commandToExecute = "`+k3sInstall+`" })`),
			note: "a self-managed node group: its nodes join the cluster https://k3s.internal:6443 with the labels and taints k3s registers in azurerm_virtual_machine_scale_set_extension.k3s's custom script"},
		{name: "the retired CustomScriptForLinux", group: "azurerm_linux_virtual_machine_scale_set.gpu",
			src: azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2") + strings.Replace(strings.Replace(vmssExt(`settings = jsonencode({ commandToExecute = "`+k3sInstall+`" })`),
				"Microsoft.Azure.Extensions", "Microsoft.OSTCExtensions", 1), `"CustomScript"`, `"CustomScriptForLinux"`, 1),
			note: "k3s registers in azurerm_virtual_machine_scale_set_extension.k3s's custom script"},
		{name: "an extension that runs no script", group: "azurerm_linux_virtual_machine_scale_set.gpu", none: true,
			src: azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2") +
				strings.Replace(vmssExt(`settings = jsonencode({ commandToExecute = "`+k3sInstall+`" })`), `"CustomScript"`, `"NvidiaGpuDriverLinux"`, 1)},
		{name: "an extension block's protected script", group: "azurerm_linux_virtual_machine_scale_set.gpu",
			src:  azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2\n  extension {\n    name = \"k3s\"\n    publisher = \"Microsoft.Azure.Extensions\"\n    type = \"CustomScript\"\n    type_handler_version = \"2.1\"\n    protected_settings = jsonencode({ script = "+k3sB64+" })\n  }"),
			note: "k3s registers in azurerm_linux_virtual_machine_scale_set.gpu's extension k3s"},
		{name: "custom data writes the configuration, the extension starts k3s", group: "azurerm_linux_virtual_machine_scale_set.gpu",
			src: azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2\n  custom_data = base64encode(\"#cloud-config\\nwrite_files:\\n  - path: /etc/rancher/k3s/config.yaml\\n    content: |\\n      node-label: [workload=inference]\\n\")") +
				vmssExt(`settings = jsonencode({ commandToExecute = "curl -sfL https://get.k3s.io | K3S_URL=https://k3s.internal:6443 sh -s - agent" })`),
			note: "registers in azurerm_linux_virtual_machine_scale_set.gpu's custom data and azurerm_virtual_machine_scale_set_extension.k3s's custom script"},
		{name: "an extension's downloaded files may add labels", group: "azurerm_linux_virtual_machine_scale_set.gpu", partial: true,
			src:  azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2") + vmssExt(`settings = jsonencode({ fileUris = ["https://x/gpu.sh"], commandToExecute = "`+k3sInstall+` && sh gpu.sh" })`),
			note: "settings.fileUris of azurerm_virtual_machine_scale_set_extension.k3s cannot be read"},
		{name: "an error in an extension is the extension's", group: "azurerm_linux_virtual_machine_scale_set.gpu", none: true,
			src:  azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2") + vmssExt(`settings = jsonencode({ commandToExecute = "k3s agent --node-taint gpu=true:Sometimes" })`),
			note: "azurerm_virtual_machine_scale_set_extension.k3s's custom script cannot be read",
			err:  "main.tf:12: azurerm_virtual_machine_scale_set_extension.k3s: settings.commandToExecute: line 1: k3s: "},
		{name: "an extension's settings known only at apply", group: "azurerm_linux_virtual_machine_scale_set.gpu", partial: true,
			src: azure("azurerm_linux_virtual_machine_scale_set", "sku = \"Standard_NC4as_T4_v3\"\n  instances = 2\n  custom_data = "+k3sB64) +
				vmssExt(`settings = jsonencode({ commandToExecute = "echo ${azurerm_linux_virtual_machine_scale_set.gpu.unique_id}" })`),
			note: "settings of azurerm_virtual_machine_scale_set_extension.k3s cannot be read"},
		{name: "an ARM extension's command known only at apply", group: "azapi_resource.gpu", partial: true,
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = {
    sku = { name = "Standard_NC4as_T4_v3", capacity = 2 }
    properties = { virtualMachineProfile = {
      osProfile = { customData = ` + k3sB64 + ` }
      extensionProfile = { extensions = [{ name = "id", properties = {
        publisher = "Microsoft.Azure.Extensions", type = "CustomScript"
        settings = { commandToExecute = "echo ${azapi_resource.other.id}" }
      } }] }
    } }
  }
}
resource "azapi_resource" "other" {
  type      = "Microsoft.Resources/resourceGroups@2024-03-01"
  name      = "other"
  location  = "eastus"
  parent_id = "/subscriptions/s"
}
`,
			note: "body.properties.virtualMachineProfile.extensionProfile.extensions[id].properties.settings.commandToExecute of azapi_resource.gpu cannot be read"},
		{name: "a sensitive_body null removes the body's customData", group: "azapi_resource.gpu", none: true,
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachines@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = {
    properties = { hardwareProfile = { vmSize = "Standard_NC4as_T4_v3" }, osProfile = { customData = ` + k3sB64 + ` } }
  }
  sensitive_body = {
    properties = { osProfile = { customData = null } }
  }
}
`},
		{name: "a VM extension", group: "azurerm_linux_virtual_machine.gpu",
			src: azure("azurerm_linux_virtual_machine", "size = \"Standard_NC4as_T4_v3\"") + `resource "azurerm_virtual_machine_extension" "k3s" {
  name                 = "k3s"
  virtual_machine_id   = azurerm_linux_virtual_machine.gpu.id
  publisher            = "Microsoft.Azure.Extensions"
  type                 = "CustomScript"
  type_handler_version = "2.1"
  protected_settings   = <<-JSON
    {"commandToExecute": "` + k3sInstall + `"}
  JSON
}
`,
			note: "a self-managed Kubernetes node: it joins the cluster https://k3s.internal:6443 with the labels and taints k3s registers in azurerm_virtual_machine_extension.k3s's custom script"},
		{name: "an ARM scale set's extension profile", group: "azapi_resource.gpu",
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = {
    sku = { name = "Standard_NC4as_T4_v3", capacity = 2 }
    properties = { virtualMachineProfile = { extensionProfile = { extensions = [{ name = "k3s", properties = {
      publisher = "Microsoft.Azure.Extensions", type = "CustomScript", typeHandlerVersion = "2.1"
      settings = { commandToExecute = "` + k3sInstall + `" }
    } }] } } }
  }
}
`,
			note: "k3s registers in azapi_resource.gpu's extension k3s"},
		{name: "an ARM VM's customData in its sensitive_body", group: "azapi_resource.gpu",
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachines@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = {
    properties = { hardwareProfile = { vmSize = "Standard_NC4as_T4_v3" }, osProfile = { computerName = "gpu" } }
  }
  sensitive_body = {
    properties = { osProfile = { customData = ` + k3sB64 + ` } }
  }
}
`,
			note: "a self-managed Kubernetes node: it joins the cluster https://k3s.internal:6443 with the labels and taints k3s registers in azapi_resource.gpu's customData"},
		{name: "an ARM extension resource's protectedSettings", group: "azapi_resource.gpu",
			src: `resource "azapi_resource" "gpu" {
  type      = "Microsoft.Compute/virtualMachineScaleSets@2024-07-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/s/resourceGroups/rg"
  body = { sku = { name = "Standard_NC4as_T4_v3", capacity = 2 } }
}
resource "azapi_resource" "k3s" {
  type      = "Microsoft.Compute/virtualMachineScaleSets/extensions@2024-07-01"
  name      = "k3s"
  parent_id = azapi_resource.gpu.id
  body = { properties = { publisher = "Microsoft.Azure.Extensions", type = "CustomScript", typeHandlerVersion = "2.1" } }
  sensitive_body = { properties = { protectedSettings = { commandToExecute = "` + k3sInstall + `" } } }
}
`,
			note: "k3s registers in azapi_resource.k3s's custom script"},
		{name: "Azure Verified Modules' VM: custom_data", group: "module.vm.azurerm_linux_virtual_machine.this[0]",
			src:  avmVM("custom_data = " + k3sB64),
			note: "k3s registers in module.vm.azurerm_linux_virtual_machine.this[0]'s custom data"},
		{name: "Azure Verified Modules' VM, AzAPI release: custom_data", group: "module.vm.azapi_resource.this_linux_virtual_machine[0]",
			src:  avmVM("retry = {}\n  custom_data = " + k3sB64),
			note: "k3s registers in module.vm.azapi_resource.this_linux_virtual_machine[0]'s customData"},
		{name: "Azure Verified Modules' VM: an extension", group: "module.vm.azapi_resource.this_linux_virtual_machine[0]",
			src:  avmVM(`retry = {}` + "\n" + `extensions = { k3s = { name = "k3s", publisher = "Microsoft.Azure.Extensions", type = "CustomScript", protected_settings = jsonencode({ commandToExecute = "` + k3sInstall + `" }) } }`),
			note: `k3s registers in module.vm.azurerm_virtual_machine_extension.this_extension["k3s"]'s custom script`},
		{name: "Azure Verified Modules' scale set: os_profile's custom data", group: "module.vmss.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set",
			src:  avmVMSS("os_profile = { custom_data = " + k3sB64 + ", linux_configuration = { admin_username = \"azureuser\" } }"),
			note: "k3s registers in module.vmss.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set's custom data"},
		{name: "Azure Verified Modules' Windows scale set", group: "module.vmss.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set", none: true,
			src: avmVMSS("os_profile = { custom_data = " + k3sB64 + ", windows_configuration = { admin_username = \"azureuser\" } }")},
		{name: "Azure Verified Modules' scale set: an extension's protected setting", group: "module.vmss.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set",
			src: avmVMSS(`os_profile = { linux_configuration = { admin_username = "azureuser" } }
  extension = [{ name = "k3s", publisher = "Microsoft.Azure.Extensions", type = "CustomScript", type_handler_version = "2.1" }, { name = "nvidia", publisher = "Microsoft.HpcCompute", type = "NvidiaGpuDriverLinux" }]
  extension_protected_setting = { k3s = jsonencode({ commandToExecute = "` + k3sInstall + `" }) }`),
			note: "k3s registers in module.vmss.azurerm_orchestrated_virtual_machine_scale_set.virtual_machine_scale_set's extension k3s"},
		{name: "an EC2 instance's user data", group: "aws_instance.gpu",
			src: `provider "aws" { region = "us-east-1" }
resource "aws_instance" "gpu" {
  ami           = "ami-123"
  instance_type = "g5.xlarge"
  user_data     = "#!/bin/bash\n` + k3sAgent + `\n"
}
`,
			note: "a self-managed Kubernetes node: it joins the cluster https://k3s.internal:6443 with the labels and taints k3s registers in aws_instance.gpu's user data"},
		{name: "an EC2 instance boots with its launch template's user data", group: "aws_instance.gpu",
			src: `provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
  user_data     = ` + k3sB64 + `
}
resource "aws_instance" "gpu" {
  launch_template {
    id = aws_launch_template.gpu.id
  }
}
`,
			note: "registers in aws_launch_template.gpu's user data"},
		{name: "an EC2 instance's own user data replaces its launch template's", group: "aws_instance.gpu", none: true,
			src: `provider "aws" { region = "us-east-1" }
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
  user_data     = ` + k3sB64 + `
}
resource "aws_instance" "gpu" {
  user_data = "#!/bin/bash\nnvidia-smi\n"
  launch_template {
    id = aws_launch_template.gpu.id
  }
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src+inferDeployment(2, ""), Options{})
			if !oneOrNone(res.Errors, tc.err) {
				t.Fatalf("errors %v, want %q", res.Errors, tc.err)
			}
			got := byAddress(t, res)
			group, infer := got[tc.group], got["kubernetes_deployment_v1.infer"]
			if group.Address == "" || infer.Pod == nil {
				t.Fatalf("resources %+v", got)
			}
			if (group.NodeLabels == nil) != tc.none {
				t.Fatalf("node labels %+v; notes %q", group.NodeLabels, group.Notes)
			}
			on := len(infer.Pod.NodeGroups) == 1 && infer.Pod.NodeGroups[0].Address == tc.group
			if on == tc.none || on && infer.InstanceType != group.InstanceType {
				t.Errorf("pods on the group %v (%q); want %v; notes %q", on, infer.InstanceType, !tc.none, infer.Notes)
			}
			if nl := group.NodeLabels; nl != nil && (nl.Labels["workload"] != "inference" || nl.Partial != tc.partial) {
				t.Errorf("node labels %+v, want workload=inference, partly unknown %v", nl, tc.partial)
			}
			if notes := strings.Join(group.Notes, "\n"); tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
		})
	}
}
