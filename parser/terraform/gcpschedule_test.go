package terraform

import (
	"math"
	"strings"
	"testing"
)

// An instance group whose autoscaler has scaling schedules runs at least each schedule's
// min_required_replicas while it is active, and min_replicas otherwise: 4 instances from 08:00
// to 19:00 Berlin time on weekdays over a floor of 1 is 4 instances for 361.94 hours of
// gpuguard's 730-hour month (the same instance-hours).
func TestGCPScalingSchedules(t *testing.T) {
	const group = `provider "google" {
  project = "p"
  region  = "europe-west4"
}
variable "seconds" { type = number }
resource "google_compute_instance_template" "l4" {
  machine_type = "g2-standard-8"
  disk { source_image = "x" }
  network_interface { network = "default" }
}
resource "google_compute_instance_group_manager" "gpu" {
  name               = "gpu"
  zone               = "europe-west4-a"
  base_instance_name = "l4"
  version { instance_template = google_compute_instance_template.l4.id }
}
`
	autoscaler := func(mode string, schedules ...string) string {
		return `resource "google_compute_autoscaler" "gpu" {
  name   = "gpu"
  zone   = "europe-west4-a"
  target = google_compute_instance_group_manager.gpu.id
  autoscaling_policy {
    mode         = "` + mode + `"
    min_replicas = 1
    max_replicas = 8
    cpu_utilization { target = 0.6 }
` + strings.Join(schedules, "") + `  }
}
`
	}
	window := func(name, cron, seconds, floor, extra string) string {
		return `    scaling_schedules {
      name                  = "` + name + `"
      schedule              = "` + cron + `"
      time_zone             = "Europe/Berlin"
      duration_sec          = ` + seconds + `
      min_required_replicas = ` + floor + `
      ` + extra + `
    }
`
	}
	office := window("office", "0 8 * * MON-FRI", "39600", "4", "")
	average := (4*261*11 + (8760 - 261*11.0)) / 8760
	officeHours := math.Round(730*average/4*100) / 100
	for _, tc := range []struct {
		name     string
		src      string
		quantity int
		hours    float64 // 0: all month
		note     string
	}{
		{name: "office hours over a floor of 1", src: autoscaler("ON", office), quantity: 4, hours: officeHours,
			note: `scheduled by google_compute_autoscaler.gpu's scaling schedules "office" ("0 8 * * MON-FRI", Europe/Berlin, for 11h, at least 4): 1 to 4 instances, 1.98 on average over a year: priced as 4 instances for 361.94 hours a month`},
		{name: "scale out only: the group keeps its peak", src: autoscaler("ONLY_SCALE_OUT", office), quantity: 4,
			note: "google_compute_autoscaler.gpu is in mode ONLY_SCALE_OUT: it does not scale in when a schedule ends, and the group keeps its peak"},
		{name: "max_replicas bounds a larger schedule", src: autoscaler("ON", window("big", "0 8 * * MON-FRI", "39600", "10", "")), quantity: 8,
			hours: math.Round(730*(8*261*11+(8760-261*11.0))/8760/8*100) / 100},
		{name: "a disabled schedule is left out", src: autoscaler("ON", window("office", "0 8 * * MON-FRI", "39600", "4", "disabled = true")), quantity: 1,
			note: `google_compute_autoscaler.gpu's scaling schedule "office" is disabled: it is left out`},
		{name: "a schedule that names a year runs once and is left out", src: autoscaler("ON", window("launch", "0 8 1 12 * 2026", "86400", "8", "")), quantity: 1,
			note: `google_compute_autoscaler.gpu's scaling schedule "launch" runs once ("0 8 1 12 * 2026" names a year): it is left out`},
		{name: "a duration known only at apply", src: autoscaler("ON", window("office", "0 8 * * MON-FRI", "var.seconds", "4", "")), quantity: 1,
			note: `google_compute_autoscaler.gpu's scaling schedule "office": its duration_sec is known only at apply: the schedules are not applied`},
		{name: "an expression that does not parse", src: autoscaler("ON", window("office", "0 8 * *", "39600", "4", "")), quantity: 1,
			note: `google_compute_autoscaler.gpu's scaling schedules cannot be replayed (google_compute_autoscaler.gpu schedule "office": recurrence "0 8 * *": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := parseHCL(t, group+tc.src, Options{})
			if len(res.Errors) > 0 {
				t.Fatalf("errors %v", res.Errors)
			}
			mig := byAddress(t, res)["google_compute_instance_group_manager.gpu"]
			maxHours := 730.0 // max_replicas holds all month
			if tc.hours == 0 {
				maxHours = 0
			}
			expectScheduled(t, mig, scheduled{tc.quantity, tc.hours, 8, maxHours, tc.note})
		})
	}
}

// In plan JSON the autoscaling policy and its schedules are lists of blocks, and the autoscaler
// targets a group whose id is known only at apply.
func TestGCPScalingSchedulesInAPlan(t *testing.T) {
	mig := `{"name": "gpu", "zone": "europe-west4-a", "base_instance_name": "l4", "version": [{"name": ""}]}`
	tmpl := `{"name": "l4", "machine_type": "g2-standard-8"}`
	autoscaler := `{"name": "gpu", "zone": "europe-west4-a", "autoscaling_policy": [{"mode": "ON", "min_replicas": 1, "max_replicas": 8,
	  "scaling_schedules": [{"name": "office", "schedule": "0 8 * * MON-FRI", "time_zone": "Europe/Berlin", "duration_sec": 39600, "min_required_replicas": 4, "disabled": false, "description": ""}]}]}`
	resource := func(typ, name, values string) string {
		return `{"address": "` + typ + `.` + name + `", "mode": "managed", "type": "` + typ + `", "name": "` + name + `", "provider_name": "registry.terraform.io/hashicorp/google", "values": ` + values + `}`
	}
	change := func(typ, name, values, unknown string) string {
		return `{"address": "` + typ + `.` + name + `", "mode": "managed", "type": "` + typ + `", "name": "` + name + `", "change": {"actions": ["create"], "before": null, "after": ` + values + `, "after_unknown": ` + unknown + `}}`
	}
	plan := `{"format_version": "1.2", "terraform_version": "1.9.0",
	"planned_values": {"root_module": {"resources": [` +
		resource("google_compute_instance_template", "l4", tmpl) + `, ` +
		resource("google_compute_instance_group_manager", "gpu", mig) + `, ` +
		resource("google_compute_autoscaler", "gpu", autoscaler) + `]}},
	"resource_changes": [` +
		change("google_compute_instance_template", "l4", tmpl, `{"id": true}`) + `, ` +
		change("google_compute_instance_group_manager", "gpu", mig, `{"id": true, "version": [{"instance_template": true}]}`) + `, ` +
		change("google_compute_autoscaler", "gpu", autoscaler, `{"id": true, "target": true}`) + `],
	"configuration": {"provider_config": {"google": {"name": "google", "expressions": {"project": {"constant_value": "p"}, "region": {"constant_value": "europe-west4"}}}},
	  "root_module": {"resources": [
	  {"address": "google_compute_instance_group_manager.gpu", "mode": "managed", "type": "google_compute_instance_group_manager", "name": "gpu", "provider_config_key": "google",
	   "expressions": {"version": [{"instance_template": {"references": ["google_compute_instance_template.l4.id", "google_compute_instance_template.l4"]}}]}},
	  {"address": "google_compute_autoscaler.gpu", "mode": "managed", "type": "google_compute_autoscaler", "name": "gpu", "provider_config_key": "google",
	   "expressions": {"target": {"references": ["google_compute_instance_group_manager.gpu.id", "google_compute_instance_group_manager.gpu"]}}}]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	if len(res.Errors) > 0 {
		t.Fatalf("errors %v", res.Errors)
	}
	got := byAddress(t, res)["google_compute_instance_group_manager.gpu"]
	if got.Quantity != 4 || got.HoursPerMonth != 361.94 || got.InstanceType != "g2-standard-8" {
		t.Errorf("%d × %s for %.2f hours, want 4 × g2-standard-8 for 361.94; notes %q", got.Quantity, got.InstanceType, got.HoursPerMonth, got.Notes)
	}
}
