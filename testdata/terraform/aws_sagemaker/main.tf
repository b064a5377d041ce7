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
}

resource "aws_sagemaker_notebook_instance" "research" {
  name          = "research"
  role_arn      = "arn:aws:iam::123456789012:role/sagemaker"
  instance_type = "ml.g4dn.xlarge"
}
