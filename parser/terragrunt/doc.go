// Package terragrunt reads Terragrunt units: a directory with a terragrunt.hcl that deploys a
// Terraform module with inputs. It evaluates the unit's configuration the way Terragrunt does —
// locals, include blocks (shallow, deep or no merge; exposed values), dependency blocks (their
// mock_outputs), the terraform block's source and extra_arguments, generate blocks that write
// configuration, and the inputs — and hands the module it deploys to package terraform with
// those inputs as root variable values, so a GPU node group whose instance type and size come
// from Terragrunt is priced with them.
//
// Terragrunt's functions are provided (find_in_parent_folders, read_terragrunt_config,
// path_relative_to_include, get_terragrunt_dir, get_repo_root and their kin) next to
// Terraform's. What cannot be known without running anything stays unknown, with its reason:
// get_env never reads the environment (a pull request's configuration must not read the token),
// run_cmd is never run, and cloud identity functions are not called. Remote module sources are
// not downloaded: they are read from the unit's .terragrunt-cache where terragrunt init left
// them, else a unit deploying one is a warning. Every file a unit names is read only inside the
// checked directories (package confine).
//
// The package does not price anything, print or exit.
package terragrunt
