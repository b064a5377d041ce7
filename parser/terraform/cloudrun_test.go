package terraform

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// Cloud Run services, jobs and worker pools that ask for GPUs are listed unpriced with Cloud
// Run's reason, their GPU named, their count read as Cloud Run runs them; one without GPUs is not
// listed.
func TestCloudRunGPUs(t *testing.T) {
	gpu := `
    containers {
      image = "x"
      resources { limits = { cpu = "8", memory = "32Gi", "nvidia.com/gpu" = "1" } }
    }
    node_selector { accelerator = "nvidia-l4" }`
	cases := []struct {
		name, src   string
		qty, max    int
		region      string
		accelerator string
		note        string
	}{
		{"service scales to zero", `resource "google_cloud_run_v2_service" "s" {
  location = "europe-west4"
  template {` + gpu + `
  }
}`, 0, 0, "europe-west4", "nvidia-l4", "scales to zero"},
		{"service floor: the larger of service and revision minimums", `resource "google_cloud_run_v2_service" "s" {
  location = "us-central1"
  scaling { min_instance_count = 2 }
  template {
    scaling {
      min_instance_count = 3
      max_instance_count = 8
    }` + gpu + `
  }
}`, 3, 8, "us-central1", "nvidia-l4", "3 instances always on (template.scaling.min_instance_count)"},
		{"service floor: the service's when larger", `resource "google_cloud_run_v2_service" "s" {
  location = "us-central1"
  scaling { min_instance_count = 4 }
  template {
    scaling { min_instance_count = 1 }` + gpu + `
  }
}`, 4, 0, "us-central1", "nvidia-l4", "4 instances always on (scaling.min_instance_count)"},
		{"service maximum: the smaller of the two", `resource "google_cloud_run_v2_service" "s" {
  location = "us-central1"
  scaling {
    min_instance_count = 2
    max_instance_count = 4
  }
  template {
    scaling { max_instance_count = 6 }` + gpu + `
  }
}`, 2, 4, "us-central1", "nvidia-l4", "up to 4 instances (scaling.max_instance_count)"},
		{"service in manual scaling", `resource "google_cloud_run_v2_service" "s" {
  location = "us-central1"
  scaling {
    scaling_mode          = "MANUAL"
    manual_instance_count = 5
    min_instance_count    = 1
  }
  template {` + gpu + `
  }
}`, 5, 0, "us-central1", "nvidia-l4", "5 instances always on (scaling.manual_instance_count)"},
		{"job: parallelism of the tasks at once", `resource "google_cloud_run_v2_job" "j" {
  location = "us-east4"
  template {
    task_count  = 10
    parallelism = 3
    template {` + gpu + `
    }
  }
}`, 3, 0, "us-east4", "nvidia-l4", "each execution runs 10 tasks, 3 at a time"},
		{"job: parallelism 0 runs every task at once", `resource "google_cloud_run_v2_job" "j" {
  location = "us-east4"
  template {
    task_count  = 4
    parallelism = 0
    template {` + gpu + `
    }
  }
}`, 4, 0, "us-east4", "nvidia-l4", "4 tasks, 4 at a time"},
		{"job: one task by default, parallelism above it capped", `resource "google_cloud_run_v2_job" "j" {
  location = "us-east4"
  template {
    parallelism = 5
    template {` + gpu + `
    }
  }
}`, 1, 0, "us-east4", "nvidia-l4", "1 task, 1 at a time"},
		{"worker pool: manual by default", `resource "google_cloud_run_v2_worker_pool" "w" {
  location = "us-central1"
  scaling { manual_instance_count = 2 }
  template {
    containers {
      image = "x"
      resources { limits = { "nvidia.com/gpu" = "1" } }
    }
    node_selector { accelerator = "nvidia-rtx-pro-6000" }
  }
}`, 2, 0, "us-central1", "nvidia-rtx-pro-6000", "2 instances always on"},
		{"worker pool without scaling runs one instance", `resource "google_cloud_run_v2_worker_pool" "w" {
  location = "us-central1"
  template {` + gpu + `
  }
}`, 1, 0, "us-central1", "nvidia-l4", "counted as 1 instance"},
		{"v1 service: the revision's minScale and maxScale", `resource "google_cloud_run_service" "v1" {
  location = "asia-southeast1"
  template {
    metadata {
      annotations = {
        "autoscaling.knative.dev/minScale" = "1"
        "autoscaling.knative.dev/maxScale" = "4"
      }
    }
    spec {
      containers {
        image = "x"
        resources { limits = { "nvidia.com/gpu" = "1" } }
      }
      node_selector = { "run.googleapis.com/accelerator" = "nvidia-l4" }
    }
  }
}`, 1, 4, "asia-southeast1", "nvidia-l4", "1 instance always on (autoscaling.knative.dev/minScale)"},
		{"v1 service: a maximum at the floor is no range", `resource "google_cloud_run_service" "v1" {
  location = "asia-southeast1"
  template {
    metadata {
      annotations = {
        "autoscaling.knative.dev/minScale" = "2"
        "autoscaling.knative.dev/maxScale" = "2"
      }
    }
    spec {
      containers {
        image = "x"
        resources { limits = { "nvidia.com/gpu" = "1" } }
      }
      node_selector = { "run.googleapis.com/accelerator" = "nvidia-l4" }
    }
  }
}`, 2, 0, "asia-southeast1", "nvidia-l4", "2 instances always on"},
		{"GPUs without an accelerator named", `resource "google_cloud_run_v2_service" "s" {
  location = "us-central1"
  template {
    containers {
      image = "x"
      resources { limits = { "nvidia.com/gpu" = "1" } }
    }
  }
}`, 0, 0, "us-central1", "", "Cloud Run attaches its default GPU"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := parseHCL(t, c.src, Options{})
			if len(res.Errors) > 0 || len(res.Warnings) > 0 || len(res.Resources) != 1 {
				t.Fatalf("errors %+v, warnings %+v, %d resources", res.Errors, res.Warnings, len(res.Resources))
			}
			r := res.Resources[0]
			if r.Provider != parser.GCP || r.Region != c.region || r.Quantity != c.qty || r.InstanceType != "" || !r.NoSpot || r.NoMIG != "Cloud Run" {
				t.Errorf("provider %q region %q quantity %d (want %d) type %q no spot %v no MIG %q", r.Provider, r.Region, r.Quantity, c.qty, r.InstanceType, r.NoSpot, r.NoMIG)
			}
			var want []parser.Accelerator
			if c.accelerator != "" {
				want = []parser.Accelerator{{Type: c.accelerator, Count: 1}}
			}
			if !slices.Equal(r.Accelerators, want) {
				t.Errorf("accelerators %+v, want %+v", r.Accelerators, want)
			}
			if len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != "price" || !strings.Contains(r.Unresolved[0].Reason, "Cloud Run prices are not in gpuguard's catalog") {
				t.Errorf("unresolved %+v, want Cloud Run's price", r.Unresolved)
			}
			switch {
			case c.max == 0 && r.ScaleMax != nil:
				t.Errorf("scale max %+v, want none", r.ScaleMax)
			case c.max != 0 && (r.ScaleMax == nil || r.ScaleMax.Quantity != c.max):
				t.Errorf("scale max %+v, want %d", r.ScaleMax, c.max)
			}
			if !strings.Contains(strings.Join(r.Notes, "\n"), c.note) {
				t.Errorf("notes %q, want one saying %q", r.Notes, c.note)
			}
			if strings.HasSuffix(r.Type, "_job") != r.RunsToCompletion {
				t.Errorf("%s runs to completion: %v", r.Type, r.RunsToCompletion)
			}
		})
	}
}

// Cloud Run resources without GPUs are not GPU resources; a resource type gpuguard does not read
// that names a GPU in a Cloud Run-style node selector, or an AppStream graphics instance, is a
// warning at the attribute's line, not a silent omission.
func TestCloudRunWithoutGPUsAndUnreadGPUNames(t *testing.T) {
	res := parseHCL(t, `provider "aws" { region = "us-east-1" }
resource "google_cloud_run_v2_job" "cpu" {
  location = "us-central1"
  template {
    template {
      containers { image = "x" }
    }
  }
}
resource "google_cloud_run_v2_worker_pool" "cpu" {
  location = "us-central1"
  template {
    containers { image = "x" }
  }
}
resource "google_future_gpu_service" "f" {
  template {
    node_selector {
      accelerator = "nvidia-l4"
    }
  }
}
resource "aws_appstream_fleet" "graphics" {
  instance_type = "stream.graphics.g4dn.xlarge"
}
resource "aws_appstream_fleet" "standard" {
  instance_type = "stream.standard.medium"
}
`, Options{})
	if len(res.Resources) != 0 || len(res.Errors) != 0 {
		t.Fatalf("resources %+v, errors %+v", res.Resources, res.Errors)
	}
	want := []struct {
		line int
		text string
	}{
		{19, "google_future_gpu_service.f: template.node_selector.accelerator is GPU type nvidia-l4"},
		{24, "aws_appstream_fleet.graphics: instance_type is GPU type stream.graphics.g4dn.xlarge"},
	}
	if len(res.Warnings) != len(want) {
		t.Fatalf("warnings %+v, want %d", res.Warnings, len(want))
	}
	for i, w := range want {
		if res.Warnings[i].Line != w.line || !strings.Contains(res.Warnings[i].Message, w.text) {
			t.Errorf("warning %d: %+v, want line %d saying %q", i, res.Warnings[i], w.line, w.text)
		}
	}
}
