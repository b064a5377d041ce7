# Vertex AI Workbench notebooks: VMs with GPUs that run until someone stops them.
provider "google" {
  project = "ml-research"
  region  = "us-central1"
}

resource "google_workbench_instance" "research" {
  name     = "research-notebook"
  location = "us-central1-a"
  labels   = { team = "research", project = "llm", env = "dev" }
  gce_setup {
    machine_type = "n1-standard-8"
    accelerator_configs {
      type       = "NVIDIA_TESLA_T4"
      core_count = 2
    }
    metadata = {
      idle-timeout-seconds = "10800"
    }
  }
}

# A G2 machine includes its L4: the accelerator config is not priced twice.
resource "google_workbench_instance" "l4" {
  name     = "l4-notebook"
  location = "us-central1-b"
  gce_setup {
    machine_type = "g2-standard-8"
    accelerator_configs {
      type       = "NVIDIA_L4"
      core_count = 1
    }
  }
}

# The legacy user-managed notebook resource.
resource "google_notebooks_instance" "legacy" {
  name         = "legacy-notebook"
  location     = "us-central1-a"
  machine_type = "n1-standard-4"
  accelerator_config {
    type       = "NVIDIA_TESLA_T4"
    core_count = 1
  }
}

# No GPU: not listed.
resource "google_workbench_instance" "cpu" {
  name     = "cpu-notebook"
  location = "us-central1-a"
  gce_setup {
    machine_type = "e2-standard-4"
  }
}
