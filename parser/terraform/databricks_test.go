package terraform

import (
	"slices"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// A driver and workers of different node types are two resources; with first_on_demand 0 and
// spot availability every node is on spot, the driver included. GCP's preemptible executors put
// the workers on spot and keep the driver on demand.
func TestDatabricksDriverAndWorkers(t *testing.T) {
	res := parseHCL(t, `
resource "databricks_cluster" "split" {
  spark_version       = "15.4.x-gpu-ml-scala2.12"
  node_type_id        = "p4d.24xlarge"
  driver_node_type_id = "g5.xlarge"
  num_workers         = 3
  aws_attributes {
    availability    = "SPOT"
    first_on_demand = 0
    zone_id         = "us-east-1a"
  }
}

resource "databricks_cluster" "gcp" {
  spark_version = "15.4.x-gpu-ml-scala2.12"
  node_type_id  = "a2-highgpu-1g"
  num_workers   = 2
  gcp_attributes {
    use_preemptible_executors = true
    zone_id                   = "us-central1-a"
  }
}
`, Options{})
	got := byAddress(t, res)
	driver, workers := got["databricks_cluster.split.driver"], got["databricks_cluster.split.workers"]
	if driver.InstanceType != "g5.xlarge" || driver.PurchaseOption != "spot" || driver.Quantity != 1 || driver.Region != "us-east-1" {
		t.Errorf("driver: %+v", driver)
	}
	if workers.InstanceType != "p4d.24xlarge" || workers.PurchaseOption != "spot" || workers.Quantity != 3 || workers.SpotQuantity != 0 {
		t.Errorf("workers: %+v", workers)
	}
	g := got["databricks_cluster.gcp"]
	if g.Provider != "gcp" || g.Region != "us-central1" || g.Quantity != 3 || !strings.Contains(strings.Join(g.Notes, "|"), "use_preemptible_executors") {
		t.Errorf("gcp: %+v", g)
	}
}

// A cluster whose node type is known only at plan is reported when something says it has GPUs,
// and left out (like any CPU cluster) when nothing does.
func TestDatabricksUnknownNodeType(t *testing.T) {
	src := `
data "databricks_node_type" "n" {
  min_gpus = %s
}
resource "databricks_cluster" "c" {
  spark_version = "15.4.x-scala2.12"
  node_type_id  = data.databricks_node_type.n.id
  num_workers   = 1
}
`
	res := parseHCL(t, strings.Replace(src, "%s", "1", 1), Options{})
	if len(res.Resources) != 1 || len(res.Resources[0].Unresolved) == 0 || !strings.Contains(strings.Join(res.Resources[0].Notes, "|"), "min_gpus = 1") {
		t.Fatalf("a GPU node type data source was not reported: %+v", res.Resources)
	}
	if res = parseHCL(t, strings.Replace(src, "%s", "0", 1), Options{}); len(res.Resources) != 0 {
		t.Fatalf("a CPU cluster was reported: %+v", res.Resources)
	}
}

// Dataproc's defaults: two primary workers, one master, n1-standard-4; a GPU only where a config
// attaches one. EMR: an instance group without instance_count is one instance.
func TestSparkClusterDefaults(t *testing.T) {
	res := parseHCL(t, `
resource "google_dataproc_cluster" "d" {
  region = "europe-west4"
  cluster_config {
    master_config {
      accelerators {
        accelerator_type = "nvidia-l4"
      }
    }
  }
}
resource "aws_emr_cluster" "e" {
  master_instance_group {
    instance_type = "p3.2xlarge"
  }
}
`, Options{})
	got := byAddress(t, res)
	m := got["google_dataproc_cluster.d.master"]
	if len(got) != 2 || m.InstanceType != "n1-standard-4" || m.Quantity != 1 || len(m.Accelerators) != 1 || m.Accelerators[0].Count != 1 || m.Region != "europe-west4" {
		t.Fatalf("dataproc: %+v", got)
	}
	if e := got["aws_emr_cluster.e.master"]; e.Quantity != 1 || e.InstanceType != "p3.2xlarge" {
		t.Fatalf("emr: %+v", e)
	}
}

// Attribute-based selection: requirements that ask for accelerators are a GPU resource whose type
// the estimator chooses; requirements without any, or that exclude them, are CPU instances.
func TestInstanceRequirements(t *testing.T) {
	src := `
resource "aws_launch_template" "lt" {
  instance_requirements {
    vcpu_count {
      min = 4
    }
    memory_mib {
      min = 16384
    }
    %s
  }
}
resource "aws_autoscaling_group" "g" {
  desired_capacity = 2
  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
    }
  }
}
`
	gpu := parseHCL(t, strings.Replace(src, "%s", "accelerator_count {\n      min = 1\n    }", 1), Options{})
	if len(gpu.Resources) != 1 || gpu.Resources[0].Requirements == nil || *gpu.Resources[0].Requirements.GPUs.Min != 1 || len(gpu.Resources[0].Unresolved) != 0 {
		t.Fatalf("GPU requirements: %+v", gpu.Resources)
	}
	for _, cpu := range []string{"", "accelerator_count {\n      max = 0\n    }"} {
		if res := parseHCL(t, strings.Replace(src, "%s", cpu, 1), Options{}); len(res.Resources) != 0 {
			t.Fatalf("CPU requirements %q reported: %+v", cpu, res.Resources)
		}
	}
}

// A launch template whose dynamic instance_requirements block makes no block is read by its
// instance type (an empty block list once made the mapper index past its end).
func TestInstanceRequirementsEmptyDynamicBlock(t *testing.T) {
	res := parseHCL(t, `
resource "aws_launch_template" "lt" {
  instance_type = "g5.xlarge"
  dynamic "instance_requirements" {
    for_each = []
    content {
      vcpu_count {
        min = 1
      }
      memory_mib {
        min = 1
      }
    }
  }
}
resource "aws_autoscaling_group" "plain" {
  desired_capacity = 1
  launch_template {
    id = aws_launch_template.lt.id
  }
}
resource "aws_autoscaling_group" "mixed" {
  desired_capacity = 1
  mixed_instances_policy {
    launch_template {
      launch_template_specification {
        launch_template_id = aws_launch_template.lt.id
      }
    }
  }
}
`, Options{})
	got := byAddress(t, res)
	if len(res.Errors) != 0 || got["aws_autoscaling_group.plain"].InstanceType != "g5.xlarge" || got["aws_autoscaling_group.mixed"].InstanceType != "g5.xlarge" {
		t.Fatalf("errors %v, resources %+v", res.Errors, got)
	}
}

// A Dataproc cluster's autoscaling policy, named by reference, by URI or (in a plan) through the
// configuration's references: primary workers between min_instances (2 by default) and
// max_instances, secondary workers from 0 to theirs; a size the cluster declares is the floor.
func TestDataprocAutoscalingPolicy(t *testing.T) {
	res := parseHCL(t, `
provider "google" { region = "us-central1" }
resource "google_dataproc_autoscaling_policy" "asp" {
  policy_id = "rapids"
  location  = "us-central1"
  worker_config {
    max_instances = 8
  }
  secondary_worker_config {
    max_instances = 20
  }
}
resource "google_dataproc_cluster" "ref" {
  cluster_config {
    autoscaling_config {
      policy_uri = google_dataproc_autoscaling_policy.asp.name
    }
    worker_config {
      machine_type = "g2-standard-8"
    }
  }
}
resource "google_dataproc_cluster" "uri" {
  cluster_config {
    autoscaling_config {
      policy_uri = "projects/p/regions/us-central1/autoscalingPolicies/rapids"
    }
    worker_config {
      num_instances = 5
      machine_type  = "g2-standard-8"
    }
  }
}
resource "google_dataproc_cluster" "none" {
  cluster_config {
    worker_config {
      machine_type = "g2-standard-8"
    }
  }
}
`, Options{})
	primary := &parser.ScaleMax{Quantity: 8, From: "worker_config.max_instances of google_dataproc_autoscaling_policy.asp"}
	secondary := &parser.ScaleMax{Quantity: 20, From: "secondary_worker_config.max_instances of google_dataproc_autoscaling_policy.asp"}
	expectScaling(t, res, map[string]scaled{
		"google_dataproc_cluster.ref.worker":             {2, primary},
		"google_dataproc_cluster.ref.preemptible_worker": {0, secondary},
		"google_dataproc_cluster.uri.worker":             {5, primary},
		"google_dataproc_cluster.uri.preemptible_worker": {0, secondary},
		"google_dataproc_cluster.none.worker":            {2, nil},
	})
	if n := byAddress(t, res)["google_dataproc_cluster.ref.worker"].Notes; !slices.Contains(n, "autoscaled by google_dataproc_autoscaling_policy.asp between 2 and 8 primary workers") {
		t.Errorf("notes %q", n)
	}

	plan := ParsePlan("plan.json", []byte(`{"format_version": "1.2", "planned_values": {"root_module": {"resources": [
 {"address": "google_dataproc_autoscaling_policy.asp", "mode": "managed", "type": "google_dataproc_autoscaling_policy", "name": "asp", "values": {"policy_id": "rapids", "location": "us-central1", "worker_config": [{"min_instances": 3, "max_instances": 6}], "secondary_worker_config": []}},
 {"address": "google_dataproc_cluster.c", "mode": "managed", "type": "google_dataproc_cluster", "name": "c", "values": {"region": "us-central1", "cluster_config": [{"autoscaling_config": [{}], "worker_config": [{"machine_type": "g2-standard-8"}]}]}}]}},
 "resource_changes": [{"address": "google_dataproc_cluster.c", "mode": "managed", "type": "google_dataproc_cluster", "name": "c", "change": {"actions": ["create"], "before": null, "after": {"region": "us-central1"}, "after_unknown": {"cluster_config": [{"autoscaling_config": [{"policy_uri": true}]}]}}}],
 "configuration": {"root_module": {"resources": [{"address": "google_dataproc_cluster.c", "mode": "managed", "type": "google_dataproc_cluster", "name": "c", "expressions": {"cluster_config": [{"autoscaling_config": [{"policy_uri": {"references": ["google_dataproc_autoscaling_policy.asp.name", "google_dataproc_autoscaling_policy.asp"]}}]}]}}]}}}`))
	expectScaling(t, plan, map[string]scaled{
		"google_dataproc_cluster.c.worker": {3, &parser.ScaleMax{Quantity: 6, From: "worker_config.max_instances of google_dataproc_autoscaling_policy.asp"}},
	})
}
