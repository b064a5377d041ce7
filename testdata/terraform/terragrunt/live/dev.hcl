locals {
  env = "dev"
}
