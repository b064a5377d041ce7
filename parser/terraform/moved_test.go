package terraform

import (
	"reflect"
	"testing"

	"github.com/gpuguard/gpuguard/internal/testutil"
	"github.com/gpuguard/gpuguard/parser"
)

// moved blocks are returned as moves with full addresses: the root's as written (resources,
// instances with number and string keys, modules), a local module's once per instance of the
// module, under its address; JSON configuration's as strings. A block gpuguard cannot read is
// skipped without a word.
func TestMovedBlocks(t *testing.T) {
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"main.tf": `
moved {
  from = aws_instance.gpu
  to   = aws_instance.trainer
}

moved {
  from = module.old["a"]
  to   = module.pools["a"]
}

moved {
  from = aws_instance.single
  to   = aws_instance.counted[0]
}

moved {
  from = var.not_an_address
}

module "pools" {
  source   = "./pool"
  for_each = toset(["a", "b"])
}

resource "aws_instance" "trainer" {
  instance_type = "g5.xlarge"
}
`,
		"moves.tf.json": `{"moved": [{"from": "aws_eks_node_group.x", "to": "aws_eks_node_group.y[\"k\"]"}]}`,
		"pool/main.tf": `
moved {
  from = aws_instance.this
  to   = aws_instance.node
}

resource "aws_instance" "node" {
  instance_type = "g5.xlarge"
}
`,
	})
	res := ParseModuleDir(dir, Options{FileDirs: []string{dir}})
	if len(res.Errors) != 0 {
		t.Fatalf("errors %+v", res.Errors)
	}
	want := map[parser.Move]bool{
		{From: "aws_instance.gpu", To: "aws_instance.trainer"}:                                   true,
		{From: `module.old["a"]`, To: `module.pools["a"]`}:                                       true,
		{From: "aws_instance.single", To: "aws_instance.counted[0]"}:                             true,
		{From: "aws_eks_node_group.x", To: `aws_eks_node_group.y["k"]`}:                          true,
		{From: `module.pools["a"].aws_instance.this`, To: `module.pools["a"].aws_instance.node`}: true,
		{From: `module.pools["b"].aws_instance.this`, To: `module.pools["b"].aws_instance.node`}: true,
	}
	got := map[parser.Move]bool{}
	for _, m := range res.Moves {
		got[m] = true
	}
	if !reflect.DeepEqual(got, want) || len(res.Moves) != len(want) {
		t.Errorf("moves %+v\nwant %+v", res.Moves, want)
	}
}

// A plan records the moves it applied as each resource change's previous_address.
func TestPlanPreviousAddressIsAMove(t *testing.T) {
	res := ParsePlan("plan.json", []byte(`{"format_version": "1.2", "terraform_version": "1.9.0",
"planned_values": {"root_module": {"resources": [{"address": "aws_instance.trainer", "mode": "managed", "type": "aws_instance", "name": "trainer", "values": {"instance_type": "g5.xlarge"}}]}},
"resource_changes": [
  {"address": "aws_instance.trainer", "previous_address": "aws_instance.gpu", "mode": "managed", "type": "aws_instance", "name": "trainer", "change": {"actions": ["no-op"], "before": {"instance_type": "g5.xlarge"}, "after": {"instance_type": "g5.xlarge"}}},
  {"address": "aws_instance.other", "mode": "managed", "type": "aws_instance", "name": "other", "change": {"actions": ["create"], "before": null, "after": {"instance_type": "t3.micro"}}}
]}`))
	want := []parser.Move{{From: "aws_instance.gpu", To: "aws_instance.trainer"}}
	if !reflect.DeepEqual(res.Moves, want) || len(res.Errors) != 0 {
		t.Errorf("moves %+v, errors %+v", res.Moves, res.Errors)
	}
}
