provider "aws" {
  region = "us-east-1"
}

resource "aws_sagemaker_endpoint_configuration" "llm" {
  name = "llm"
  production_variants {
    variant_name           = "primary"
    model_name             = "llm"
    instance_type          = "ml.g5.2xlarge"
    initial_instance_count = 2
  }
  production_variants {
    variant_name = "serverless"
    model_name   = "small"
    serverless_config {
      max_concurrency   = 5
      memory_size_in_mb = 2048
    }
  }
  # Recommendations for a SageMaker resource are SageMaker's ml. types and Savings Plans.
  tags = { "gpuguard-profile" = "testdata/profiles/mistral-7b-small.yaml" }
}

resource "aws_sagemaker_notebook_instance" "research" {
  name          = "research"
  role_arn      = "arn:aws:iam::123456789012:role/sagemaker"
  instance_type = "ml.g4dn.xlarge"
  # Interruptible, but a notebook instance has no spot capacity: no spot recommendation.
  tags = { "gpuguard-profile" = "testdata/profiles/llama-7b-lora.yaml" }
}

# SageMaker HyperPod (AWS Cloud Control provider): one resource per instance group, at the EC2
# rate of its ml. type; a CPU controller group is left out.
provider "awscc" {
  region = "us-east-1"
}

resource "awscc_sagemaker_cluster" "train" {
  cluster_name = "llm-train"
  instance_groups = [
    {
      instance_group_name = "controller"
      instance_type       = "ml.m5.xlarge"
      instance_count      = 1
      execution_role      = "arn:aws:iam::123456789012:role/hyperpod"
      life_cycle_config   = { source_s3_uri = "s3://lifecycle/", on_create = "on_create.sh" }
    },
    {
      instance_group_name = "workers"
      instance_type       = "ml.p5.48xlarge"
      instance_count      = 4
      execution_role      = "arn:aws:iam::123456789012:role/hyperpod"
      life_cycle_config   = { source_s3_uri = "s3://lifecycle/", on_create = "on_create.sh" }
    },
    {
      # Spot capacity (CapacityRequirements.Spot): priced at the EC2 spot rate.
      instance_group_name   = "spot-workers"
      instance_type         = "ml.g5.12xlarge"
      instance_count        = 2
      execution_role        = "arn:aws:iam::123456789012:role/hyperpod"
      life_cycle_config     = { source_s3_uri = "s3://lifecycle/", on_create = "on_create.sh" }
      capacity_requirements = { spot = jsonencode({}) }
    },
  ]
  tags = [
    { key = "team", value = "ml" },
    { key = "project", value = "llm" },
    { key = "env", value = "prod" },
  ]
}
