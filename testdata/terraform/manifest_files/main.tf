# Manifests and settings kept in YAML files and loaded with file(), yamldecode(), fileset() and
# templatefile(), as many Kubernetes-through-Terraform setups do. The YAML files under
# manifests/ are read by this configuration, so they are counted here, through the Terraform
# resources, and not a second time as manifests of their own; standalone/ is not read by
# Terraform and is counted as manifests.
provider "aws" {
  region = "us-east-1"
}

locals {
  settings = yamldecode(file("${path.module}/settings.yaml"))
}

resource "kubernetes_manifest" "workloads" {
  for_each = fileset("${path.module}/manifests", "*.yaml")
  manifest = yamldecode(file("${path.module}/manifests/${each.value}"))
}

resource "kubernetes_manifest" "templated" {
  manifest = yamldecode(templatefile("${path.module}/job.yaml.tftpl", {
    name = "nightly-eval"
    gpus = local.settings.eval.gpus
  }))
}

resource "aws_instance" "trainer" {
  instance_type = local.settings.trainer.instance_type
  tags          = local.settings.trainer.tags
}

# A manifest in JSON, read with jsondecode: counted here, not again as a manifest file.
resource "kubernetes_manifest" "batch" {
  manifest = jsondecode(file("${path.module}/manifests/batch.json"))
}
