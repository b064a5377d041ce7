package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// An EMR cluster's managed scaling policy gives its core and task groups their maximums, the
// core group's capped by maximum_core_capacity_units, and one limit they share; a task group
// takes the cluster's tags.
func TestEMRManagedScaling(t *testing.T) {
	src := `
resource "aws_emr_cluster" "c" {
  core_instance_group {
    instance_type  = "g5.2xlarge"
    instance_count = 2
  }
  tags = { team = "data" }
}
resource "aws_emr_instance_group" "task" {
  cluster_id     = aws_emr_cluster.c.id
  instance_type  = "g6.xlarge"
  instance_count = 3
  bid_price      = "0.5"
}
resource "aws_emr_managed_scaling_policy" "p" {
  cluster_id = aws_emr_cluster.c.id
  compute_limits {
    unit_type                       = "%UNIT%"
    minimum_capacity_units          = 2
    maximum_capacity_units          = 12
    maximum_core_capacity_units     = 5
    maximum_ondemand_capacity_units = 4
  }
}
`
	got := byAddress(t, parseHCL(t, strings.Replace(src, "%UNIT%", "Instances", 1), Options{}))
	core, task := got["aws_emr_cluster.c.core"], got["aws_emr_instance_group.task"]
	if core.ScaleMax == nil || core.ScaleMax.Quantity != 5 || core.ScaleMax.From != "compute_limits of aws_emr_managed_scaling_policy.p" {
		t.Fatalf("core maximum: %+v", core.ScaleMax)
	}
	if task.ScaleMax == nil || task.ScaleMax.Quantity != 12 || task.PurchaseOption != parser.Spot {
		t.Fatalf("task maximum: %+v %s", task.ScaleMax, task.PurchaseOption)
	}
	want := parser.SharedLimit{Owner: "aws_emr_cluster.c", What: "managed scaling maximum of 12 instances", Limit: 12, Unit: "Instances", PerInstance: 1}
	for _, r := range []parser.Resource{core, task} {
		if r.SharedLimit == nil || *r.SharedLimit != want {
			t.Errorf("%s: shared limit %+v", r.Address, r.SharedLimit)
		}
	}
	if task.Tags["team"] != "data" {
		t.Errorf("task group tags %v, want the cluster's", task.Tags)
	}
	// The on-demand cap is said for the on-demand core group, not for the spot task group.
	if n := strings.Join(core.Notes, "|"); !strings.Contains(n, "past 4 instances on demand EMR adds spot capacity") {
		t.Errorf("core notes: %s", n)
	}
	if n := strings.Join(task.Notes, "|"); strings.Contains(n, "on demand EMR adds spot") {
		t.Errorf("task notes: %s", n)
	}

	// In vCPUs, the estimator turns the maximum into instances and knows each one's share.
	got = byAddress(t, parseHCL(t, strings.Replace(src, "%UNIT%", "VCPU", 1), Options{}))
	core = got["aws_emr_cluster.c.core"]
	if core.ScaleMax == nil || core.ScaleMax.VCPUs != 5 || core.SharedLimit == nil || core.SharedLimit.Unit != parser.UnitVCPU || core.SharedLimit.PerInstance != 0 {
		t.Fatalf("vCPU limits: %+v %+v", core.ScaleMax, core.SharedLimit)
	}

	// A unit type EMR does not have, or a maximum known only at apply, leaves the maximum out
	// with a note; the floor stays priced (nothing unresolved).
	for name, s := range map[string]string{
		"unknown unit":    strings.Replace(src, "%UNIT%", "Nodes", 1),
		"unknown maximum": "variable \"m\" {}\n" + strings.Replace(strings.Replace(src, "%UNIT%", "Instances", 1), "maximum_capacity_units          = 12", "maximum_capacity_units          = var.m", 1),
	} {
		core = byAddress(t, parseHCL(t, s, Options{}))["aws_emr_cluster.c.core"]
		if core.ScaleMax != nil || core.SharedLimit != nil || len(core.Unresolved) > 0 || core.Quantity != 2 ||
			!strings.Contains(strings.Join(core.Notes, "|"), "so the maximum is not priced") {
			t.Errorf("%s: %+v %+v %+v %q", name, core.ScaleMax, core.SharedLimit, core.Unresolved, core.Notes)
		}
	}
}

// Instance fleets count in fleet units: the first type's weighted capacity per instance.
func TestEMRManagedScalingFleetUnits(t *testing.T) {
	got := byAddress(t, parseHCL(t, `
resource "aws_emr_cluster" "f" {
  core_instance_fleet {
    instance_type_configs {
      instance_type     = "g5.2xlarge"
      weighted_capacity = 4
    }
    target_on_demand_capacity = 4
    target_spot_capacity      = 4
  }
}
resource "aws_emr_managed_scaling_policy" "p" {
  cluster_id = aws_emr_cluster.f.id
  compute_limits {
    unit_type              = "InstanceFleetUnits"
    minimum_capacity_units = 8
    maximum_capacity_units = 30
  }
}
`, Options{}))
	core := got["aws_emr_cluster.f.core"]
	// 8 units are 2 instances, one on spot; 30 units are 8 instances (7.5 rounded up), the spot
	// one still on spot and the growth counted on demand.
	if core.Quantity != 2 || core.SpotQuantity != 1 || core.ScaleMax == nil || core.ScaleMax.Quantity != 8 || core.ScaleMax.SpotQuantity != 1 {
		t.Fatalf("fleet: quantity %d spot %d max %+v", core.Quantity, core.SpotQuantity, core.ScaleMax)
	}
	if l := core.SharedLimit; l == nil || l.PerInstance != 4 || l.Limit != 30 || l.What != "managed scaling maximum of 30 fleet units" {
		t.Fatalf("fleet limit: %+v", l)
	}
}

// An instance group's own automatic scaling policy (a JSON document) gives its maximum; one
// that is not JSON, or has no maximum, leaves the maximum out with a note.
func TestEMRAutomaticScalingPolicy(t *testing.T) {
	src := `
resource "aws_emr_instance_group" "g" {
  cluster_id     = "j-123"
  instance_type  = "g4dn.xlarge"
  instance_count = 2
  autoscaling_policy = %s
}
`
	for _, c := range []struct {
		policy string
		max    int
		bad    string
	}{
		{`jsonencode({ Constraints = { MinCapacity = 1, MaxCapacity = 6 }, Rules = [] })`, 6, ""},
		{`"{\"Constraints\": {\"MinCapacity\": 1, \"MaxCapacity\": 2}}"`, 0, ""}, // at its floor: no maximum above it
		{`"{not json"`, 0, "not a JSON scaling policy"},
		{`jsonencode({ Rules = [] })`, 0, "no Constraints.MaxCapacity"},
	} {
		res := parseHCL(t, strings.Replace(src, "%s", c.policy, 1), Options{})
		if len(res.Resources) != 1 {
			t.Fatalf("%s: %d resources", c.policy, len(res.Resources))
		}
		r := res.Resources[0]
		switch {
		case c.max > 0 && (r.ScaleMax == nil || r.ScaleMax.Quantity != c.max || r.ScaleMax.From != "autoscaling_policy Constraints.MaxCapacity"):
			t.Errorf("%s: maximum %+v", c.policy, r.ScaleMax)
		case c.max == 0 && r.ScaleMax != nil:
			t.Errorf("%s: maximum %+v", c.policy, r.ScaleMax)
		case len(r.Unresolved) > 0:
			t.Errorf("%s: unresolved %+v", c.policy, r.Unresolved)
		case c.bad != "" && !strings.Contains(strings.Join(r.Notes, "|"), c.bad):
			t.Errorf("%s: notes %q", c.policy, r.Notes)
		}
	}
}

// In plan JSON the policy's cluster_id is known only after apply: the configuration's references
// name the cluster, as they do for the task group.
func TestEMRManagedScalingInAPlan(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "emr-managed-scaling.plan.json"))
	if err != nil {
		t.Fatal(err)
	}
	got := byAddress(t, ParsePlan("plan.json", b))
	core, task := got["aws_emr_cluster.rapids.core"], got["aws_emr_instance_group.tasks"]
	if core.ScaleMax == nil || core.ScaleMax.Quantity != 6 || task.ScaleMax == nil || task.ScaleMax.Quantity != 10 {
		t.Fatalf("maximums %+v %+v", core.ScaleMax, task.ScaleMax)
	}
	if core.SharedLimit == nil || task.SharedLimit == nil || *core.SharedLimit != *task.SharedLimit || core.SharedLimit.Limit != 10 {
		t.Fatalf("limits %+v %+v", core.SharedLimit, task.SharedLimit)
	}
	if task.Tags["team"] != "data" {
		t.Errorf("task tags %v", task.Tags)
	}
}
