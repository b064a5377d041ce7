package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

var awsTypes = []string{"g5.xlarge", "g5.12xlarge", "g6.xlarge", "g6e.2xlarge", "p4d.24xlarge", "p5.48xlarge", "m5.large"}
var gcpTypes = []string{"g2-standard-8", "a2-highgpu-1g", "a3-highgpu-8g", "n1-standard-8"}
var azureTypes = []string{"Standard_NC24ads_A100_v4", "Standard_NC8as_T4_v3", "Standard_ND96isr_H100_v5", "Standard_D4s_v5"}

// WriteTerraform writes n Terraform root modules under dir (stack-0000 ...), cycling through
// AWS, GCP and Azure, each calling one shared local module. It returns the stack count written.
func WriteTerraform(dir string, n int) error {
	mod := filepath.Join(dir, "modules", "gpu-vm")
	if err := os.MkdirAll(mod, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(mod, "main.tf"), []byte(sharedModule), 0o644); err != nil {
		return err
	}
	for i := 0; i < n; i++ {
		sd := filepath.Join(dir, fmt.Sprintf("stack-%04d", i))
		if err := os.MkdirAll(sd, 0o755); err != nil {
			return err
		}
		var main, vars string
		switch i % 3 {
		case 0:
			main, vars = awsStack(i), fmt.Sprintf("gpu_type = %q\nreplicas = %d\n", awsTypes[i%len(awsTypes)], 1+i%4)
		case 1:
			main, vars = gcpStack(i), fmt.Sprintf("machine_type = %q\nnodes = %d\n", gcpTypes[i%len(gcpTypes)], 1+i%3)
		default:
			main, vars = azureStack(i), fmt.Sprintf("vm_size = %q\nnodes = %d\n", azureTypes[i%len(azureTypes)], 1+i%5)
		}
		if err := os.WriteFile(filepath.Join(sd, "main.tf"), []byte(main), 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(sd, "terraform.tfvars"), []byte(vars), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// profiles are the workload profiles the corpus attaches, by file name.
var profiles = map[string]string{
	// Interruptible LoRA training: on demand it draws a spot warning; big instances are oversized.
	"lora-training.yaml": `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: lora-training}
workload: {type: training, interruptible: true}
model: {preset: llama-2-7b, precision: bf16}
training:
  method: lora
  lora_rank: 16
  optimizer: adamw
  micro_batch_size: 2
  sequence_length: 2048
  activation_checkpointing: true
  flash_attention: true
`,
	// Latency-sensitive serving: on a spot node group it is denied.
	"serving.yaml": `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: serving}
workload: {type: inference, latency_sensitive: true}
model: {preset: llama-3.1-8b, precision: bf16}
inference: {batch_size: 16, max_sequence_length: 4096, kv_cache_precision: fp16}
`,
	// A small always-on model: commitments, smaller types and MIG slices apply.
	"small-inference.yaml": `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: small-inference}
workload: {type: inference}
model: {preset: mistral-7b, precision: int4}
inference: {batch_size: 4, max_sequence_length: 2048, kv_cache_precision: fp8}
`,
	// Full 70B training: it does not fit the smaller GPUs it is given.
	"full-training.yaml": `apiVersion: gpuguard.dev/v1
kind: WorkloadProfile
metadata: {name: full-training}
workload: {type: training, interruptible: true}
model: {preset: llama-3.1-70b, precision: bf16}
training:
  method: full
  optimizer: adamw
  micro_batch_size: 1
  sequence_length: 4096
  activation_checkpointing: true
  flash_attention: true
  fsdp: full_shard
  data_parallel: 4
`,
}

// corpusConfig attaches the profiles by address.
const corpusConfig = `profiles:
  aws_instance.trainer: profiles/lora-training.yaml
  aws_eks_node_group.pool: profiles/serving.yaml
  aws_autoscaling_group.serve: profiles/small-inference.yaml
  google_container_node_pool.gpu: profiles/small-inference.yaml
  azurerm_kubernetes_cluster_node_pool.gpu: profiles/full-training.yaml
`

// AttachProfiles writes, beside the stacks of WriteTerraform, a .gpuguard.yaml that attaches
// workload profiles (profiles/) to most GPU resources, as a team that uses gpuguard would: the
// estimator then judges memory fit and recommends cheaper fits, and every built-in guardrail
// but the budget, unpriced and suppression rules has something to say. The notebook module, the
// GCP dev instance and the Azure workstation keep no profile.
func AttachProfiles(dir string) error {
	if err := os.MkdirAll(filepath.Join(dir, "profiles"), 0o755); err != nil {
		return err
	}
	for name, text := range profiles {
		if err := os.WriteFile(filepath.Join(dir, "profiles", name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	return os.WriteFile(filepath.Join(dir, ".gpuguard.yaml"), []byte(corpusConfig), 0o644)
}

const sharedModule = `variable "instance_type" {
  type = string
}

variable "name" {
  type = string
}

resource "aws_instance" "this" {
  instance_type = var.instance_type
  tags = {
    Name = var.name
  }
}

output "id" {
  value = aws_instance.this.id
}
`

func awsStack(i int) string {
	return fmt.Sprintf(`provider "aws" {
  region = "us-east-1"
  default_tags {
    tags = { team = "team-%[1]d", env = "prod" }
  }
}

variable "gpu_type" {
  type = string
}

variable "replicas" {
  type    = number
  default = 1
}

locals {
  name  = "stack-%[1]d"
  pools = {
    small = { type = var.gpu_type, size = var.replicas }
    large = { type = "g6e.12xlarge", size = 1 }
  }
}

resource "aws_vpc" "main" {
  cidr_block = "10.%[2]d.0.0/16"
}

resource "aws_instance" "trainer" {
  count         = var.replicas
  instance_type = var.gpu_type
  tags          = { Name = "${local.name}-${count.index}", project = local.name }
}

resource "aws_launch_template" "serve" {
  name          = "${local.name}-serve"
  instance_type = "g6.xlarge"
}

resource "aws_autoscaling_group" "serve" {
  desired_capacity = 2
  max_size         = 4
  min_size         = 1
  launch_template {
    id = aws_launch_template.serve.id
  }
}

resource "aws_eks_node_group" "pool" {
  for_each        = local.pools
  cluster_name    = local.name
  node_group_name = each.key
  node_role_arn   = "arn:aws:iam::123456789012:role/node"
  subnet_ids      = ["subnet-1"]
  instance_types  = [each.value.type]
  capacity_type   = each.key == "small" ? "SPOT" : "ON_DEMAND"
  scaling_config {
    desired_size = each.value.size
    max_size     = each.value.size * 2
    min_size     = 0
  }
}

module "notebook" {
  source        = "../modules/gpu-vm"
  name          = "${local.name}-nb"
  instance_type = "g5.xlarge"
}
`, i, i%250)
}

func gcpStack(i int) string {
	return fmt.Sprintf(`provider "google" {
  project = "proj-%[1]d"
  region  = "us-central1"
}

variable "machine_type" {
  type = string
}

variable "nodes" {
  type = number
}

resource "google_container_cluster" "c" {
  name                     = "cluster-%[1]d"
  location                 = "us-central1"
  remove_default_node_pool = true
  initial_node_count       = 1
}

resource "google_container_node_pool" "gpu" {
  name       = "gpu"
  cluster    = google_container_cluster.c.id
  node_count = var.nodes
  node_config {
    machine_type = var.machine_type
    spot         = true
    dynamic "guest_accelerator" {
      for_each = startswith(var.machine_type, "n1-") ? [1] : []
      content {
        type  = "nvidia-tesla-t4"
        count = 1
      }
    }
  }
}

resource "google_compute_instance" "dev" {
  name         = "dev-%[1]d"
  machine_type = "g2-standard-4"
  zone         = "us-central1-a"
  labels       = { team = "t%[1]d" }
}
`, i)
}

func azureStack(i int) string {
	return fmt.Sprintf(`variable "vm_size" {
  type = string
}

variable "nodes" {
  type = number
}

locals {
  location = "eastus"
  tags     = { team = "t%[1]d", project = "p%[1]d", env = "dev" }
}

resource "azurerm_kubernetes_cluster" "aks" {
  name                = "aks-%[1]d"
  location            = local.location
  resource_group_name = "rg"
  dns_prefix          = "aks%[1]d"
  default_node_pool {
    name       = "system"
    vm_size    = "Standard_D4s_v5"
    node_count = 3
  }
  tags = local.tags
}

resource "azurerm_kubernetes_cluster_node_pool" "gpu" {
  name                  = "gpu"
  kubernetes_cluster_id = azurerm_kubernetes_cluster.aks.id
  vm_size               = var.vm_size
  node_count            = var.nodes
  priority              = "Spot"
  tags                  = local.tags
}

resource "azurerm_linux_virtual_machine" "ws" {
  name                  = "ws-%[1]d"
  resource_group_name   = "rg"
  location              = local.location
  size                  = "Standard_NC8as_T4_v3"
  admin_username        = "azure"
  network_interface_ids = []
  tags                  = local.tags
}
`, i)
}
