# node_pool blocks inside the cluster, one of them in a zonal cluster's zone.
resource "google_container_cluster" "inference" {
  name     = "inference"
  location = "europe-west4-a"

  node_pool {
    name       = "t4"
    node_count = 3
    node_config {
      machine_type = "n1-standard-4"
      preemptible  = true
      guest_accelerator {
        type  = "nvidia-tesla-t4"
        count = 1
      }
    }
  }

  node_pool {
    name       = "h100"
    node_count = 1
    node_config {
      machine_type = "a3-highgpu-8g"
    }
  }

  node_pool {
    name       = "default"
    node_count = 2
    node_config {
      machine_type = "e2-standard-4"
    }
  }
}
