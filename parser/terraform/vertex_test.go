package terraform

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// Vertex AI prediction nodes are read from a deployment resource pool's dedicated_resources and
// from a Model Garden deployment's deploy_config: machine type, GPUs under their Compute Engine
// names, replicas, spot; both carry OwnPrice (priced as a lower bound) and take no labels.
// A Model Garden deployment without dedicated resources is unresolved; TPU and CPU pools are not
// GPU resources.
func TestVertexAIPredictionNodes(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "terraform", "vertex_ai", "main.tf")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	res := ParseSource("main.tf", src, Options{})
	if len(res.Errors) > 0 || len(res.Warnings) > 0 {
		t.Fatalf("errors %+v, warnings %+v", res.Errors, res.Warnings)
	}
	got := byAddress(t, res)
	if len(got) != 3 {
		t.Fatalf("want the T4 pool and two Model Garden deployments, got %v", slices.Sorted(maps.Keys(got)))
	}
	for a, r := range got {
		if r.OwnPrice == nil || r.OwnPrice.By != "Vertex AI prediction" || !r.OwnPrice.Higher || !r.TagsUnsupported || r.Region != "us-central1" || r.Provider != parser.GCP || r.NoMIG != "Vertex AI prediction" {
			t.Errorf("%s: own price %+v, tags unsupported %v, region %q, provider %q, no MIG %q", a, r.OwnPrice, r.TagsUnsupported, r.Region, r.Provider, r.NoMIG)
		}
	}

	pool := got["google_vertex_ai_deployment_resource_pool.shared"]
	if pool.InstanceType != "n1-standard-8" || !slices.Equal(pool.Accelerators, []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 1}}) ||
		pool.Quantity != 1 || pool.ScaleMax == nil || pool.ScaleMax.Quantity != 4 || pool.ScaleMax.From != "max_replica_count" ||
		pool.PurchaseOption != parser.OnDemand || len(pool.Unresolved) > 0 {
		t.Errorf("pool: %+v (scale max %+v)", pool, pool.ScaleMax)
	}
	gemma := got["google_vertex_ai_endpoint_with_model_garden_deployment.gemma"]
	if gemma.InstanceType != "g2-standard-12" || len(gemma.Accelerators) != 0 || gemma.Quantity != 2 || gemma.ScaleMax != nil ||
		gemma.PurchaseOption != parser.Spot {
		t.Errorf("Model Garden on G2 spot: %+v", gemma)
	}
	llama := got["google_vertex_ai_endpoint_with_model_garden_deployment.llama"]
	if llama.InstanceType != "" || len(llama.Unresolved) != 1 || llama.Unresolved[0].Attribute != "deploy_config.dedicated_resources" ||
		!strings.Contains(llama.Unresolved[0].Reason, "default machine") {
		t.Errorf("Model Garden without dedicated resources: %+v", llama)
	}
}

// The same nodes read from JSON configuration (nested blocks are objects), a machine type known
// only at apply (unresolved, never guessed), a pool that scales to zero, and an A3 machine whose
// H100s come with it (not priced twice).
func TestVertexAIEdgeCases(t *testing.T) {
	js := `{"resource": {"google_vertex_ai_endpoint_with_model_garden_deployment": {"m": {
  "location": "europe-west4",
  "deploy_config": {"dedicated_resources": {"machine_spec": {"machine_type": "a3-highgpu-8g", "accelerator_type": "NVIDIA_H100_80GB", "accelerator_count": 8}, "min_replica_count": 1, "max_replica_count": 1}}
}}}}`
	res := ParseSource("main.tf.json", []byte(js), Options{})
	m := byAddress(t, res)["google_vertex_ai_endpoint_with_model_garden_deployment.m"]
	if m.InstanceType != "a3-highgpu-8g" || len(m.Accelerators) != 0 || m.Quantity != 1 || m.ScaleMax != nil || m.Region != "europe-west4" ||
		!slices.ContainsFunc(m.Notes, func(n string) bool { return strings.Contains(n, "includes its GPUs") }) {
		t.Errorf("JSON, A3: %+v (errors %+v)", m, res.Errors)
	}

	res = parseHCL(t, `
provider "google" { region = "us-east4" }
variable "machine" {}
resource "google_vertex_ai_deployment_resource_pool" "later" {
  name = "later"
  dedicated_resources {
    machine_spec {
      machine_type      = var.machine
      accelerator_type  = "NVIDIA_L4"
      accelerator_count = 1
    }
    min_replica_count = 1
  }
}
resource "google_vertex_ai_deployment_resource_pool" "idle" {
  name   = "idle"
  region = "us-west1"
  dedicated_resources {
    machine_spec {
      machine_type      = "n1-standard-4"
      accelerator_type  = "NVIDIA_TESLA_T4"
      accelerator_count = 2
    }
    min_replica_count = 0
    max_replica_count = 3
  }
}
`, Options{})
	got := byAddress(t, res)
	later := got["google_vertex_ai_deployment_resource_pool.later"]
	if later.InstanceType != "" || len(later.Unresolved) != 1 || later.Unresolved[0].Attribute != "dedicated_resources.0.machine_spec.0.machine_type" ||
		later.Region != "us-east4" || !slices.Equal(later.Accelerators, []parser.Accelerator{{Type: "nvidia-l4", Count: 1}}) {
		t.Errorf("machine type from a variable without a value: %+v", later)
	}
	idle := got["google_vertex_ai_deployment_resource_pool.idle"]
	if idle.Quantity != 0 || idle.ScaleMax == nil || idle.ScaleMax.Quantity != 3 ||
		!slices.Equal(idle.Accelerators, []parser.Accelerator{{Type: "nvidia-tesla-t4", Count: 2}}) ||
		!slices.ContainsFunc(idle.Notes, func(n string) bool { return strings.Contains(n, "min_replica_count is 0") }) {
		t.Errorf("scales to zero: %+v", idle)
	}
}
