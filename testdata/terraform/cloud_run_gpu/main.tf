# Cloud Run services with GPUs are listed unpriced with the reason; one without GPUs is not listed.
provider "google" { region = "us-central1" }
resource "google_cloud_run_v2_service" "llm" {
  name     = "llm"
  location = "us-central1"
  template {
    scaling { min_instance_count = 2 }
    node_selector { accelerator = "nvidia-l4" }
    gpu_zonal_redundancy_disabled = true
    containers {
      image = "vllm"
      resources { limits = { cpu = "8", memory = "32Gi", "nvidia.com/gpu" = "1" } }
    }
  }
}
resource "google_cloud_run_v2_service" "web" {
  name     = "web"
  location = "us-central1"
  template {
    containers { image = "nginx" }
  }
}
