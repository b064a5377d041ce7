package terraform

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// seedFiles adds every fixture file with the given suffix to the fuzz corpus.
func seedFiles(f *testing.F, suffix string) {
	root := filepath.Join("..", "..", "testdata", "terraform")
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, suffix) {
			if b, err := os.ReadFile(path); err == nil {
				f.Add(b)
			}
		}
		return nil
	})
}

// FuzzParseSource feeds arbitrary bytes to the HCL evaluation entry point. It must never panic
// (the evaluator's last-resort recover turns a panic into an "internal error", which fails here)
// and never hang.
func FuzzParseSource(f *testing.F) {
	seedFiles(f, ".tf")
	f.Add([]byte(`locals { a = [for i in range(3) : i] }
resource "aws_instance" "x" {
  count = length(local.a)
  instance_type = try(local.a[5], "g5.xlarge")
  dynamic "ebs_block_device" {
    for_each = local.a
    content { volume_size = ebs_block_device.value }
  }
}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParseSource("fuzz.tf", data, Options{})
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("evaluator panicked: %s", e.Message)
			}
		}
	})
}

// FuzzParsePlan feeds arbitrary bytes to the plan JSON reader.
func FuzzParsePlan(f *testing.F) {
	seedFiles(f, ".json")
	f.Add([]byte(`{"format_version":"1.2","planned_values":{"root_module":{"resources":[{"address":"aws_instance.x","mode":"managed","type":"aws_instance","name":"x","values":{"instance_type":"g5.xlarge"}}]}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := ParsePlan("fuzz.json", data)
		for _, e := range res.Errors {
			if strings.Contains(e.Message, "internal error") {
				t.Fatalf("plan reader panicked: %s", e.Message)
			}
		}
	})
}
