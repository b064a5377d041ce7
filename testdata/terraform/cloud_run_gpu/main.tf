# Cloud Run services, jobs and worker pools with GPUs are listed unpriced with the reason; one without GPUs is not listed.
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
# A job runs only while executed: 8 tasks, 2 at a time.
resource "google_cloud_run_v2_job" "finetune" {
  name     = "finetune"
  location = "europe-west4"
  labels   = { team = "ml", project = "assistant", env = "prod" }
  template {
    task_count  = 8
    parallelism = 2
    template {
      node_selector { accelerator = "nvidia-l4" }
      containers {
        image = "trainer"
        resources { limits = { cpu = "8", memory = "32Gi", "nvidia.com/gpu" = "1" } }
      }
    }
  }
}
# A worker pool's instances run, and bill, all the time: manual scaling by default.
resource "google_cloud_run_v2_worker_pool" "embedder" {
  name     = "embedder"
  location = "us-central1"
  scaling { manual_instance_count = 3 }
  template {
    node_selector { accelerator = "nvidia-rtx-pro-6000" }
    containers {
      image = "embedder"
      resources { limits = { cpu = "20", memory = "80Gi", "nvidia.com/gpu" = "1" } }
    }
  }
}
# The v1 (Knative) API: the GPU in a node_selector map, the floor the revision's minScale.
resource "google_cloud_run_service" "classic" {
  name     = "classic"
  location = "us-east4"
  template {
    metadata {
      annotations = {
        "autoscaling.knative.dev/minScale" = "1"
        "autoscaling.knative.dev/maxScale" = "3"
      }
    }
    spec {
      containers {
        image = "vllm"
        resources { limits = { cpu = "8", memory = "32Gi", "nvidia.com/gpu" = "1" } }
      }
      node_selector = { "run.googleapis.com/accelerator" = "nvidia-l4" }
    }
  }
}
