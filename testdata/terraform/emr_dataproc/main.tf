# Managed Spark clusters with GPUs (RAPIDS, training): Amazon EMR and Google Dataproc run on the
# cloud's instances, which gpuguard prices per node group; the services' own fees come on top.

provider "aws" {
  region = "us-east-1"
}

provider "google" {
  region = "us-central1"
}

# EMR with instance groups: a CPU master (left out) and GPU core nodes on spot.
resource "aws_emr_cluster" "rapids" {
  name          = "rapids"
  release_label = "emr-7.2.0"
  applications  = ["Spark"]
  service_role  = "EMR_DefaultRole"

  master_instance_group {
    instance_type = "m5.xlarge"
  }
  core_instance_group {
    instance_type  = "g5.2xlarge"
    instance_count = 4
    bid_price      = "0.80"
  }
  tags = { team = "data", project = "rapids", env = "prod" }
}

# A task group added to the cluster, on demand.
resource "aws_emr_instance_group" "gpu_tasks" {
  cluster_id     = aws_emr_cluster.rapids.id
  instance_type  = "g6.xlarge"
  instance_count = 2
}

# EMR with instance fleets: 2 on-demand and 4 spot units of g5.xlarge (weight 1).
resource "aws_emr_cluster" "fleet" {
  name          = "fleet"
  release_label = "emr-7.2.0"
  service_role  = "EMR_DefaultRole"

  master_instance_fleet {
    instance_type_configs {
      instance_type = "m5.xlarge"
    }
    target_on_demand_capacity = 1
  }
  core_instance_fleet {
    instance_type_configs {
      instance_type     = "g5.xlarge"
      weighted_capacity = 1
    }
    instance_type_configs {
      instance_type     = "g5.2xlarge"
      weighted_capacity = 2
    }
    target_on_demand_capacity = 2
    target_spot_capacity      = 4
  }
}

# Dataproc: an N1 master without GPUs (left out), N1 workers with a T4 each, and spot
# secondary workers created like them.
resource "google_dataproc_cluster" "rapids" {
  name   = "rapids"
  region = "us-central1"
  labels = { team = "data", project = "rapids", env = "prod" }

  cluster_config {
    master_config {
      num_instances = 1
      machine_type  = "n1-standard-8"
    }
    worker_config {
      num_instances = 2
      machine_type  = "n1-standard-16"
      accelerators {
        accelerator_type  = "nvidia-tesla-t4"
        accelerator_count = 1
      }
    }
    preemptible_worker_config {
      num_instances  = 4
      preemptibility = "SPOT"
    }
  }
}

# Dataproc on G2 machines, which include their L4 GPUs, in a zone of the provider's region.
resource "google_dataproc_cluster" "g2" {
  name = "g2"
  cluster_config {
    gce_cluster_config {
      zone = "us-central1-b"
    }
    master_config {
      machine_type = "g2-standard-8"
    }
    worker_config {
      num_instances = 2
      machine_type  = "g2-standard-8"
    }
  }
}
