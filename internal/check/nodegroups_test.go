package check

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// nodeMonthly is one node's on-demand month, as check prices a node group's node.
func nodeMonthly(t *testing.T, cat *catalog.Catalog, provider, region, typ string) money.Micros {
	t.Helper()
	node := (&estimator.Pricer{Catalog: cat}).Estimate(parser.Resource{Address: "n", Provider: provider, Region: region, InstanceType: typ,
		Quantity: 1, PurchaseOption: parser.OnDemand, Kind: parser.KindTerraform})
	m, ok := node.Monthly()
	if !ok {
		t.Fatalf("%s unpriced: %v", typ, *node.UnpricedReason)
	}
	return m
}

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
	perNode := nodeMonthly(t, cat, parser.AWS, "us-east-1", "g6.xlarge")
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

// Pods on a GKE pool whose GPUs are split into MIG slices (gpu_partition_size) each take a slice
// for every nvidia.com/gpu they request: seven pods on 1g.5gb slices fill one A100 node and pay
// that node once between them, where on whole GPUs they need seven nodes.
func TestCheckPricesPodsOnPartitionedPoolsBySlice(t *testing.T) {
	pool := func(partition string) string {
		accel := ""
		if partition != "" {
			accel = "\n    guest_accelerator {\n      type               = \"nvidia-tesla-a100\"\n      count              = 1\n      gpu_partition_size = \"" + partition + "\"\n    }"
		}
		return `resource "google_container_node_pool" "a100" {
  name       = "a100"
  cluster    = "ml"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "a2-highgpu-1g"` + accel + `
  }
}
`
	}
	deployment := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: embed, namespace: ml}\nspec:\n  replicas: 7\n  template:\n    spec:\n" +
		"      nodeSelector: {cloud.google.com/gke-nodepool: a100}\n      containers:\n        - name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n"
	cat := catalog.MustDefault()
	perNode := nodeMonthly(t, cat, parser.GCP, "us-central1", "a2-highgpu-1g")
	for _, c := range []struct {
		partition string
		needed    int
		pods      money.Micros // the Deployment's month
	}{
		{"1g.5gb", 1, perNode.MulInt(7).Mul(1.0 / 7)}, // seven slices of 1/7
		{"", 7, perNode.MulInt(7)},
	} {
		root := t.TempDir()
		testutil.WriteFiles(t, root, map[string]string{"infra/main.tf": pool(c.partition), "k8s/embed.yaml": deployment})
		doc := Run([]string{root}, Options{Catalog: cat})
		if len(doc.Errors) > 0 || len(doc.Resources) != 2 {
			t.Fatalf("partition %q: resources %d, errors %v", c.partition, len(doc.Resources), doc.Errors)
		}
		for _, e := range doc.Resources {
			switch e.Type {
			case "google_container_node_pool":
				if e.PodsOnGroup == nil || e.PodsOnGroup.NodesNeeded != c.needed {
					t.Errorf("partition %q: the pool's pods %+v, want %d nodes needed", c.partition, e.PodsOnGroup, c.needed)
				}
			case "Deployment":
				if m, ok := e.Monthly(); !ok || m.Cents() != c.pods.Cents() || e.Pod.MIGProfile != c.partition {
					t.Errorf("partition %q: the pods cost %v (MIG %q), want %v", c.partition, money.Amount(m), e.Pod.MIGProfile, money.Amount(c.pods))
				}
			}
		}
	}
}

// The same on AKS: a pool whose gpu_instance is MIG1g splits each A100 80GB into seven 1g.10gb
// slices, and a pod asking for nvidia.com/gpu there gets one (a pod cannot get a whole GPU
// there: with the device plugin's mixed strategy such a node advertises no nvidia.com/gpu).
func TestCheckPricesPodsOnAKSGPUInstancesBySlice(t *testing.T) {
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"infra/main.tf": `resource "azurerm_kubernetes_cluster_node_pool" "mig" {
  name                  = "mig"
  kubernetes_cluster_id = "cluster"
  vm_size               = "Standard_NC24ads_A100_v4"
  node_count            = 1
  gpu_instance          = "MIG1g"
}
`,
		"k8s/embed.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: embed, namespace: ml}\nspec:\n  replicas: 7\n  template:\n    spec:\n" +
			"      nodeSelector: {kubernetes.azure.com/agentpool: mig}\n      containers:\n        - name: c\n          resources: {limits: {nvidia.com/gpu: 1}}\n",
	})
	cat := catalog.MustDefault()
	perNode := nodeMonthly(t, cat, parser.Azure, "eastus", "Standard_NC24ads_A100_v4")
	doc := Run([]string{root}, Options{Catalog: cat, Region: "eastus"})
	if len(doc.Errors) > 0 || len(doc.Resources) != 2 {
		t.Fatalf("resources %d, errors %v", len(doc.Resources), doc.Errors)
	}
	for _, e := range doc.Resources {
		switch e.Type {
		case "azurerm_kubernetes_cluster_node_pool":
			if e.PodsOnGroup == nil || e.PodsOnGroup.NodesNeeded != 1 || e.GPU == nil || e.GPU.MIGProfile != "1g.10gb" {
				t.Errorf("the pool: pods %+v, GPU %+v; want 1 node needed, in 1g.10gb slices", e.PodsOnGroup, e.GPU)
			}
		case "Deployment":
			// Seven slices of a seventh: the one node's month.
			if m, ok := e.Monthly(); !ok || m.Cents() != perNode.Cents() || e.Pod.MIGProfile != "1g.10gb" || e.GPU.MIGProfile != "1g.10gb" {
				t.Errorf("the pods cost %v (MIG %q), want %v on 1g.10gb slices", money.Amount(m), e.Pod.MIGProfile, money.Amount(perNode))
			}
		}
	}
}
