# No terraform source: Terragrunt runs the configuration in this directory.
include "root" {
  path = find_in_parent_folders()
}

inputs = {
  instance_type = "g6e.2xlarge"
  replicas      = 3
  # The environment is never read: this stays unknown.
  owner = get_env("TEAM_OWNER")
}
