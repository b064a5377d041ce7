package check

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// A Deployment beside Terraform that selects a label two EKS node groups of one kind carry (a
// group per zone) counts within both: the total is the groups at their floor when the pods fit
// them, and no more than both groups' maximums when they do not; both groups carry the same
// summary of the pods' needs.
func TestCheckCountsPodsWithinTheNodeGroupsTheyShare(t *testing.T) {
	group := func(name string) string {
		return `resource "aws_eks_node_group" "` + name + `" {
  cluster_name    = "ml"
  node_group_name = "` + name + `"
  instance_types  = ["g6.xlarge"]
  labels          = { gpu = "l4" }
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 2
  }
}
`
	}
	deployment := func(replicas string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: chat, namespace: ml}\nspec:\n  replicas: " + replicas +
			"\n  template:\n    spec:\n      nodeSelector: {gpu: l4}\n      containers:\n        - name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n"
	}
	cat := catalog.MustDefault()
	node := (&estimator.Pricer{Catalog: cat}).Estimate(parser.Resource{Address: "n", Provider: parser.AWS, Region: "us-east-1", InstanceType: "g6.xlarge",
		Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform})
	perNode, ok := node.Monthly()
	if !ok {
		t.Fatalf("g6.xlarge unpriced: %v", *node.UnpricedReason)
	}
	for _, c := range []struct {
		replicas      string
		nodes, needed int
	}{
		{"1", 2, 1}, // within the groups' floors: the pods add nothing
		{"3", 3, 3}, // past them: the pods' nodes
		{"6", 4, 6}, // past both maximums: the groups at their maximums
	} {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{
			"infra/main.tf": "provider \"aws\" { region = \"us-east-1\" }\n" + group("l4-a") + group("l4-b"),
			"k8s/chat.yaml": deployment(c.replicas),
		})
		doc := Run([]string{root}, Options{Catalog: cat})
		if len(doc.Errors) > 0 || len(doc.Resources) != 3 {
			t.Fatalf("%s replicas: resources %d, errors %v", c.replicas, len(doc.Resources), doc.Errors)
		}
		var groups []*estimator.GroupPods
		for _, e := range doc.Resources {
			if e.Type == "aws_eks_node_group" {
				groups = append(groups, e.PodsOnGroup)
			}
		}
		if len(groups) != 2 || groups[0] == nil || groups[0] != groups[1] || groups[0].NodesNeeded != c.needed || groups[0].MaxNodes == nil || *groups[0].MaxNodes != 4 {
			t.Errorf("%s replicas: the groups' summaries %+v", c.replicas, groups)
		}
		if want := money.Amount(perNode.MulInt(int64(c.nodes))); doc.Totals.MonthlyCost != want {
			t.Errorf("%s replicas: total %v, want %d nodes' %v", c.replicas, doc.Totals.MonthlyCost, c.nodes, want)
		}
	}
}
