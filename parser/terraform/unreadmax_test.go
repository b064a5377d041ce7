package terraform

import (
	"strings"
	"testing"
)

// An autoscaler's maximum that the configuration declares but that cannot be read (known only
// after apply, too large, not a whole number) is no longer dropped in silence: the resource
// says which attribute and why, and is marked as having a maximum not known, so the total at
// every maximum is known to leave its growth out. A maximum that is absent or null says nothing.
func TestUnreadableMaximumsAreNoted(t *testing.T) {
	res := ParseSource("main.tf", []byte(`
provider "aws" { region = "us-east-1" }
provider "google" { region = "us-central1" }
resource "aws_launch_template" "g6" { instance_type = "g6.xlarge" }
resource "aws_autoscaling_group" "huge" {
  desired_capacity = 1
  max_size         = 100000000000000
  launch_template { id = aws_launch_template.g6.id }
}
resource "aws_autoscaling_group" "at_apply" {
  desired_capacity = 1
  max_size         = aws_launch_template.g6.latest_version
  launch_template { id = aws_launch_template.g6.id }
}
resource "aws_autoscaling_group" "fraction" {
  desired_capacity = 1
  max_size         = 2.5
  launch_template { id = aws_launch_template.g6.id }
}
resource "aws_autoscaling_group" "null_max" {
  desired_capacity = 1
  max_size         = null
  launch_template { id = aws_launch_template.g6.id }
}
resource "aws_eks_node_group" "ng" {
  cluster_name    = "c"
  node_group_name = "ng"
  node_role_arn   = "r"
  subnet_ids      = ["s"]
  instance_types  = ["g6.xlarge"]
  scaling_config {
    desired_size = 1
    min_size     = 1
    max_size     = 4294967296
  }
}
resource "aws_batch_compute_environment" "b" {
  compute_environment_name = "b"
  type                     = "MANAGED"
  compute_resources {
    type          = "EC2"
    instance_type = ["g6.2xlarge"]
    min_vcpus     = 0
    max_vcpus     = aws_launch_template.g6.latest_version
  }
}
resource "google_container_node_pool" "per_zone" {
  cluster  = "c"
  location = "us-central1-a"
  autoscaling {
    min_node_count = 0
    max_node_count = -1
  }
  node_config { machine_type = "g2-standard-8" }
}
resource "google_container_node_pool" "total" {
  cluster  = "c"
  location = "us-central1-a"
  autoscaling {
    total_min_node_count = 1
    total_max_node_count = 3000000000
  }
  node_config { machine_type = "g2-standard-8" }
}
resource "azurerm_kubernetes_cluster_node_pool" "maybe" {
  name                  = "maybe"
  kubernetes_cluster_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = aws_launch_template.g6.latest_version == 1
  node_count            = 1
  max_count             = 3
}
resource "azurerm_kubernetes_cluster_node_pool" "no_max" {
  name                  = "gpu"
  kubernetes_cluster_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.ContainerService/managedClusters/c"
  vm_size               = "Standard_NC24ads_A100_v4"
  auto_scaling_enabled  = true
  min_count             = 1
}
resource "google_vertex_ai_deployment_resource_pool" "vertex" {
  name   = "pool"
  region = "us-central1"
  dedicated_resources {
    machine_spec {
      machine_type      = "g2-standard-8"
      accelerator_type  = "NVIDIA_L4"
      accelerator_count = 1
    }
    min_replica_count = 1
    max_replica_count = 1.5
  }
}
resource "azurerm_machine_learning_compute_cluster" "aml" {
  name                          = "train"
  location                      = "eastus"
  machine_learning_workspace_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws"
  vm_size                       = "Standard_NC24ads_A100_v4"
  vm_priority                   = "Dedicated"
  scale_settings {
    min_node_count                       = 1
    max_node_count                       = aws_launch_template.g6.latest_version
    scale_down_nodes_after_idle_duration = "PT30M"
  }
}
resource "azapi_resource" "aml" {
  type      = "Microsoft.MachineLearningServices/workspaces/computes@2024-04-01"
  name      = "gpu"
  location  = "eastus"
  parent_id = "/subscriptions/x/resourceGroups/rg/providers/Microsoft.MachineLearningServices/workspaces/ws"
  body = {
    properties = {
      computeType = "AmlCompute"
      properties = {
        vmSize        = "Standard_NC24ads_A100_v4"
        scaleSettings = { minNodeCount = 1, maxNodeCount = 5000000000 }
      }
    }
  }
}
resource "databricks_cluster" "same" {
  cluster_name  = "same"
  spark_version = "15.4.x-gpu-ml-scala2.12"
  node_type_id  = "g5.xlarge"
  aws_attributes { availability = "ON_DEMAND" }
  autoscale {
    min_workers = 1
    max_workers = 100000000000000
  }
}
resource "databricks_cluster" "split" {
  cluster_name        = "split"
  spark_version       = "15.4.x-gpu-ml-scala2.12"
  node_type_id        = "g5.xlarge"
  driver_node_type_id = "g4dn.xlarge"
  aws_attributes { availability = "ON_DEMAND" }
  autoscale {
    min_workers = 0
    max_workers = aws_launch_template.g6.latest_version
  }
}
resource "aws_batch_compute_environment" "desired" {
  compute_environment_name = "desired"
  type                     = "MANAGED"
  compute_resources {
    type          = "EC2"
    instance_type = ["g6.2xlarge"]
    desired_vcpus = 100000000000000
    min_vcpus     = 0
    max_vcpus     = 64
  }
}
`), Options{})
	got := byAddress(t, res)
	for addr, want := range map[string]string{
		"aws_autoscaling_group.huge":                       "max_size cannot be read (100000000000000 is too large)",
		"aws_autoscaling_group.at_apply":                   "max_size cannot be read (aws_launch_template.g6.latest_version is known only after apply)",
		"aws_autoscaling_group.fraction":                   "max_size cannot be read (a whole non-negative number is required, got 2.5)",
		"aws_autoscaling_group.null_max":                   "",
		"aws_eks_node_group.ng":                            "scaling_config.max_size cannot be read (4294967296 is too large)",
		"aws_batch_compute_environment.b":                  "compute_resources.max_vcpus cannot be read (aws_launch_template.g6.latest_version is known only after apply)",
		"google_container_node_pool.per_zone":              "autoscaling.max_node_count cannot be read (a whole non-negative number is required, got -1)",
		"google_container_node_pool.total":                 "autoscaling.total_max_node_count cannot be read (3000000000 is too large)",
		"azurerm_kubernetes_cluster_node_pool.maybe":       "max_count cannot be read (whether the pool autoscales is known only after apply)",
		"azurerm_kubernetes_cluster_node_pool.no_max":      "max_count cannot be read (it is not set)",
		"google_vertex_ai_deployment_resource_pool.vertex": "max_replica_count cannot be read (a whole non-negative number is required, got 1.5)",
		"azurerm_machine_learning_compute_cluster.aml":     "scale_settings.max_node_count cannot be read (aws_launch_template.g6.latest_version is known only after apply)",
		"azapi_resource.aml":                               "body.properties.properties.scaleSettings.maxNodeCount cannot be read (5000000000 is too large)",
		"databricks_cluster.same":                          "autoscale.max_workers cannot be read (100000000000000 is too large)",
		"databricks_cluster.split.workers":                 "autoscale.max_workers cannot be read (aws_launch_template.g6.latest_version is known only after apply)",
		"databricks_cluster.split.driver":                  "",
	} {
		r, ok := got[addr]
		if !ok {
			t.Errorf("%s: not found", addr)
			continue
		}
		notes := strings.Join(r.Notes, "\n")
		if r.ScaleMax != nil {
			t.Errorf("%s: scale max %+v from an unreadable maximum", addr, r.ScaleMax)
		}
		if want == "" {
			if r.ScaleMaxUnknown || strings.Contains(notes, "cannot be read") {
				t.Errorf("%s: a null maximum was taken for an unreadable one: %q", addr, notes)
			}
			continue
		}
		if !r.ScaleMaxUnknown || !strings.Contains(notes, want+": the total at every maximum leaves out its growth") {
			t.Errorf("%s: unknown %v, notes %q, want %q", addr, r.ScaleMaxUnknown, notes, want)
		}
	}
	// An unreadable Databricks maximum leaves the cluster priced at its minimum, as every other
	// autoscaler's does: it used to make the whole cluster unresolved.
	for _, addr := range []string{"databricks_cluster.same", "databricks_cluster.split.workers", "databricks_cluster.split.driver"} {
		if r := got[addr]; len(r.Unresolved) > 0 {
			t.Errorf("%s: unresolved %+v", addr, r.Unresolved)
		}
	}
	if same, split := got["databricks_cluster.same"], got["databricks_cluster.split.workers"]; same.Quantity != 2 || split.Quantity != 0 {
		t.Errorf("databricks quantities %d (driver and min_workers 1) and %d (min_workers 0)", same.Quantity, split.Quantity)
	}
	// A Batch environment whose desired_vcpus cannot be read is unresolved; it is not priced at
	// min_vcpus, nor said to scale to zero.
	desired := got["aws_batch_compute_environment.desired"]
	if n := strings.Join(desired.Notes, "\n"); len(desired.Unresolved) != 1 || desired.Unresolved[0].Attribute != "compute_resources.0.desired_vcpus" || strings.Contains(n, "scales to zero") || strings.Contains(n, "min_vcpus") {
		t.Errorf("batch desired: unresolved %+v, notes %q", desired.Unresolved, n)
	}
	// Batch's note no longer claims "up to 0 vCPUs" for a maximum it could not read.
	if n := strings.Join(got["aws_batch_compute_environment.b"].Notes, "\n"); strings.Contains(n, "up to 0") || !strings.Contains(n, "scales to zero (min_vcpus 0): nothing runs while the queue is empty") {
		t.Errorf("batch notes %q", n)
	}
}
