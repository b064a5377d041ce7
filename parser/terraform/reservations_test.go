package terraform

import (
	"strings"
	"testing"
)

// A reservation is priced for the capacity no instance of the configuration takes: targeted
// instances take it, an open reservation also takes instances of its type in its zone, others
// never; a reservation fully taken is listed at none, saying why.
func TestCapacityReservationsCountIdleCapacityOnce(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
resource "aws_ec2_capacity_reservation" "targeted" {
  instance_type           = "g6e.xlarge"
  instance_platform       = "Linux/UNIX"
  availability_zone       = "us-east-1a"
  instance_count          = 2
  instance_match_criteria = "targeted"
}
resource "aws_ec2_capacity_reservation" "open" {
  instance_type     = "g5.xlarge"
  instance_platform = "Linux/UNIX"
  availability_zone = "us-east-1b"
  instance_count    = 3
}
resource "aws_ec2_capacity_reservation" "unknown" {
  instance_type     = "g5.2xlarge"
  instance_platform = "Linux/UNIX"
  availability_zone = "us-east-1b"
  instance_count    = var.n
}
variable "n" { type = number }
resource "aws_instance" "in_targeted" {
  count         = 2
  instance_type = "g6e.xlarge"
  capacity_reservation_specification {
    capacity_reservation_target { capacity_reservation_id = aws_ec2_capacity_reservation.targeted.id }
  }
}
resource "aws_instance" "same_zone" {
  instance_type     = "g5.xlarge"
  availability_zone = "us-east-1b"
}
resource "aws_instance" "opted_out" {
  instance_type     = "g5.xlarge"
  availability_zone = "us-east-1b"
  capacity_reservation_specification { capacity_reservation_preference = "none" }
}
resource "aws_instance" "not_targeting" {
  instance_type     = "g6e.xlarge"
  availability_zone = "us-east-1a"
}
`, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got := byAddress(t, res)
	for addr, want := range map[string]int{"aws_ec2_capacity_reservation.targeted": 0, "aws_ec2_capacity_reservation.open": 2} {
		r := got[addr]
		if r.Quantity != want {
			t.Errorf("%s: quantity %d, want %d (notes %q)", addr, r.Quantity, want, r.Notes)
		}
	}
	if notes := strings.Join(got["aws_ec2_capacity_reservation.targeted"].Notes, " "); !strings.Contains(notes, "2 of it taken by aws_instance.in_targeted[0], aws_instance.in_targeted[1]") || !strings.Contains(notes, "the 0 left idle") {
		t.Errorf("targeted notes %q", notes)
	}
	if notes := strings.Join(got["aws_ec2_capacity_reservation.open"].Notes, " "); !strings.Contains(notes, "taken by aws_instance.same_zone (priced there)") {
		t.Errorf("open notes %q", notes)
	}
	if notes := strings.Join(got["aws_instance.in_targeted[0]"].Notes, " "); !strings.Contains(notes, "runs in aws_ec2_capacity_reservation.targeted") {
		t.Errorf("instance notes %q", notes)
	}
	if u := got["aws_ec2_capacity_reservation.unknown"].Unresolved; len(u) != 1 || u[0].Attribute != "instance_count" || !strings.Contains(u[0].Reason, "var.n") {
		t.Errorf("unknown count: %+v", got["aws_ec2_capacity_reservation.unknown"])
	}
}

// In a plan, an instance takes an existing reservation by its id, and a new one through the
// configuration's reference (its id is known only after apply).
func TestCapacityReservationsInAPlan(t *testing.T) {
	plan := `{"format_version":"1.2",
"planned_values":{"root_module":{"resources":[
{"address":"aws_ec2_capacity_reservation.old","mode":"managed","type":"aws_ec2_capacity_reservation","name":"old","values":{"id":"cr-0abc","instance_type":"g6e.xlarge","availability_zone":"us-east-1a","instance_count":3,"instance_match_criteria":"targeted"}},
{"address":"aws_ec2_capacity_reservation.new","mode":"managed","type":"aws_ec2_capacity_reservation","name":"new","values":{"instance_type":"g5.xlarge","availability_zone":"us-east-1a","instance_count":2,"instance_match_criteria":"targeted"}},
{"address":"aws_instance.a","mode":"managed","type":"aws_instance","name":"a","values":{"instance_type":"g6e.xlarge","capacity_reservation_specification":[{"capacity_reservation_preference":"open","capacity_reservation_target":[{"capacity_reservation_id":"cr-0abc"}]}]}},
{"address":"aws_instance.b","mode":"managed","type":"aws_instance","name":"b","values":{"instance_type":"g5.xlarge","capacity_reservation_specification":[{"capacity_reservation_target":[{}]}]}}
]}},
"resource_changes":[
{"address":"aws_ec2_capacity_reservation.new","mode":"managed","type":"aws_ec2_capacity_reservation","name":"new","change":{"actions":["create"],"after_unknown":{"id":true}}},
{"address":"aws_instance.b","mode":"managed","type":"aws_instance","name":"b","change":{"actions":["create"],"after_unknown":{"capacity_reservation_specification":[{"capacity_reservation_target":[{"capacity_reservation_id":true}]}]}}}
],
"configuration":{"root_module":{"resources":[
{"address":"aws_instance.b","mode":"managed","type":"aws_instance","name":"b","expressions":{"capacity_reservation_specification":[{"capacity_reservation_target":[{"capacity_reservation_id":{"references":["aws_ec2_capacity_reservation.new.id","aws_ec2_capacity_reservation.new"]}}]}]}}
]}}}`
	res := ParsePlan("plan.json", []byte(plan))
	got := byAddress(t, res)
	if q := got["aws_ec2_capacity_reservation.old"].Quantity; q != 2 {
		t.Errorf("old reservation: quantity %d, want 2 (notes %q)", q, got["aws_ec2_capacity_reservation.old"].Notes)
	}
	if q := got["aws_ec2_capacity_reservation.new"].Quantity; q != 1 {
		t.Errorf("new reservation: quantity %d, want 1 (notes %q)", q, got["aws_ec2_capacity_reservation.new"].Notes)
	}
}

// Node groups and Auto Scaling groups take a reservation through their launch template: their
// on-demand instances count, their spot ones do not.
func TestCapacityReservationsTakenThroughLaunchTemplates(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-1" }
resource "aws_ec2_capacity_reservation" "p5" {
  instance_type           = "p5.48xlarge"
  instance_platform       = "Linux/UNIX"
  availability_zone       = "us-east-1a"
  instance_count          = 8
  instance_match_criteria = "targeted"
}
resource "aws_launch_template" "p5" {
  instance_type = "p5.48xlarge"
  capacity_reservation_specification {
    capacity_reservation_target { capacity_reservation_id = aws_ec2_capacity_reservation.p5.id }
  }
}
resource "aws_eks_node_group" "train" {
  cluster_name  = "ml"
  node_role_arn = "arn"
  subnet_ids    = ["s"]
  launch_template {
    id      = aws_launch_template.p5.id
    version = "$Latest"
  }
  scaling_config {
    desired_size = 3
    min_size     = 3
    max_size     = 6
  }
}
resource "aws_autoscaling_group" "mixed" {
  desired_capacity = 4
  max_size         = 4
  min_size         = 0
  mixed_instances_policy {
    launch_template {
      launch_template_specification { launch_template_id = aws_launch_template.p5.id }
    }
    instances_distribution {
      on_demand_base_capacity                  = 2
      on_demand_percentage_above_base_capacity = 0
    }
  }
}
`, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got := byAddress(t, res)
	rv := got["aws_ec2_capacity_reservation.p5"]
	// 3 node group instances and the group's 2 on-demand ones take 5 of 8.
	if rv.Quantity != 3 || !strings.Contains(strings.Join(rv.Notes, " "), "5 of it taken by aws_autoscaling_group.mixed, aws_eks_node_group.train") {
		t.Fatalf("reservation %d, notes %q", rv.Quantity, rv.Notes)
	}
	if got["aws_eks_node_group.train"].Quantity != 3 || !strings.Contains(strings.Join(got["aws_eks_node_group.train"].Notes, " "), "runs in aws_ec2_capacity_reservation.p5") {
		t.Fatalf("node group %+v", got["aws_eks_node_group.train"])
	}
}

// A GKE node pool takes a specific reservation it names; an AKS node pool its reservation
// group's; a Capacity Block is listed with the reason it is not priced.
func TestCapacityReservationsTakenByNodePools(t *testing.T) {
	res := parseHCL(t, `
provider "google" { region = "us-central1" }
provider "aws" { region = "us-east-1" }
provider "azurerm" {
  features {}
}
resource "google_compute_reservation" "a3" {
  name = "a3-train"
  zone = "us-central1-a"
  specific_reservation_required = true
  specific_reservation {
    count = 4
    instance_properties { machine_type = "a3-highgpu-8g" }
  }
}
resource "google_container_node_pool" "train" {
  name       = "train"
  cluster    = "ml"
  location   = "us-central1-a"
  node_count = 3
  node_config {
    machine_type = "a3-highgpu-8g"
    reservation_affinity {
      consume_reservation_type = "SPECIFIC_RESERVATION"
      key                      = "compute.googleapis.com/reservation-name"
      values                   = ["projects/acme/reservations/a3-train"]
    }
  }
}
resource "azurerm_kubernetes_cluster" "ml" {
  name     = "ml"
  location = "East US"
  default_node_pool {
    name    = "system"
    vm_size = "Standard_D4s_v5"
  }
}
resource "azurerm_capacity_reservation_group" "g" {
  name     = "g"
  location = "East US"
}
resource "azurerm_capacity_reservation" "nc" {
  name                          = "nc"
  capacity_reservation_group_id = azurerm_capacity_reservation_group.g.id
  sku {
    name     = "Standard_NC24ads_A100_v4"
    capacity = 5
  }
}
resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  name                          = "gpu"
  kubernetes_cluster_id         = azurerm_kubernetes_cluster.ml.id
  vm_size                       = "Standard_NC24ads_A100_v4"
  node_count                    = 2
  capacity_reservation_group_id = azurerm_capacity_reservation_group.g.id
}
resource "aws_ec2_capacity_block_reservation" "burst" {
  capacity_block_offering_id = "cbr-0123"
  instance_platform          = "Linux/UNIX"
  instance_type              = "p5.48xlarge"
  instance_count             = 2
  availability_zone          = "us-east-1a"
}
`, Options{})
	if len(res.Errors) > 0 {
		t.Fatal(res.Errors)
	}
	got := byAddress(t, res)
	if q := got["google_compute_reservation.a3"].Quantity; q != 1 {
		t.Errorf("GCP reservation: %d idle, want 1 (notes %q)", q, got["google_compute_reservation.a3"].Notes)
	}
	if q := got["azurerm_capacity_reservation.nc"].Quantity; q != 3 {
		t.Errorf("Azure reservation: %d idle, want 3 (notes %q)", q, got["azurerm_capacity_reservation.nc"].Notes)
	}
	cb := got["aws_ec2_capacity_block_reservation.burst"]
	if cb.Quantity != 2 || len(cb.Unresolved) != 1 || !strings.Contains(cb.Unresolved[0].Reason, "paid upfront") {
		t.Errorf("capacity block %+v", cb)
	}
}

// A node pool's Kubernetes labels are not its GCP labels: the pool says so when it has only the
// former, so a GPU005 finding about missing labels is not a puzzle.
func TestNodePoolKubernetesLabelsNoted(t *testing.T) {
	res := parseHCL(t, `
resource "google_container_node_pool" "k8s_only" {
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type = "g2-standard-8"
    labels       = { team = "ml" }
  }
}
resource "google_container_node_pool" "both" {
  cluster  = "c"
  location = "us-central1-a"
  node_config {
    machine_type    = "g2-standard-8"
    labels          = { team = "ml" }
    resource_labels = { team = "ml" }
  }
}
`, Options{})
	got := map[string]string{}
	for _, r := range res.Resources {
		got[r.Address] = strings.Join(r.Notes, " ")
		if r.Address == "google_container_node_pool.both" && r.Tags["team"] != "ml" || r.Address == "google_container_node_pool.k8s_only" && len(r.Tags) != 0 {
			t.Errorf("%s tags %v", r.Address, r.Tags)
		}
	}
	if !strings.Contains(got["google_container_node_pool.k8s_only"], "Kubernetes node labels") || strings.Contains(got["google_container_node_pool.both"], "Kubernetes node labels") {
		t.Fatalf("notes: %q", got)
	}
}

// Instances in an EC2 Capacity Block for ML are paid through the block, at its offering's price:
// an EKS node group with capacity_type CAPACITY_BLOCK, an instance or a group launched with
// market type capacity-block are unpriced with that reason, never at on-demand rates; the
// same instance type launched normally is priced.
func TestCapacityBlockInstancesAreNotOnDemand(t *testing.T) {
	res := parseHCL(t, `
provider "aws" { region = "us-east-2" }
resource "aws_launch_template" "block" {
  instance_type = "p5.48xlarge"
  instance_market_options { market_type = "capacity-block" }
}
resource "aws_eks_node_group" "train" {
  cluster_name   = "ml"
  instance_types = ["p5.48xlarge"]
  capacity_type  = "CAPACITY_BLOCK"
  scaling_config {
    desired_size = 2
    min_size     = 2
    max_size     = 2
  }
}
resource "aws_instance" "direct" {
  instance_type = "p5.48xlarge"
  instance_market_options { market_type = "capacity-block" }
}
resource "aws_instance" "from_template" {
  launch_template { id = aws_launch_template.block.id }
}
resource "aws_autoscaling_group" "group" {
  min_size         = 1
  max_size         = 1
  desired_capacity = 1
  launch_template { id = aws_launch_template.block.id }
}
resource "aws_instance" "on_demand" {
  instance_type = "p5.48xlarge"
}
`, Options{})
	want := map[string]string{
		"aws_eks_node_group.train":    "capacity_type",
		"aws_instance.direct":         "instance_market_options.market_type",
		"aws_instance.from_template":  "aws_launch_template.block.instance_market_options.market_type",
		"aws_autoscaling_group.group": "aws_launch_template.block.instance_market_options.market_type",
		"aws_instance.on_demand":      "",
	}
	if len(res.Resources) != len(want) {
		t.Fatalf("resources %+v", res.Resources)
	}
	for _, r := range res.Resources {
		attr, ok := want[r.Address]
		if !ok {
			t.Errorf("unexpected %s", r.Address)
			continue
		}
		if attr == "" {
			if len(r.Unresolved) != 0 || r.InstanceType != "p5.48xlarge" {
				t.Errorf("%s: %s, unresolved %+v", r.Address, r.InstanceType, r.Unresolved)
			}
			continue
		}
		if r.InstanceType != "p5.48xlarge" || len(r.Unresolved) != 1 || r.Unresolved[0].Attribute != attr ||
			!strings.Contains(r.Unresolved[0].Reason, "Capacity Block for ML, paid upfront") {
			t.Errorf("%s: %s, unresolved %+v; want %s unresolved for the Capacity Block", r.Address, r.InstanceType, r.Unresolved, attr)
		}
	}
}
