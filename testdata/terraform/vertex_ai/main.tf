# Vertex AI online prediction: dedicated nodes that serve models. Vertex AI bills them at its own
# prices, above Compute Engine's: gpuguard prices them at Compute Engine's, as a lower bound.
provider "google" {
  project = "ml-serving"
  region  = "us-central1"
}

# A pool that deployed models share: one N1 node with a T4, autoscaled up to four.
resource "google_vertex_ai_deployment_resource_pool" "shared" {
  name   = "shared-t4-pool"
  region = "us-central1"
  dedicated_resources {
    machine_spec {
      machine_type      = "n1-standard-8"
      accelerator_type  = "NVIDIA_TESLA_T4"
      accelerator_count = 1
    }
    min_replica_count = 1
    max_replica_count = 4
  }
}

# A Model Garden model on two G2 nodes on spot capacity (the L4 comes with the machine).
resource "google_vertex_ai_endpoint_with_model_garden_deployment" "gemma" {
  publisher_model_name = "publishers/google/models/gemma3@gemma-3-12b-it"
  location             = "us-central1"
  model_config {
    accept_eula = true
  }
  deploy_config {
    dedicated_resources {
      machine_spec {
        machine_type      = "g2-standard-12"
        accelerator_type  = "NVIDIA_L4"
        accelerator_count = 1
      }
      min_replica_count = 2
      spot              = true
    }
  }
}

# No dedicated_resources: Model Garden picks the machine, so the price is not known.
resource "google_vertex_ai_endpoint_with_model_garden_deployment" "llama" {
  hugging_face_model_id = "meta-llama/Llama-3.1-8B-Instruct"
  location              = "us-central1"
  model_config {
    accept_eula = true
  }
}

# TPUs and CPUs are no GPUs: not listed.
resource "google_vertex_ai_deployment_resource_pool" "tpu" {
  name   = "tpu-pool"
  region = "us-central1"
  dedicated_resources {
    machine_spec {
      machine_type     = "ct5lp-hightpu-4t"
      accelerator_type = "TPU_V5_LITEPOD"
    }
    min_replica_count = 1
  }
}

resource "google_vertex_ai_deployment_resource_pool" "cpu" {
  name   = "cpu-pool"
  region = "us-central1"
  dedicated_resources {
    machine_spec {
      machine_type = "n1-standard-4"
    }
    min_replica_count = 1
  }
}
