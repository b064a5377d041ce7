package yamlpos

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

func TestIndex(t *testing.T) {
	var doc yaml.Node
	src := "region: us-east-1\nbudgets:\n  monthly_total: 50000\n  monthly_increase: 5000\ntraining: {micro_batch_size: 2}\nlist: [a, b]\n"
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	l := Index(&doc)
	for path, want := range map[string]int{"region": 1, "budgets": 2, "budgets.monthly_increase": 4, "budgets.per_resource_monthly": 2,
		"training.micro_batch_size": 5, "list": 6, "list.x.y": 6, "nothing": 0, "": 0} {
		if got := l.At(path); got != want {
			t.Errorf("At(%q) = %d, want %d", path, got, want)
		}
	}
	if len(Index(nil)) != 0 {
		t.Error("a nil node")
	}
}
