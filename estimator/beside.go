package estimator

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/estimator/catalog"
	"github.com/gpuguard/gpuguard/parser"
)

// besideFits reports whether a node (in) holds the pods that share one with a pod of its own
// role, whose share of the node's GPUs is gpuShare: BesideOwn of the role's pods and the other
// roles' pods (Beside). need says what they request together when it does not. Pods on MIG
// slices, shared GPUs or shared claims, or beside pods of another GPU resource, are not
// judged: their units differ.
func besideFits(in catalog.Instance, gpuShare float64, pod *parser.PodGPUs) (ok bool, need string) {
	if len(pod.Beside) == 0 || pod.MIGProfile != "" || pod.SharedReplicas > 0 || len(pod.SharedClaims) > 0 {
		return true, ""
	}
	own := float64(pod.BesideOwn)
	gpus, cpu, mem := own*gpuShare*devices(in.GPUCount), own*pod.CPU, own*pod.MemoryGiB
	for _, m := range pod.Beside {
		if m.Resource != "" && m.Resource != pod.Resource {
			return true, ""
		}
		n := float64(m.Pods)
		gpus, cpu, mem = gpus+n*float64(m.GPUs), cpu+n*m.CPU, mem+n*m.MemoryGiB
	}
	const eps = 1e-9
	var asked, has []string // what they request past what the node has
	if gpus > devices(in.GPUCount)+eps {
		asked, has = append(asked, trimNum(gpus)+" GPUs"), append(has, trimNum(devices(in.GPUCount)))
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
