package estimator

import (
	"fmt"
	"math"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

// besideFits reports whether a node (in) holds the pods that share one with a pod of its own
// role, whose share of the node's GPUs is gpuShare: BesideOwn of the role's pods and the other
// roles' pods (Beside). need says what they request together when it does not. Pods of the same
// GPU resource count in its units, each gpuShare/Requested of the node: a GPU, a MIG slice (its
// share of a GPU, as the pod pays it), a time-shared GPU's unit. Pods beside pods of another GPU
// resource, of a shared resource whose sharers are not known, or that share claims, are not
// judged: their units cannot be told apart. A pod that requests no units is judged by its CPUs
// and memory alone.
func besideFits(in catalog.Instance, gpuShare float64, pod *parser.PodGPUs) (ok bool, need string) {
	if len(pod.Beside) == 0 || len(pod.SharedClaims) > 0 || strings.HasSuffix(pod.Resource, ".shared") && pod.SharedReplicas == 0 {
		return true, ""
	}
	own := float64(pod.BesideOwn)
	units, cpu, mem := own*float64(pod.Requested), own*pod.CPU, own*pod.MemoryGiB
	for _, m := range pod.Beside {
		if m.Resource != "" && m.Resource != pod.Resource {
			return true, ""
		}
		n := float64(m.Pods)
		units, cpu, mem = units+n*float64(m.GPUs), cpu+n*m.CPU, mem+n*m.MemoryGiB
	}
	const eps = 1e-9
	var asked, has []string // what they request past what the node has
	if unit := gpuShare / float64(pod.Requested); pod.Requested > 0 && units*unit > 1+eps {
		what := " GPUs"
		if pod.MIGProfile != "" || pod.SharedReplicas > 0 {
			what = " " + pod.Resource
		}
		asked, has = append(asked, trimNum(units)+what), append(has, trimNum(math.Round(1/unit*100)/100))
	}
	if in.VCPU > 0 && cpu > float64(in.VCPU)+eps {
		asked, has = append(asked, trimNum(cpu)+" vCPUs"), append(has, fmt.Sprint(in.VCPU))
	}
	if in.MemoryGiB > 0 && mem > in.MemoryGiB+eps {
		asked, has = append(asked, trimNum(mem)+" GiB"), append(has, trimNum(in.MemoryGiB))
	}
	if len(asked) == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("they request %s together, and it has %s", strings.Join(asked, " and "), strings.Join(has, " and "))
}
