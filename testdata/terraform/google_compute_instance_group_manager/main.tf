provider "google" {
  project = "ml"
  region  = "us-east4"
}

resource "google_compute_instance_template" "l4" {
  name_prefix  = "l4-"
  machine_type = "g2-standard-4"
  scheduling {
    preemptible = true
  }
  labels = { team = "serving" }
}

resource "google_compute_instance_group_manager" "serving" {
  name               = "serving"
  zone               = "us-east4-a"
  base_instance_name = "serving"
  target_size        = 3
  version {
    instance_template = google_compute_instance_template.l4.self_link
  }
}

# A batch group at 1 instance, which a scaling schedule raises to at least 4 for ten hours from
# 08:00 New York time on weekdays: priced by time, 4 instances for 345.63 hours.
resource "google_compute_instance_group_manager" "batch" {
  name               = "batch"
  zone               = "us-east4-a"
  base_instance_name = "batch"
  version {
    instance_template = google_compute_instance_template.l4.self_link
  }
}

resource "google_compute_autoscaler" "batch" {
  name   = "batch"
  zone   = "us-east4-a"
  target = google_compute_instance_group_manager.batch.id
  autoscaling_policy {
    min_replicas = 1
    max_replicas = 6
    cpu_utilization {
      target = 0.7
    }
    scaling_schedules {
      name                  = "weekdays"
      schedule              = "0 8 * * MON-FRI"
      time_zone             = "America/New_York"
      duration_sec          = 36000
      min_required_replicas = 4
    }
  }
}
