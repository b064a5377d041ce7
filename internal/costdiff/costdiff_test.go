package costdiff

import (
	"testing"

	"github.com/gpuguard/gpuguard/estimator"
	"github.com/gpuguard/gpuguard/internal/money"
	"github.com/gpuguard/gpuguard/internal/result"
	"github.com/gpuguard/gpuguard/parser"
)

func est(root, addr, it string, qty int, po parser.PurchaseOption, monthly string) estimator.Estimate {
	e := estimator.Estimate{Root: root, Address: addr, ID: estimator.ResourceID(root, addr), InstanceType: it, Quantity: qty, PurchaseOption: po, Region: "us-east-1"}
	if monthly != "" {
		m, err := money.Parse(monthly)
		if err != nil {
			panic(err)
		}
		a := money.Amount(m)
		e.MonthlyCost = &a
	} else {
		why := "not in the catalog"
		e.UnpricedReason = &why
	}
	return e
}

func doc(es ...estimator.Estimate) *result.Check {
	c := result.NewCheck(730, result.CatalogInfo{Updated: "2026-09-16"})
	c.Resources = es
	c.Totals = estimator.Sum(es)
	return c
}

func TestComputeClassifiesAndSorts(t *testing.T) {
	base := doc(
		est("prod", "aws_instance.a", "g5.xlarge", 1, parser.OnDemand, "734.38"),
		est("prod", "aws_instance.qty", "g5.xlarge", 2, parser.OnDemand, "1468.76"),
		est("prod", "aws_instance.spot", "g5.xlarge", 1, parser.OnDemand, "734.38"),
		est("prod", "aws_instance.gone", "p4d.24xlarge", 1, parser.OnDemand, "16029.08"),
		est("prod", "aws_instance.unpriced", "x9.huge", 1, parser.OnDemand, ""),
		// The same address in another root is another resource.
		est("staging", "aws_instance.a", "g5.xlarge", 1, parser.OnDemand, "734.38"),
	)
	head := doc(
		est("prod", "aws_instance.a", "g5.xlarge", 1, parser.OnDemand, "734.38"),
		est("prod", "aws_instance.qty", "g5.xlarge", 3, parser.OnDemand, "2203.14"),
		est("prod", "aws_instance.spot", "g5.xlarge", 1, parser.Spot, "293.75"),
		est("prod", "aws_instance.unpriced", "x9.huge", 1, parser.OnDemand, ""),
		est("staging", "aws_instance.a", "g6.xlarge", 1, parser.OnDemand, "587.50"),
		est("prod", "aws_instance.new", "g6.xlarge", 1, parser.OnDemand, "587.50"),
	)
	d := Compute(base, head)
	type row struct{ root, addr, change, delta string }
	var got []row
	for _, c := range d.Changes {
		delta := "nil"
		if c.MonthlyDelta != nil {
			delta = money.Micros(*c.MonthlyDelta).Signed()
		}
		got = append(got, row{c.Root, c.Address, c.Change, delta})
	}
	want := []row{
		{"prod", "aws_instance.gone", Removed, "-$16,029.08"},
		{"prod", "aws_instance.qty", Changed, "+$734.38"},
		{"prod", "aws_instance.new", Added, "+$587.50"},
		{"prod", "aws_instance.spot", Changed, "-$440.63"},
		{"staging", "aws_instance.a", Changed, "-$146.88"},
		{"prod", "aws_instance.a", Unchanged, "$0.00"},
		{"prod", "aws_instance.unpriced", Unchanged, "nil"},
	}
	if len(got) != len(want) {
		t.Fatalf("changes:\n%v\nwant:\n%v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("change %d = %v, want %v", i, got[i], want[i])
		}
	}
	if money.Micros(d.Totals.MonthlyDelta).Signed() != "-$15,294.71" || d.Totals.PercentChange == nil || *d.Totals.PercentChange != -77.63 {
		t.Errorf("totals %+v (percent %v)", d.Totals, *d.Totals.PercentChange)
	}
	if d.Head.Unpriced != 1 || d.Base.Resources != 6 {
		t.Errorf("sides %+v %+v", d.Base, d.Head)
	}
}

func TestComputeFromNothing(t *testing.T) {
	d := Compute(doc(), doc(est("", "aws_instance.a", "g5.xlarge", 1, parser.OnDemand, "734.38")))
	if d.Totals.PercentChange != nil {
		t.Errorf("percent of a zero base should be null, got %v", *d.Totals.PercentChange)
	}
	if len(d.Changes) != 1 || d.Changes[0].Change != Added || d.Changes[0].MonthlyCostBefore != nil {
		t.Errorf("changes %+v", d.Changes)
	}
	// Base errors are kept and say which side they come from.
	b := doc()
	b.Errors = []parser.Error{{File: "main.tf", Line: 3, Message: "bad"}}
	d = Compute(b, doc())
	if len(d.Errors) != 1 || d.Errors[0].Message != "in the base: bad" {
		t.Errorf("errors %+v", d.Errors)
	}
}

func TestPolicyDiffLeavesOutUnchanged(t *testing.T) {
	base := doc(est("", "a", "g5.xlarge", 1, parser.OnDemand, "100.00"), est("", "b", "g5.xlarge", 1, parser.OnDemand, "100.00"))
	head := doc(est("", "a", "g5.xlarge", 1, parser.OnDemand, "100.00"), est("", "b", "g5.xlarge", 2, parser.OnDemand, "200.00"))
	pd := PolicyDiff(Compute(base, head))
	changes := pd["changes"].([]map[string]any)
	if len(changes) != 1 || changes[0]["address"] != "b" || changes[0]["monthly_delta"] != money.Amount(money.FromDollars(100)) {
		t.Errorf("changes %+v", changes)
	}
	totals := pd["totals"].(map[string]any)
	if totals["percent_change"] != 50.0 {
		t.Errorf("totals %+v", totals)
	}
}

// Raising only an autoscaler's maximum is a change a reviewer must see (the floor, and so the
// monthly cost, stays the same); the totals at the maximums compare both sides. Deltas are
// differences of amounts as shown, in cents, so that they add up as a reader checks them.
func TestScaleMaxChangesAndRoundedDeltas(t *testing.T) {
	pool := func(max int, atMax string) estimator.Estimate {
		e := est("prod", "azurerm_kubernetes_cluster_node_pool.a100", "Standard_NC24ads_A100_v4", 0, parser.Spot, "0")
		m, _ := money.Parse(atMax)
		e.ScaleMax = &estimator.ScaleMaxCost{Quantity: max, MonthlyCost: money.Amount(m), From: "max_count"}
		return e
	}
	// $0.004 and $0.009 are shown as $0.00 and $0.01: a delta of $0.01, not $0.005.
	third := func(micros int64) estimator.Estimate {
		e := est("prod", "aws_instance.tiny", "g5.xlarge", 1, parser.OnDemand, "0")
		a := money.Amount(micros)
		e.MonthlyCost = &a
		return e
	}
	d := Compute(doc(pool(4, "1297.74"), third(4000)), doc(pool(40, "12977.40"), third(9000)))
	byAddr := map[string]result.Change{}
	for _, c := range d.Changes {
		byAddr[c.Address] = c
	}
	c := byAddr["azurerm_kubernetes_cluster_node_pool.a100"]
	if c.Change != Changed || c.MaxMonthlyCostBefore == nil || c.MaxMonthlyCostAfter == nil || money.Micros(*c.MaxMonthlyCostAfter).String() != "$12,977.40" {
		t.Errorf("a raised maximum: %+v", c)
	}
	if b, a := d.Totals.MaxMonthlyCostBefore, d.Totals.MaxMonthlyCostAfter; b == nil || a == nil || money.Micros(*b).String() != "$1,297.74" || money.Micros(*a).String() != "$12,977.41" {
		t.Errorf("totals at the maximums %v → %v", b, a)
	}
	if got := money.Micros(*byAddr["aws_instance.tiny"].MonthlyDelta); got != 10000 {
		t.Errorf("delta of $0.00 → $0.01 is %d micro-dollars", got)
	}
	if got := money.Micros(d.Totals.MonthlyDelta); got != 10000 {
		t.Errorf("total delta of $0.00 → $0.01 is %d micro-dollars", got)
	}
	pd := PolicyDiff(d)
	if _, ok := pd["totals"].(map[string]any)["max_monthly_cost_after"]; !ok {
		t.Errorf("policies do not see the totals at the maximums: %v", pd["totals"])
	}
	if Compute(doc(third(4000)), doc(third(4000))).Totals.MaxMonthlyCostBefore != nil {
		t.Errorf("totals at the maximums without an autoscaled resource")
	}
}

// A resource the head moved (moved blocks and a plan's previous addresses, applied to whole
// modules and resources, in chains; Terraform's implicit move when count is added or removed)
// is compared with its base self instead of being removed and added. Moves are per root, never
// take a head resource that has a base resource of its own, and Kubernetes objects do not move.
func TestComputeFollowsMoves(t *testing.T) {
	tf := func(root, addr, it string, qty int, monthly string) estimator.Estimate {
		e := est(root, addr, it, qty, parser.OnDemand, monthly)
		e.Kind = parser.KindTerraform
		return e
	}
	k8s := func(addr string) estimator.Estimate {
		e := est("k8s", addr, "g5.xlarge", 1, parser.OnDemand, "734.38")
		e.Kind = parser.KindKubernetes
		return e
	}
	base := doc(
		tf("prod", "aws_instance.gpu", "g5.xlarge", 1, "734.38"),
		tf("prod", `module.old["a"].aws_eks_node_group.this[0]`, "g5.xlarge", 2, "1468.76"),
		tf("prod", "aws_instance.a", "g5.xlarge", 1, "734.38"),
		tf("prod", "aws_instance.counted", "g5.xlarge", 1, "734.38"),
		tf("prod", "aws_instance.uncounted[0]", "g5.xlarge", 1, "734.38"),
		tf("prod", "azurerm_kubernetes_cluster.aks.default_node_pool", "Standard_NC4as_T4_v3", 1, "384.00"),
		tf("prod", "aws_instance.taken", "g5.xlarge", 1, "734.38"),
		// Not under aws_instance.a: only its name starts the same.
		tf("prod", "aws_instance.ab", "g5.xlarge", 1, "734.38"),
		tf("staging", "aws_instance.gpu", "g5.xlarge", 1, "734.38"),
		k8s("Deployment/default/llm"),
	)
	head := doc(
		tf("prod", "aws_instance.trainer", "g5.xlarge", 1, "734.38"),
		tf("prod", `module.new["a"].aws_eks_node_group.this[0]`, "g5.xlarge", 3, "2203.14"),
		tf("prod", "aws_instance.c", "g5.xlarge", 1, "734.38"),
		tf("prod", "aws_instance.counted[0]", "g5.xlarge", 1, "734.38"),
		tf("prod", "aws_instance.uncounted", "g5.xlarge", 1, "734.38"),
		tf("prod", "azurerm_kubernetes_cluster.main.default_node_pool", "Standard_NC4as_T4_v3", 1, "384.00"),
		// The base had aws_instance.kept too: a move to it does not take it from its own base.
		tf("prod", "aws_instance.kept", "g5.xlarge", 1, "734.38"),
		tf("staging", "aws_instance.renamed", "g5.xlarge", 1, "734.38"),
		tf("prod", "aws_instance.cb", "g5.xlarge", 1, "734.38"),
		k8s("Deployment/default/llm[0]"),
	)
	base.Resources = append(base.Resources, tf("prod", "aws_instance.kept", "g5.xlarge", 1, "734.38"))
	head.Moves = []parser.Move{
		{Root: "prod", From: "aws_instance.gpu", To: "aws_instance.trainer"},
		{Root: "prod", From: `module.old`, To: `module.new`},
		// A chain, written in either order.
		{Root: "prod", From: "aws_instance.b", To: "aws_instance.c"},
		{Root: "prod", From: "aws_instance.a", To: "aws_instance.b"},
		{Root: "prod", From: "azurerm_kubernetes_cluster.aks", To: "azurerm_kubernetes_cluster.main"},
		{Root: "prod", From: "aws_instance.taken", To: "aws_instance.kept"},
		// Another root's move does not apply here.
		{Root: "other", From: "aws_instance.gpu", To: "aws_instance.renamed"},
	}
	d := Compute(base, head)
	got := map[string]string{}
	for _, c := range d.Changes {
		got[c.Root+" "+c.Address] = c.Change + " from " + c.MovedFrom
	}
	want := map[string]string{
		"prod aws_instance.trainer":                              "unchanged from aws_instance.gpu",
		`prod module.new["a"].aws_eks_node_group.this[0]`:        `changed from module.old["a"].aws_eks_node_group.this[0]`,
		"prod aws_instance.c":                                    "unchanged from aws_instance.a",
		"prod aws_instance.counted[0]":                           "unchanged from aws_instance.counted",
		"prod aws_instance.uncounted":                            "unchanged from aws_instance.uncounted[0]",
		"prod azurerm_kubernetes_cluster.main.default_node_pool": "unchanged from azurerm_kubernetes_cluster.aks.default_node_pool",
		"prod aws_instance.kept":                                 "unchanged from ",
		"prod aws_instance.taken":                                "removed from ",
		"staging aws_instance.renamed":                           "added from ",
		"prod aws_instance.ab":                                   "removed from ",
		"prod aws_instance.cb":                                   "added from ",
		"staging aws_instance.gpu":                               "removed from ",
		"k8s Deployment/default/llm[0]":                          "added from ",
		"k8s Deployment/default/llm":                             "removed from ",
	}
	if len(got) != len(want) {
		t.Errorf("%d changes, want %d: %v", len(got), len(want), got)
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
	// Moved and otherwise unchanged resources cost nothing more: the only delta is the node
	// group's third node and the resources that really came and went.
	if delta := money.Micros(d.Totals.MonthlyDelta).Signed(); delta != "+$734.38" {
		t.Errorf("total delta %s", delta)
	}
}

func TestImplicitMove(t *testing.T) {
	for in, want := range map[string]string{
		"aws_instance.x":                         "aws_instance.x[0]",
		"aws_instance.x[0]":                      "aws_instance.x",
		`module.m["k"].aws_instance.x`:           `module.m["k"].aws_instance.x[0]`,
		`module.m[0].module.n.aws_instance.x[0]`: `module.m[0].module.n.aws_instance.x`,
		"google_container_cluster.c.node_pool":   "google_container_cluster.c[0].node_pool",
		`aws_instance.x["a"]`:                    "",
		"aws_instance.x[1]":                      "",
		"data.aws_ami.x":                         "",
	} {
		got, ok := implicitMove(in)
		if got != want || ok != (want != "") {
			t.Errorf("implicitMove(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// Each side carries whether its total is a bound, for the headline to mark it.
func TestSidesCarryTheirTotalsBound(t *testing.T) {
	sm := est("", "aws_sagemaker_endpoint_configuration.x", "ml.g5.xlarge", 1, parser.OnDemand, "734.38")
	sm.PriceBound = estimator.BoundLower
	d := Compute(doc(sm), doc(est("", "aws_instance.a", "g5.xlarge", 1, parser.OnDemand, "734.38")))
	if d.Base.PriceBound != estimator.BoundLower || d.Head.PriceBound != "" {
		t.Errorf("base bound %q, head bound %q", d.Base.PriceBound, d.Head.PriceBound)
	}
}
