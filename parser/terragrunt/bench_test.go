package terragrunt

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser/terraform"
)

// BenchmarkParseUnits evaluates 100 units that include a root configuration, read an
// environment file and deploy one shared module with their own inputs, sharing parsed files
// through one cache as a scan does.
func BenchmarkParseUnits(b *testing.B) {
	root := b.TempDir()
	write := func(name, text string) { testutil.WriteFiles(b, root, map[string]string{name: text}) }
	write("root.hcl", "locals { team = \"ml\" }\ninputs = { tags = { team = local.team } }\n")
	write("live/env.hcl", "locals { env = \"prod\" }\n")
	write("modules/gpu/main.tf", module)
	var units []string
	for i := range 100 {
		u := fmt.Sprintf("live/u%d/terragrunt.hcl", i)
		write(u, fmt.Sprintf(`include "root" {
  path   = find_in_parent_folders("root.hcl")
  expose = true
}
locals {
  env = read_terragrunt_config(find_in_parent_folders("env.hcl")).locals.env
}
terraform { source = "../../modules//gpu" }
inputs = {
  instance_type = "g6e.xlarge"
  node_count    = %d
  tags          = merge(include.root.locals, { env = local.env })
}
`, 1+i%4))
		units = append(units, filepath.Join(root, u))
	}
	b.ReportAllocs()
	for b.Loop() {
		opts := terraform.Options{FileDirs: []string{root}, Cache: terraform.NewCache()}
		n := 0
		for _, u := range units {
			res := ParseUnit(u, opts)
			if len(res.Errors) > 0 {
				b.Fatal(res.Errors)
			}
			n += len(res.Resources)
		}
		if n != 250 {
			b.Fatalf("%d resources", n)
		}
	}
}
