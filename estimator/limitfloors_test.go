package estimator

import (
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

// limited is a resource within a limit of owner in root: pods (a workload's) or a node pool's
// nodes, each taking per of the limit, at file:line.
func limited(root, owner string, limit float64, address string, line, floor int, per float64, pods bool) Estimate {
	e := Estimate{Address: address, Root: root, Quantity: floor, Source: parser.Location{File: root + "/main.tf", Line: line},
		SharedLimit: &parser.SharedLimit{Owner: owner, What: "limit of 4 GPUs", Limit: limit, Unit: "nvidia.com/gpu", PerInstance: per}}
	if pods {
		e.Pod = &parser.PodGPUs{Resource: "nvidia.com/gpu", Requested: int64(per)}
	}
	return e
}

// Pods that wait for an autoscaler's nodes within a limit are warned of when their floors,
// with those of the pools within the limit, pass it, though each alone fits; the warning is at
// the first pod's line and says what each takes.
func TestFloorsPastLimits(t *testing.T) {
	pod := func(addr string, line, floor int, per float64) Estimate {
		return limited("k8s", "NodePool/gpu", 4, addr, line, floor, per, true)
	}
	pool := func(addr string, floor int, per float64) Estimate {
		return limited("k8s", "NodePool/gpu", 4, addr, 90, floor, per, false)
	}
	// Pods that share a ResourceClaim of 2 GPUs.
	claimPods := func(addr string, line, floor int) Estimate {
		e := pod(addr, line, floor, 2)
		e.Pod.SharedClaims = []parser.SharedClaim{{Address: "ResourceClaim/ml/shared", GPUs: 2, Pods: 5}}
		return e
	}
	onGroup := pod("Deployment/on-group", 30, 3, 1)
	onGroup.NodeGroup = "k8s|pool"
	otherRoot := limited("other", "NodePool/gpu", 4, "Deployment/b", 20, 3, 1, true)
	linked := limited("k8s-apps", "NodePool/gpu", 4, "Deployment/yaml", 40, 3, 1, true)
	linked.SharedLimit.Root = "k8s"
	for _, c := range []struct {
		name string
		es   []Estimate
		want []string // the warning's parts; none when nil
		line int
	}{
		{"two floors past the limit", []Estimate{pod("Deployment/a", 10, 3, 1), pod("Deployment/b", 20, 3, 1)},
			[]string{"Deployment/a and Deployment/b need 6 at their floors together (3 + 3), but NodePool/gpu's limit of 4 GPUs holds 4", "stay pending (priced as declared)"}, 10},
		{"floors that fill the limit", []Estimate{pod("Deployment/a", 10, 2, 1), pod("Deployment/b", 20, 1, 2)}, nil, 0},
		{"one pod past it alone, warned of by the parser", []Estimate{pod("Deployment/a", 10, 5, 1), pod("Deployment/b", 20, 1, 1)}, nil, 0},
		{"one pod within it alone", []Estimate{pod("Deployment/a", 10, 4, 1)}, nil, 0},
		{"a pool's floor leaves less", []Estimate{pool("pool.h100", 1, 2), pod("Deployment/a", 10, 1, 4)},
			[]string{"Deployment/a needs 4 at its floor, but NodePool/gpu's limit of 4 GPUs leaves it 2 after the floor of pool.h100 (2)"}, 10},
		{"pools' floors past it leave nothing", []Estimate{pool("pool.a", 2, 2), pool("pool.b", 1, 2), pod("Deployment/a", 10, 1, 1)},
			[]string{"leaves it 0 after the floors of pool.a and pool.b (6)"}, 10},
		{"pools alone keep their nodes", []Estimate{pool("pool.a", 2, 2), pool("pool.b", 1, 2)}, nil, 0},
		{"a pool scaled to zero takes nothing", []Estimate{pool("pool.a", 0, 8), pod("Deployment/a", 10, 4, 1)}, nil, 0},
		{"nor is it named", []Estimate{pool("pool.a", 0, 8), pod("Deployment/a", 10, 3, 1), pod("Deployment/b", 20, 3, 1)},
			[]string{"(3 + 3), but NodePool/gpu's limit of 4 GPUs holds 4:"}, 10},
		{"a workload scaled to zero is not named", []Estimate{pod("Deployment/a", 10, 0, 1), pool("pool.a", 1, 2), pod("Deployment/b", 20, 3, 1)},
			[]string{"Deployment/b needs 3 at its floor, but"}, 20},
		{"another root's pods are another cluster's", []Estimate{pod("Deployment/a", 10, 3, 1), otherRoot}, nil, 0},
		{"a pod on a node group runs on its nodes", []Estimate{pod("Deployment/a", 10, 3, 1), onGroup}, nil, 0},
		{"a pod linked to the limit's root", []Estimate{pod("Deployment/a", 10, 3, 1), linked},
			[]string{"Deployment/a and Deployment/yaml need 6"}, 10},
		{"pods of one shared claim count its devices once", []Estimate{claimPods("Deployment/a", 10, 3), claimPods("Deployment/b", 20, 2), pod("Deployment/c", 30, 3, 1)},
			[]string{"Deployment/a, Deployment/b and Deployment/c need 5 at their floors together (2 + 0 + 3)"}, 10},
		{"and fit where each pod's would not", []Estimate{claimPods("Deployment/a", 10, 3), claimPods("Deployment/b", 20, 2), pod("Deployment/c", 30, 2, 1)}, nil, 0},
		{"many pods", []Estimate{pod("Deployment/a", 10, 1, 1), pod("Deployment/b", 20, 1, 1), pod("Deployment/c", 30, 1, 1), pod("Deployment/d", 40, 2, 1)},
			[]string{"Deployment/a, Deployment/b, Deployment/c and 1 other need 5 at their floors together, but"}, 10},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws := FloorsPastLimits(c.es)
			if c.want == nil {
				if len(ws) > 0 {
					t.Fatalf("warned: %v", ws)
				}
				return
			}
			if len(ws) != 1 {
				t.Fatalf("%d warnings, want 1: %v", len(ws), ws)
			}
			if ws[0].Line != c.line || ws[0].File != "k8s/main.tf" {
				t.Errorf("at %s:%d, want k8s/main.tf:%d", ws[0].File, ws[0].Line, c.line)
			}
			for _, w := range c.want {
				if !strings.Contains(ws[0].Message, w) {
					t.Errorf("message %q lacks %q", ws[0].Message, w)
				}
			}
		})
	}
}

// An unpriced workload takes its share of the limit all the same; the totals still leave it
// out of the shared pool (limitKey).
func TestFloorsPastLimitsCountUnpriced(t *testing.T) {
	a := limited("k8s", "NodePool/gpu", 4, "Deployment/a", 10, 3, 1, true)
	b := limited("k8s", "NodePool/gpu", 4, "Deployment/b", 20, 3, 1, true)
	if ws := FloorsPastLimits([]Estimate{a, b}); len(ws) != 1 {
		t.Fatalf("unpriced floors: %v", ws)
	}
	if _, ok := limitKey(&a); ok {
		t.Error("an unpriced estimate is in a priced pool")
	}
}
