package kubernetes

import (
	"strings"
	"testing"
)

// A Slinky NodeSet runs replicas slurmd pods: their GPUs are spec.slurmd's, or those of a
// container named slurmd in the template, merged over it; the template places them; with
// scalingMode DaemonSet it runs one pod a matching node.
func TestSlinkyNodeSet(t *testing.T) {
	nodeset := func(spec string) string {
		return "apiVersion: slinky.slurm.net/v1beta1\nkind: NodeSet\nmetadata: {name: gpu, namespace: slurm, labels: {team: hpc}}\nspec:\n  controllerRef: {name: slurm}\n" + spec
	}
	const placed = "  template:\n    metadata: {labels: {app: slurmd}}\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: p5.48xlarge}\n"
	for _, c := range []struct {
		name, src string
		pods      int
		gpus      int64
		cpu       float64
		daemon    bool
	}{
		{"slurmd's resources", nodeset("  replicas: 4\n  slurmd:\n    image: slurmd\n    resources: {limits: {nvidia.com/gpu: 8, cpu: \"180\"}}\n" + placed), 4, 8, 180, false},
		{"one replica by default", nodeset("  slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}\n" + placed), 1, 8, 0, false},
		{"the template's slurmd wins", nodeset("  replicas: 2\n  slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}\n" + placed + "      containers: [{name: slurmd, resources: {limits: {nvidia.com/gpu: 4}}}]\n"), 2, 4, 0, false},
		{"a template slurmd without resources leaves slurmd's", nodeset("  replicas: 2\n  slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}\n" + placed + "      containers: [{name: slurmd, image: x}]\n"), 2, 8, 0, false},
		{"another container of the template adds its own", nodeset("  replicas: 2\n  slurmd: {resources: {limits: {nvidia.com/gpu: 7}}}\n" + placed + "      containers: [{name: exporter, resources: {limits: {nvidia.com/gpu: 1}}}]\n"), 2, 8, 0, false},
		{"as a DaemonSet", nodeset("  replicas: 4\n  scalingMode: DaemonSet\n  slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}\n" + placed), 1, 8, 0, true},
	} {
		r := one(t, build(t, c.src, Options{}))
		notes := strings.Join(r.Notes, "|")
		if r.Address != "NodeSet/slurm/gpu" || r.InstanceType != "p5.48xlarge" || r.Quantity != c.pods || r.Pod == nil || r.Pod.Requested != c.gpus || r.Pod.CPU != c.cpu {
			t.Errorf("%s: %s on %q, %d pods, pod %+v", c.name, r.Address, r.InstanceType, r.Quantity, r.Pod)
			continue
		}
		if daemon := strings.Contains(notes, "DaemonSet: one pod per matching node"); daemon != c.daemon {
			t.Errorf("%s: notes %q", c.name, notes)
		}
		if !c.daemon && !strings.Contains(notes, "Slurm compute nodes (slurmd)") {
			t.Errorf("%s: notes %q", c.name, notes)
		}
		if r.Tags["team"] != "hpc" {
			t.Errorf("%s: tags %v", c.name, r.Tags)
		}
	}
	// On the host's network, the port the operator gives slurmd is a host port.
	hostNet := nodeset("  replicas: 3\n  slurmd: {resources: {limits: {nvidia.com/gpu: 1}}}\n" + strings.Replace(placed, "    spec:\n", "    spec:\n      hostNetwork: true\n", 1))
	if p := one(t, build(t, hostNet, Options{})).Pod; p.MaxPerNode != 1 || !strings.HasSuffix(p.MaxPerNodeWhy, "its container slurmd's port 6818 (containerPort) is a host port too, which two pods cannot both bind") {
		t.Errorf("host network: %d a node (%q)", p.MaxPerNode, p.MaxPerNodeWhy)
	}
	// An autoscaler can scale it, as the CRD has a scale subresource.
	src := nodeset("  replicas: 1\n  slurmd: {resources: {limits: {nvidia.com/gpu: 8}}}\n"+placed) +
		"---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: gpu, namespace: slurm}\n" +
		"spec:\n  scaleTargetRef: {apiVersion: slinky.slurm.net/v1beta1, kind: NodeSet, name: gpu}\n  minReplicas: 2\n  maxReplicas: 6\n"
	if r := one(t, build(t, src, Options{})); r.Quantity != 2 || r.ScaleMax == nil || r.ScaleMax.Quantity != 6 {
		t.Errorf("scaled: %d pods, max %+v", r.Quantity, r.ScaleMax)
	}
}
