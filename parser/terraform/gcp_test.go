package terraform

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// A GCP VM with GPUs set to live-migrate for host maintenance is refused by Compute Engine: a
// warning at the resource's line says so; TERMINATE, and a VM without GPUs, are quiet.
func TestGPUVMsCannotMigrate(t *testing.T) {
	const t4 = `
  guest_accelerator {
    type  = "nvidia-tesla-t4"
    count = 1
  }`
	cases := []struct {
		name, body string
		warn       bool
	}{
		{"accelerator-optimized machine", `machine_type = "g2-standard-8"` + "\n  scheduling { on_host_maintenance = \"MIGRATE\" }", true},
		{"N1 with an attached GPU", `machine_type = "n1-standard-8"` + t4 + "\n  scheduling { on_host_maintenance = \"migrate\" }", true},
		{"N1 with an attached GPU, terminated", `machine_type = "n1-standard-8"` + t4 + "\n  scheduling { on_host_maintenance = \"TERMINATE\" }", false},
		{"no GPUs", `machine_type = "n2-standard-8"` + "\n  scheduling { on_host_maintenance = \"MIGRATE\" }", false},
	}
	for _, tc := range cases {
		// (An instance template is read through the instances and groups made from it, which
		// warn at their own address.)
		for _, typ := range []string{"google_compute_instance"} {
			src := "provider \"google\" { region = \"us-central1\" }\n\nresource \"" + typ + "\" \"vm\" {\n  " + tc.body + "\n}\n"
			res := ParseSource("main.tf", []byte(src), Options{})
			var got []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "on_host_maintenance") {
					got = append(got, w.Message)
					if w.File != "main.tf" || w.Line != 3 || !strings.HasPrefix(w.Message, typ+".vm: ") || !strings.Contains(w.Message, "terraform apply would fail") {
						t.Errorf("%s, %s: warning %+v", tc.name, typ, w)
					}
				}
			}
			if (len(got) == 1) != tc.warn || len(got) > 1 || len(res.Errors) > 0 {
				t.Errorf("%s, %s: warnings %q, errors %+v", tc.name, typ, got, res.Errors)
			}
		}
	}
}

// A GCP VM with GPUs that sets no on_host_maintenance gets Compute Engine's default, MIGRATE,
// and is refused too: the same warning, for an instance, the instances and groups made from a
// template, and the VM module's stand-in (which sets TERMINATE itself for a gpu, not for a
// machine type with GPUs built in). Spot and preemptible VMs, and a setting known only at
// apply, are quiet.
func TestGPUVMsWithoutAMaintenancePolicy(t *testing.T) {
	vm := func(body string) string {
		return "resource \"google_compute_instance\" \"vm\" {\n  zone = \"us-central1-a\"\n  " + body + "\n}\n"
	}
	const t4 = "machine_type = \"n1-standard-8\"\n  guest_accelerator {\n    type  = \"nvidia-tesla-t4\"\n    count = 1\n  }"
	template := func(scheduling string) string {
		return "resource \"google_compute_instance_template\" \"t\" {\n  machine_type = \"a2-highgpu-1g\"\n  " + scheduling + "\n}\n"
	}
	// vmModuleMIG is a managed instance group of terraform-google-modules/vm made from module.tpl.
	const vmModuleMIG = `module "mig" {
  source            = "terraform-google-modules/vm/google//modules/mig"
  region            = "us-central1"
  instance_template = module.tpl.self_link
  target_size       = 1
}`
	cases := []struct {
		name, src string
		warn      string // the address warned about, "" for none
	}{
		{"A2, none set", vm(`machine_type = "a2-highgpu-1g"`), "google_compute_instance.vm"},
		{"N1 with a T4, none set", vm(t4), "google_compute_instance.vm"},
		{"a scheduling block without it", vm(t4 + "\n  scheduling { automatic_restart = true }"), "google_compute_instance.vm"},
		{"spot", vm(`machine_type = "g2-standard-8"` + "\n  scheduling { provisioning_model = \"SPOT\" }"), ""},
		{"preemptible", vm(t4 + "\n  scheduling { preemptible = true }"), ""},
		{"no GPUs", vm(`machine_type = "n2-standard-8"`), ""},
		{"known only at apply", "variable \"policy\" { type = string }\n" + vm(t4+"\n  scheduling { on_host_maintenance = var.policy }"), ""},
		{"a scheduling block known only at apply", "variable \"s\" { type = list(any) }\n" + vm(t4+"\n  dynamic \"scheduling\" {\n    for_each = var.s\n    content { on_host_maintenance = scheduling.value }\n  }"), ""},
		{"a group made from a template without it", template("") + `resource "google_compute_instance_group_manager" "g" {
  zone               = "us-central1-a"
  base_instance_name = "g"
  target_size        = 2
  version { instance_template = google_compute_instance_template.t.self_link_unique }
}`, "google_compute_instance_group_manager.g"},
		{"an instance made from a template with it", template(`scheduling { on_host_maintenance = "TERMINATE" }`) + `resource "google_compute_instance_from_template" "i" {
  zone                     = "us-central1-a"
  source_instance_template = google_compute_instance_template.t.self_link_unique
}`, ""},
		{"an instance setting it over its template's", template(`scheduling { on_host_maintenance = "TERMINATE" }`) + `resource "google_compute_instance_from_template" "i" {
  zone                     = "us-central1-a"
  source_instance_template = google_compute_instance_template.t.self_link_unique
  scheduling { on_host_maintenance = "MIGRATE" }
}`, "google_compute_instance_from_template.i"},
		{"the VM module given a gpu", `module "tpl" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  region       = "us-central1"
  machine_type = "n1-standard-8"
  gpu          = { type = "nvidia-tesla-t4", count = 1 }
}
` + vmModuleMIG, ""},
		{"the VM module with an A2 and its default", `module "tpl" {
  source       = "terraform-google-modules/vm/google//modules/instance_template"
  region       = "us-central1"
  machine_type = "a2-highgpu-1g"
}
` + vmModuleMIG, "module.mig.google_compute_region_instance_group_manager.mig"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteFiles(t, dir, map[string]string{"main.tf": "provider \"google\" { region = \"us-central1\" }\n" + tc.src})
			res := ParseModuleDir(dir, Options{})
			if len(res.Resources) == 0 && tc.name != "no GPUs" || len(res.Errors) > 0 {
				t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
			}
			var got []string
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "on_host_maintenance") {
					got = append(got, w.Message)
				}
			}
			switch {
			case tc.warn == "" && len(got) > 0:
				t.Errorf("warnings %q", got)
			case tc.warn != "" && (len(got) != 1 || !strings.HasPrefix(got[0], tc.warn+": ") || !strings.Contains(got[0], "terraform apply would fail")):
				t.Errorf("warnings %q, want one for %s", got, tc.warn)
			}
		})
	}
}

// Flex-start capacity (Dynamic Workload Scheduler) is billed at prices of its own, below
// on-demand: a GKE pool's node_config.flex_start, a pool's queued provisioning and a VM's
// FLEX_START provisioning model carry that price (on demand only), with a note; a spot VM and a
// plain pool do not.
func TestFlexStartHasItsOwnPrice(t *testing.T) {
	res := parseHCL(t, `
provider "google" { region = "us-central1" }
resource "google_container_node_pool" "flex" {
  name     = "flex"
  cluster  = "c"
  location = "us-central1-a"
  autoscaling {
    total_min_node_count = 0
    total_max_node_count = 4
  }
  node_config {
    machine_type = "a3-highgpu-8g"
    flex_start   = true
  }
}
resource "google_container_node_pool" "queued" {
  name     = "queued"
  cluster  = "c"
  location = "us-central1-a"
  queued_provisioning {
    enabled = true
  }
  node_config {
    machine_type = "g2-standard-24"
  }
}
resource "google_container_node_pool" "plain" {
  name       = "plain"
  cluster    = "c"
  location   = "us-central1-a"
  node_count = 1
  node_config {
    machine_type = "g2-standard-24"
  }
}
resource "google_compute_instance" "flex" {
  name         = "flex"
  zone         = "us-central1-a"
  machine_type = "a2-highgpu-1g"
  scheduling {
    provisioning_model = "FLEX_START"
    on_host_maintenance = "TERMINATE"
  }
}
resource "google_compute_instance" "spot" {
  name         = "spot"
  zone         = "us-central1-a"
  machine_type = "a2-highgpu-1g"
  scheduling {
    provisioning_model = "SPOT"
  }
}
`, Options{})
	got := byAddress(t, res)
	for addr, note := range map[string]string{
		"google_container_node_pool.flex":   "flex-start nodes",
		"google_container_node_pool.queued": "queued provisioning",
		"google_compute_instance.flex":      "a flex-start VM",
	} {
		r := got[addr]
		if o := r.OwnPrice; o == nil || o.Higher || o.Only != parser.OnDemand || !strings.Contains(o.By, "Flex-start") || r.PurchaseOption != parser.OnDemand ||
			!slices.ContainsFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, note) }) {
			t.Errorf("%s: own price %+v, purchase %s, notes %q", addr, r.OwnPrice, r.PurchaseOption, r.Notes)
		}
	}
	for _, addr := range []string{"google_container_node_pool.plain", "google_compute_instance.spot"} {
		if r, ok := got[addr]; !ok || r.OwnPrice != nil {
			t.Errorf("%s: %+v", addr, r)
		}
	}
}
