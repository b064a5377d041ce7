package terragrunt

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// FuzzParseUnit feeds arbitrary bytes to a unit's terragrunt.hcl, next to a root configuration
// and a module it may include and deploy. It must never panic (ParseUnit's last-resort recover
// turns a panic into an "internal error", which fails here) and never hang.
func FuzzParseUnit(f *testing.F) {
	for _, p := range []string{"live/prod/training", "live/dev/training", "live/prod/batch", "live/prod/inference"} {
		if b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "terraform", "terragrunt", p, FileName)); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte(`include "root" {
  path   = find_in_parent_folders("root.hcl", "none")
  expose = true
  merge_strategy = "deep"
}
locals {
  a = read_terragrunt_config("../root.hcl", {}).locals
  b = path_relative_from_include("root")
  c = get_env("X", "y")
}
dependency "d" {
  config_path  = "../d"
  mock_outputs = { n = 2 }
}
terraform { source = "${get_terragrunt_dir()}/../modules//gpu" }
inputs = merge(local.a, { instance_type = "g5.xlarge", node_count = dependency.d.outputs.n })
`))
	// A registry module read through gpuguard's stand-in, with inputs of odd shapes.
	f.Add([]byte(`terraform { source = "tfr:///terraform-aws-modules/eks/aws?version=20.8.5" }
inputs = {
  eks_managed_node_groups = { gpu = { instance_types = ["g6.xlarge"], desired_size = "x" }, cpu = 3 }
  self_managed_node_groups = null
}
`))
	root := f.TempDir()
	testutil.WriteFiles(f, root, map[string]string{
		"root.hcl":            "locals { team = \"ml\" }\ninputs = { tags = { team = local.team } }\n",
		"modules/gpu/main.tf": module,
	})
	unit := filepath.Join(root, "unit")
	if err := os.MkdirAll(unit, 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file := filepath.Join(unit, FileName)
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		res := ParseUnit(file, terraform.Options{FileDirs: []string{root}})
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluation panicked: %s", e.Message)
			}
		}
	})
}
