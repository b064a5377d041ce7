package bottlerocket

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gpuguard/gpuguard/parser"
)

func TestReadNode(t *testing.T) {
	for _, tc := range []struct {
		name, settings string
		want           Node
		notNode        bool
		err            string
	}{
		{name: "labels and taints, one effect or several for a key",
			settings: "[settings.kubernetes]\ncluster-name = \"ml\"\n[settings.kubernetes.node-labels]\nworkload = \"inference\"\n\"example.com/tier\" = \"gpu\"\n[settings.kubernetes.node-taints]\nnvidia = [\"true:NoSchedule\", \"true:NoExecute\"]\ndedicated = \":PreferNoSchedule\"\n",
			want: Node{Cluster: "ml", Labels: map[string]string{"workload": "inference", "example.com/tier": "gpu"},
				Taints: []parser.Taint{{Key: "dedicated", Effect: "PreferNoSchedule"}, {Key: "nvidia", Value: "true", Effect: "NoSchedule"}, {Key: "nvidia", Value: "true", Effect: "NoExecute"}}}},
		{name: "no settings.kubernetes", settings: "[settings.kernel]\nlockdown = \"integrity\"\n", notNode: true},
		{name: "labels that are not a table", settings: "[settings.kubernetes]\nnode-labels = \"a=b\"\n", err: "settings.kubernetes.node-labels is a=b, not a table of labels"},
		{name: "a label that is not text", settings: "[settings.kubernetes.node-labels]\na = 1\n", err: `settings.kubernetes.node-labels."a" is 1, not text`},
		{name: "an empty list of taints", settings: "[settings.kubernetes.node-taints]\na = []\n", err: `settings.kubernetes.node-taints."a" is [], not "value:Effect" or a list of them`},
		{name: "a taint without an effect", settings: "[settings.kubernetes.node-taints]\na = \"b\"\n", err: `settings.kubernetes.node-taints."a": taint "a=b" is not key=value:Effect`},
		{name: "not TOML", settings: "[settings.kubernetes\n", err: "not TOML Bottlerocket reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := ReadNode(tc.settings)
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil || ok == tc.notNode {
				t.Fatalf("ok %v, error %v", ok, err)
			}
			if diff := cmp.Diff(tc.want, got); !tc.notNode && diff != "" {
				t.Errorf("node (-want +got):\n%s", diff)
			}
		})
	}
}
