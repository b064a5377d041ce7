package terraform

import (
	"cmp"
	"math"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// scheduleResource is an aws_autoscaling_schedule of the group expr names; sizes are its
// attribute lines.
func scheduleResource(name, expr, recurrence, sizes string) string {
	return `resource "aws_autoscaling_schedule" "` + name + `" {
  scheduled_action_name  = "` + name + `"
  autoscaling_group_name = ` + expr + `
  recurrence             = ` + recurrence + `
  ` + sizes + `
}
`
}

// scheduled is what a scheduled group is priced at: quantity for hours a month (0: all month),
// up to maxQuantity for maxHours (0: its own), with a note that says note ("": any).
type scheduled struct {
	quantity    int
	hours       float64
	maxQuantity int
	maxHours    float64
	note        string
}

func expectScheduled(t *testing.T, r parser.Resource, want scheduled) {
	t.Helper()
	if r.Quantity != want.quantity || r.HoursPerMonth != want.hours {
		t.Errorf("%d for %.2f hours, want %d for %.2f; notes %q", r.Quantity, r.HoursPerMonth, want.quantity, want.hours, r.Notes)
	}
	if r.ScaleMax == nil || r.ScaleMax.Quantity != want.maxQuantity || r.ScaleMax.HoursPerMonth != want.maxHours {
		t.Errorf("scale max %+v, want %d for %.2f hours", r.ScaleMax, want.maxQuantity, want.maxHours)
	}
	if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, want.note) {
		t.Errorf("notes %q, want %q", notes, want.note)
	}
}

// An Auto Scaling group scaled up in the morning and down at night by aws_autoscaling_schedules
// costs what it runs: its peak number of instances for the hours a month that give the
// schedule's instance-hours. 2026 has 261 weekdays: eleven hours each, from 08:00 to 19:00
// Berlin time, is 0.3277 of the year, 239.25 of gpuguard's 730-hour month.
func TestAutoScalingSchedule(t *testing.T) {
	const group = `provider "aws" { region = "us-east-1" }
variable "cron" { type = string }
resource "aws_launch_template" "gpu" {
  name          = "gpu"
  instance_type = "g5.12xlarge"
}
resource "aws_autoscaling_group" "dev" {
  name             = "gpu-dev"
  desired_capacity = 2
  min_size         = 0
  max_size         = 4
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
}
resource "aws_autoscaling_group" "other" {
  name             = "other"
  desired_capacity = 1
  min_size         = 1
  max_size         = 1
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
}
`
	up := scheduleResource("up", "aws_autoscaling_group.dev.name", `"0 8 * * 1-5"`, "time_zone = \"Europe/Berlin\"\n  min_size = -1\n  max_size = -1\n  desired_capacity = 4")
	down := scheduleResource("down", `"gpu-dev"`, `"0 19 * * 1-5"`, "time_zone = \"Europe/Berlin\"\n  min_size = 0\n  max_size = -1\n  desired_capacity = 0")
	officeHours := math.Round(730*4*261*11.0/8760/4*100) / 100 // 239.25
	for _, tc := range []struct {
		name     string
		src      string
		quantity int
		hours    float64 // 0: the default month
		scaleMax int     // 0: the group's own max_size
		maxHours float64 // the maximum's hours a month; 0: the group's own
		open     int     // instances of aws_autoscaling_group.open, when it is declared
		note     string
	}{
		{name: "office hours, by reference and by name", src: up + down, quantity: 4, hours: officeHours, maxHours: 730,
			note: `scheduled by aws_autoscaling_schedule.up ("0 8 * * 1-5", Europe/Berlin), aws_autoscaling_schedule.down ("0 19 * * 1-5", Europe/Berlin): 0 to 4 instances, 1.31 on average over a year: priced as 4 instances for 239.25 hours a month`},
		{name: "a recurrence known only at apply leaves the declared size", src: up + scheduleResource("down", `"gpu-dev"`, "var.cron", "desired_capacity = 0\n  max_size = -1"),
			quantity: 2, note: "aws_autoscaling_schedule.down's recurrence is known only at apply: the group's schedule is not applied"},
		{name: "desired capacity alone: the provider sends 0 for the limits, which Auto Scaling refuses", src: scheduleResource("up", `"gpu-dev"`, `"0 8 * * *"`, "desired_capacity = 4"),
			quantity: 2, note: "aws_autoscaling_schedule.up sets desired capacity 4 outside its own limits (min 0, max 0"},
		{name: "a one-time action is left out", src: down + `resource "aws_autoscaling_schedule" "once" {
  scheduled_action_name  = "once"
  autoscaling_group_name = "gpu-dev"
  start_time             = "2026-12-01T00:00:00Z"
  min_size               = -1
  max_size               = -1
  desired_capacity       = 4
}
`, quantity: 0, note: "aws_autoscaling_schedule.once runs once (no recurrence): it is left out of the group's schedule"},
		{name: "a schedule that only stops the group", src: down, quantity: 0,
			note: "0 to 0 instances, 0.00 on average over a year: it runs no instances"},
		{name: "a larger maximum at night", src: scheduleResource("night", `"gpu-dev"`, `"0 22 * * *"`, "min_size = 1\n  max_size = 10\n  desired_capacity = 6") +
			scheduleResource("day", `"gpu-dev"`, `"0 6 * * *"`, "min_size = 1\n  max_size = 4\n  desired_capacity = 1"),
			quantity: 6, hours: math.Round(730*(8*6+16*1)/24.0/6*100) / 100, scaleMax: 10, maxHours: math.Round(730*(8*10+16*4)/24.0/10*100) / 100},
		{name: "a recurrence that does not parse", src: scheduleResource("up", `"gpu-dev"`, `"0 8 * * MONDAY"`, "min_size = -1\n  max_size = -1\n  desired_capacity = 4"),
			quantity: 2, note: `its scheduled actions cannot be replayed (aws_autoscaling_schedule.up: recurrence "0 8 * * MONDAY": `},
		{name: "a group maximum known only at apply bounds nothing", src: strings.Replace(up, "aws_autoscaling_group.dev.name", "aws_autoscaling_group.open.name", 1) + `variable "max" { type = number }
resource "aws_autoscaling_group" "open" {
  name             = "open"
  desired_capacity = 2
  min_size         = 0
  max_size         = var.max
  launch_template {
    id      = aws_launch_template.gpu.id
    version = "$Latest"
  }
}
`, quantity: 2, open: 4},
		{name: "a size that is not a whole number", src: scheduleResource("up", `"gpu-dev"`, `"0 8 * * *"`, "min_size = -1\n  max_size = -1\n  desired_capacity = 2.5"),
			quantity: 2, note: "aws_autoscaling_schedule.up's desired_capacity is 2.5, not a whole number of instances (or -1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, group+tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			got := byAddress(t, res)
			dev, other := got["aws_autoscaling_group.dev"], got["aws_autoscaling_group.other"]
			expectScheduled(t, dev, scheduled{tc.quantity, tc.hours, cmp.Or(tc.scaleMax, 4), tc.maxHours, tc.note})
			if open, ok := got["aws_autoscaling_group.open"]; ok && open.Quantity != tc.open {
				t.Errorf("the group whose maximum is unknown runs %d, want %d; notes %q", open.Quantity, tc.open, open.Notes)
			}
			if other.Quantity != 1 || other.HoursPerMonth != 0 {
				t.Errorf("the other group took the schedule: %d for %.2f hours", other.Quantity, other.HoursPerMonth)
			}
		})
	}
}

// The Auto Scaling groups of the EKS module's node groups and of the autoscaling module,
// scheduled through the modules' own schedules input, or through the EKS module's output that
// names a managed group's (known only at apply).
func TestAutoScalingScheduleThroughModules(t *testing.T) {
	eks := func(schedules string) string {
		return eksModule("min_size = 0\n      max_size = 3\n      desired_size = 3\n      "+schedules, "desired_size = 2\n      max_size = 2\n      "+schedules)
	}
	const twelveHours = `schedules = {
        night   = { min_size = 0, max_size = "-1", desired_size = 0, recurrence = "0 20 * * *", time_zone = "Europe/Rome" }
        morning = { min_size = 0, max_size = "-1", desired_size = 3, recurrence = "0 8 * * *", time_zone = "Europe/Rome" }
      }`
	const managed = `module.eks.module.eks_managed_node_group["gpu"].aws_eks_node_group.this[0]`
	const self = `module.eks.module.self_managed_node_group["sgpu"].aws_autoscaling_group.this[0]`
	const asg = "module.asg.aws_autoscaling_group.this[0]"
	type size struct {
		quantity int
		hours    float64
	}
	for _, tc := range []struct {
		name string
		src  string
		want map[string]size
	}{
		{name: "the node groups' schedules input", src: eks(twelveHours),
			// The self-managed group's max_size of 2 caps the morning's 3.
			want: map[string]size{managed: {3, 365}, self: {2, 365}}},
		{name: "an output that names the managed group's Auto Scaling group", src: eks("") +
			scheduleResource("night", "module.eks.eks_managed_node_groups_autoscaling_group_names[0]", `"0 20 * * *"`, "min_size = 0\n  max_size = -1\n  desired_capacity = 0") +
			scheduleResource("morning", "module.eks.eks_managed_node_groups_autoscaling_group_names[0]", `"0 8 * * *"`, "min_size = -1\n  max_size = -1\n  desired_capacity = 3"),
			want: map[string]size{managed: {3, 365}, self: {2, 0}}},
		{name: "the autoscaling module's schedules, desired_capacity", src: `provider "aws" { region = "us-east-1" }
module "asg" {
  source           = "terraform-aws-modules/autoscaling/aws"
  version          = "~> 8.0"
  name             = "train"
  instance_type    = "p4d.24xlarge"
  min_size         = 0
  max_size         = 1
  desired_capacity = 1
  schedules = {
    off = { min_size = 0, max_size = 0, desired_capacity = 0, recurrence = "0 0 * * *" }
    on  = { min_size = 0, max_size = 1, desired_capacity = 1, recurrence = "0 6 * * *" }
  }
}
`, want: map[string]size{asg: {1, 547.5}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			got := byAddress(t, res)
			for addr, want := range tc.want {
				g, ok := got[addr]
				if !ok {
					t.Fatalf("no %s in %v", addr, got)
				}
				if g.Quantity != want.quantity || g.HoursPerMonth != want.hours {
					t.Errorf("%s: %d for %.2f hours, want %d for %.2f; notes %q", addr, g.Quantity, g.HoursPerMonth, want.quantity, want.hours, g.Notes)
				}
			}
		})
	}
}

// In a plan, a schedule names a group by its planned name, or (an EKS managed group's, whose
// Auto Scaling group's name is known only after apply) through the configuration's reference.
func TestAutoScalingScheduleInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2",
"planned_values":{"root_module":{"resources":[
{"address":"aws_autoscaling_group.dev","mode":"managed","type":"aws_autoscaling_group","name":"dev","values":{"name":"gpu-dev","desired_capacity":4,"min_size":0,"max_size":4,"mixed_instances_policy":[],"launch_template":[{"id":"lt-1","version":"$Latest"}]}},
{"address":"aws_launch_template.gpu","mode":"managed","type":"aws_launch_template","name":"gpu","values":{"id":"lt-1","name":"gpu","instance_type":"g6.xlarge"}},
{"address":"aws_autoscaling_schedule.up","mode":"managed","type":"aws_autoscaling_schedule","name":"up","values":{"autoscaling_group_name":"gpu-dev","recurrence":"0 6 * * *","min_size":-1,"max_size":-1,"desired_capacity":4}},
{"address":"aws_autoscaling_schedule.down","mode":"managed","type":"aws_autoscaling_schedule","name":"down","values":{"autoscaling_group_name":"gpu-dev","recurrence":"0 18 * * *","min_size":0,"max_size":-1,"desired_capacity":0}},
{"address":"aws_eks_node_group.gpu","mode":"managed","type":"aws_eks_node_group","name":"gpu","values":{"cluster_name":"ml","node_group_name":"gpu","instance_types":["g5.xlarge"],"scaling_config":[{"desired_size":2,"min_size":0,"max_size":2}]}},
{"address":"aws_autoscaling_schedule.night","mode":"managed","type":"aws_autoscaling_schedule","name":"night","values":{"recurrence":"0 0 * * *","min_size":0,"max_size":-1,"desired_capacity":0}},
{"address":"aws_autoscaling_schedule.day","mode":"managed","type":"aws_autoscaling_schedule","name":"day","values":{"recurrence":"0 6 * * *","min_size":-1,"max_size":-1,"desired_capacity":2}}
]}},
"resource_changes":[
{"address":"aws_autoscaling_schedule.night","mode":"managed","type":"aws_autoscaling_schedule","name":"night","change":{"actions":["create"],"after_unknown":{"autoscaling_group_name":true}}},
{"address":"aws_autoscaling_schedule.day","mode":"managed","type":"aws_autoscaling_schedule","name":"day","change":{"actions":["create"],"after_unknown":{"autoscaling_group_name":true}}}
],
"configuration":{"provider_config":{"aws":{"name":"aws","expressions":{"region":{"constant_value":"us-east-1"}}}},"root_module":{"resources":[
{"address":"aws_autoscaling_schedule.night","mode":"managed","type":"aws_autoscaling_schedule","name":"night","expressions":{"autoscaling_group_name":{"references":["aws_eks_node_group.gpu.resources[0].autoscaling_groups[0].name","aws_eks_node_group.gpu.resources[0].autoscaling_groups[0]","aws_eks_node_group.gpu.resources[0]","aws_eks_node_group.gpu.resources","aws_eks_node_group.gpu"]}}},
{"address":"aws_autoscaling_schedule.day","mode":"managed","type":"aws_autoscaling_schedule","name":"day","expressions":{"autoscaling_group_name":{"references":["aws_eks_node_group.gpu.resources[0].autoscaling_groups[0].name","aws_eks_node_group.gpu"]}}}
]}}}`
	got := byAddress(t, ParsePlan("plan.json", []byte(plan)))
	for addr, want := range map[string]struct {
		quantity int
		hours    float64
	}{
		"aws_autoscaling_group.dev": {4, 365},   // 06:00 to 18:00
		"aws_eks_node_group.gpu":    {2, 547.5}, // 06:00 to 24:00
	} {
		if g := got[addr]; g.Quantity != want.quantity || g.HoursPerMonth != want.hours {
			t.Errorf("%s: %d for %.2f hours, want %d for %.2f; notes %q", addr, g.Quantity, g.HoursPerMonth, want.quantity, want.hours, g.Notes)
		}
	}
}
