locals {
  env = "prod"
}
