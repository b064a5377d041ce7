package terraform

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
)

// asgTagResource is an aws_autoscaling_group_tag naming its group by expr.
func asgTagResource(name, meta, expr, key, value string, propagate bool) string {
	p := "false"
	if propagate {
		p = "true"
	}
	return `resource "aws_autoscaling_group_tag" "` + name + `" {
  ` + meta + `
  autoscaling_group_name = ` + expr + `
  tag {
    key                 = "` + key + `"
    value               = ` + value + `
    propagate_at_launch = ` + p + `
  }
}
`
}

// An EKS managed node group's own tags reach neither the Auto Scaling group EKS creates for it
// nor its instances: an aws_autoscaling_group_tag over the group's resources that propagates at
// launch tags the instances, which is what cost reports allocate by. The usual for_each over
// those groups' names is known only after apply; it still tags this node group, and no other.
func TestAutoScalingGroupTagOnEKSNodeGroup(t *testing.T) {
	group := func(name string) string {
		return `resource "aws_eks_node_group" "` + name + `" {
  cluster_name    = "ml"
  node_group_name = "` + name + `"
  node_role_arn   = "arn:aws:iam::1:role/n"
  subnet_ids      = ["s-1"]
  instance_types  = ["g5.xlarge"]
  scaling_config {
    desired_size = 2
    max_size     = 4
    min_size     = 0
  }
}
`
	}
	src := `provider "aws" { region = "us-east-1" }
` + group("gpu") + group("other") +
		asgTagResource("team", `for_each = toset([for asg in flatten([for r in aws_eks_node_group.gpu.resources : r.autoscaling_groups]) : asg.name])`, "each.value", "team", `"ml"`, true) +
		asgTagResource("project", "", "aws_eks_node_group.gpu.resources[0].autoscaling_groups[0].name", "project", `"chat"`, true) +
		asgTagResource("ca", "", "aws_eks_node_group.gpu.resources[0].autoscaling_groups[0].name", "k8s.io/cluster-autoscaler/node-template/label/workload", `"inference"`, false)
	res := parseHCL(t, src, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %v, warnings %v", res.Errors, res.Warnings)
	}
	got := byAddress(t, res)
	gpu, other := got["aws_eks_node_group.gpu"], got["aws_eks_node_group.other"]
	if gpu.Tags["team"] != "ml" || gpu.Tags["project"] != "chat" {
		t.Errorf("tags %v, want team=ml and project=chat", gpu.Tags)
	}
	if _, ok := gpu.Tags["k8s.io/cluster-autoscaler/node-template/label/workload"]; ok {
		t.Errorf("a tag that does not propagate at launch reached the instances: %v", gpu.Tags)
	}
	if len(other.Tags) != 0 {
		t.Errorf("the other node group took the tags: %v", other.Tags)
	}
	notes := strings.Join(gpu.Notes, "\n")
	for _, want := range []string{
		"aws_autoscaling_group_tag.team tags its Auto Scaling group with team (and its instances)",
		"aws_autoscaling_group_tag.ca tags its Auto Scaling group with k8s.io/cluster-autoscaler/node-template/label/workload\n",
	} {
		if !strings.Contains(notes+"\n", want) {
			t.Errorf("notes %q, want %q", notes, want)
		}
	}
	// A managed group's labels are EKS's: an autoscaler tag does not add to them.
	if gpu.NodeLabels == nil || gpu.NodeLabels.Labels["workload"] != "" {
		t.Errorf("node labels %+v", gpu.NodeLabels)
	}
}

// A self-managed node group's tags may come from aws_autoscaling_group_tag resources: named by
// the group's name or by reference, in this module or from outside the module that declares the
// group. They say the group is a cluster's, and give its nodes' labels to the cluster
// autoscaler, as the group's own tags do; those that propagate at launch tag its instances.
func TestAutoScalingGroupTagOnSelfManagedGroup(t *testing.T) {
	const launch = `resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.xlarge"
  user_data     = base64encode("#!/bin/bash\necho hi\n")
}
`
	asg := func(name, meta, tags string) string {
		return `resource "aws_autoscaling_group" "` + name + `" {
  ` + meta + `
  desired_capacity = 2
  min_size         = 0
  max_size         = 4
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
  ` + tags + `
}
`
	}
	const ownTeam = `tag {
    key                 = "team"
    value               = "platform"
    propagate_at_launch = true
  }`
	clusterTag := func(expr string) string {
		return asgTagResource("cluster", "", expr, "kubernetes.io/cluster/ml", `"owned"`, true) +
			asgTagResource("label", "", expr, "k8s.io/cluster-autoscaler/node-template/label/workload", `"inference"`, false)
	}
	for _, tc := range []struct {
		name, src   string
		group       string // its address
		tags        map[string]string
		note        string
		notAGroup   []string // Auto Scaling groups that stay plain fleets
		placedCount int      // groups the Deployment's pods run on
	}{
		{name: "by the group's name", group: "aws_autoscaling_group.gpu",
			src:  launch + asg("gpu", `name = "gpu-nodes"`, "") + clusterTag(`"gpu-nodes"`) + asg("plain", `name = "plain"`, ""),
			tags: map[string]string{"kubernetes.io/cluster/ml": "owned"}, notAGroup: []string{"aws_autoscaling_group.plain"}, placedCount: 1,
			note: "aws_autoscaling_group_tag.label tags its Auto Scaling group with k8s.io/cluster-autoscaler/node-template/label/workload"},
		{name: "by reference to a name known at apply", group: "aws_autoscaling_group.gpu",
			src:  launch + asg("gpu", `name_prefix = "gpu-"`, "") + clusterTag("aws_autoscaling_group.gpu.name"),
			tags: map[string]string{"kubernetes.io/cluster/ml": "owned"}, placedCount: 1},
		{name: "the tag resource's value wins over the group's own", group: "aws_autoscaling_group.gpu",
			src:  launch + asg("gpu", `name = "gpu"`, ownTeam) + asgTagResource("team", "", "aws_autoscaling_group.gpu.name", "team", `"ml"`, true),
			tags: map[string]string{"team": "ml"},
			note: `aws_autoscaling_group_tag.team sets the group's tag team to "ml", over "platform" where the group sets it`},
		{name: "a tag that does not propagate stays on the group", group: "aws_autoscaling_group.gpu",
			src:  launch + asg("gpu", `name = "gpu"`, ownTeam) + asgTagResource("cost", "", `"gpu"`, "cost-center", `"42"`, false),
			tags: map[string]string{"team": "platform"}},
		{name: "counted groups each take their own instance's tag", group: "aws_autoscaling_group.gpu[1]",
			src: launch + asg("gpu", `count = 2`, "") +
				asgTagResource("team", "count = 2", "aws_autoscaling_group.gpu[count.index].id", "team", `"team-${count.index}"`, true),
			tags: map[string]string{"team": "team-1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, `provider "aws" { region = "us-east-1" }
`+tc.src+inferDeployment(4, ""), Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			got := byAddress(t, res)
			g, ok := got[tc.group]
			if !ok {
				t.Fatalf("no %s in %v", tc.group, got)
			}
			for k, v := range tc.tags {
				if g.Tags[k] != v {
					t.Errorf("tag %s = %q, want %q (tags %v)", k, g.Tags[k], v, g.Tags)
				}
			}
			if _, ok := g.Tags["cost-center"]; ok || len(g.Tags) != len(tc.tags) {
				t.Errorf("tags %v, want %v", g.Tags, tc.tags)
			}
			if notes := strings.Join(g.Notes, "\n"); tc.note != "" && !strings.Contains(notes, tc.note) {
				t.Errorf("notes %q, want %q", notes, tc.note)
			}
			for _, addr := range tc.notAGroup {
				if got[addr].NodeLabels != nil {
					t.Errorf("%s became a node group: %+v", addr, got[addr].NodeLabels)
				}
			}
			infer := got["kubernetes_deployment_v1.infer"]
			if infer.Pod == nil || len(infer.Pod.NodeGroups) != tc.placedCount {
				t.Fatalf("the pods run on %+v, want %d group(s); notes %q", infer.Pod, tc.placedCount, infer.Notes)
			}
			if tc.placedCount == 1 && (infer.Pod.NodeGroups[0].Address != tc.group || g.NodeLabels == nil || g.NodeLabels.Labels["workload"] != "inference") {
				t.Errorf("the pods run on %+v; the group's labels %+v", infer.Pod.NodeGroups, g.NodeLabels)
			}
		})
	}
}

// A module's Auto Scaling group tagged from the root module, through the module's output.
func TestAutoScalingGroupTagAcrossModules(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.tf": `provider "aws" { region = "us-east-1" }
module "nodes" {
  source = "./modules/nodes"
}
` + asgTagResource("team", "", "module.nodes.group_name", "team", `"ml"`, true) + inferDeployment(1, ""),
		"modules/nodes/main.tf": `resource "aws_autoscaling_group" "this" {
  name_prefix      = "gpu-"
  desired_capacity = 1
  min_size         = 1
  max_size         = 1
  launch_template {
    id      = aws_launch_template.this.id
    version = "$Latest"
  }
}
resource "aws_launch_template" "this" {
  name_prefix   = "gpu-"
  instance_type = "g6.xlarge"
}
output "group_name" { value = aws_autoscaling_group.this.name }
`,
	})
	res := ParseModule(dir, []string{filepath.Join(dir, "main.tf")}, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	g := byAddress(t, res)["module.nodes.aws_autoscaling_group.this"]
	if g.Tags["team"] != "ml" {
		t.Errorf("tags %v, want team=ml; notes %q", g.Tags, g.Notes)
	}
	// A cost tag alone does not make the group a cluster's.
	if g.NodeLabels != nil {
		t.Errorf("node labels %+v", g.NodeLabels)
	}
}

// terraform-aws-modules/eks's outputs name the Auto Scaling groups of its node groups: the
// stand-in models them, so the module's documented pattern of tagging those groups (a for_each
// over the names, known only at apply, or a map built from eks_managed_node_groups) tags the
// groups the outputs come from, and no others.
func TestAutoScalingGroupTagThroughEKSModuleOutputs(t *testing.T) {
	src := eksModule(`labels = { workload = "inference" }`, "") + `locals {
  label_tags = merge([
    for name, group in module.eks.eks_managed_node_groups : {
      for k, v in group.node_group_labels : "${name}|${k}" => {
        group = group.node_group_autoscaling_group_names[0]
        key   = "k8s.io/cluster-autoscaler/node-template/label/${k}"
        value = v
      }
    }
  ]...)
}
resource "aws_autoscaling_group_tag" "labels" {
  for_each               = local.label_tags
  autoscaling_group_name = each.value.group
  tag {
    key                 = each.value.key
    value               = each.value.value
    propagate_at_launch = false
  }
}
` + asgTagResource("team", `for_each = toset([for n in module.eks.eks_managed_node_groups["gpu"].node_group_autoscaling_group_names : n])`, "each.value", "team", `"ml"`, true) +
		asgTagResource("project", "for_each = toset(module.eks.self_managed_node_groups_autoscaling_group_names)", "each.value", "project", `"chat"`, true)
	res := parseHCL(t, src, Options{})
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	got := byAddress(t, res)
	managed := got[`module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`]
	self := got[`module.eks.module.self_managed_node_group["sgpu"].aws_autoscaling_group.this[0]`]
	if managed.Tags["team"] != "ml" || managed.Tags["project"] != "" {
		t.Errorf("managed group's tags %v, want team=ml alone", managed.Tags)
	}
	if self.Tags["project"] != "chat" || self.Tags["team"] != "" {
		t.Errorf("self-managed group's tags %v, want project=chat alone", self.Tags)
	}
	if notes := strings.Join(managed.Notes, "\n"); !strings.Contains(notes, `aws_autoscaling_group_tag.labels["gpu|workload"] tags its Auto Scaling group with k8s.io/cluster-autoscaler/node-template/label/workload`) {
		t.Errorf("notes %q", notes)
	}
}

// eksModule calls terraform-aws-modules/eks v20 (read through gpuguard's stand-in) for cluster
// ml, with a managed node group gpu of g5.xlarge and a self-managed one sgpu of g6.xlarge, each
// given the attribute lines managed and selfManaged.
func eksModule(managed, selfManaged string) string {
	return `provider "aws" { region = "us-east-1" }
module "eks" {
  source       = "terraform-aws-modules/eks/aws"
  version      = "~> 20.0"
  cluster_name = "ml"
  eks_managed_node_groups = {
    gpu = {
      instance_types = ["g5.xlarge"]
      ` + managed + `
    }
  }
  self_managed_node_groups = {
    sgpu = {
      instance_type = "g6.xlarge"
      ` + selfManaged + `
    }
  }
}
`
}
