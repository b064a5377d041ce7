package kubernetes

import (
	"strings"
	"testing"
)

// A host port keeps a workload's pods one to a node: a container's hostPort, or, on the host's
// network, any container port (defaulted to a host port). Not a plain container port, not an
// init container that ends before the app starts, and not a workload of one pod.
func TestHostPortKeepsPodsApart(t *testing.T) {
	deployment := func(replicas, spec string) string {
		return "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a, namespace: ml}\nspec:\n  replicas: " + replicas + "\n  template:\n" +
			"    metadata: {labels: {app: a}}\n    spec:\n      nodeSelector: {node.kubernetes.io/instance-type: g6.12xlarge}\n" + spec
	}
	gpu := "      containers:\n      - name: server\n        resources: {limits: {nvidia.com/gpu: 1}}\n"
	withPorts := func(ports string) string { return gpu + "        ports: " + ports + "\n" }
	sidecar := func(policy string) string {
		return "      initContainers:\n      - {name: proxy, restartPolicy: " + policy + ", ports: [{containerPort: 9000, hostPort: 9000}]}\n" + gpu
	}
	hpa := "---\napiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: a, namespace: ml}\n" +
		"spec: {scaleTargetRef: {apiVersion: apps/v1, kind: Deployment, name: a}, minReplicas: 1, maxReplicas: 3}\n"
	for _, c := range []struct {
		name, src string
		want      string // "" when the pods may share nodes
	}{
		{"a hostPort", deployment("3", withPorts("[{containerPort: 8000, hostPort: 8000}]")),
			"its container server binds host port 8000 on its node (hostPort, line 13), which two pods cannot both bind"},
		{"the host's network", deployment("3", "      hostNetwork: true\n"+withPorts("[{name: http, containerPort: 8000}]")),
			"its pods run on their node's network (hostNetwork), so its container server's port 8000 (containerPort, line 14) is a host port too, which two pods cannot both bind"},
		{"the host's network, hostPort 0 defaulted", deployment("3", "      hostNetwork: true\n"+withPorts("[{containerPort: 8000, hostPort: 0}]")), "port 8000 (containerPort, line 14)"},
		{"a sidecar's", deployment("3", sidecar("Always")), "its container proxy binds host port 9000 on its node (hostPort, line 11)"},
		{"scaled past one pod by an HPA", deployment("1", withPorts("[{containerPort: 8000, hostPort: 8000}]")) + hpa, "host port 8000"},
		{"an init container that ends first", deployment("3", sidecar("OnFailure")), ""},
		{"a container port", deployment("3", withPorts("[{containerPort: 8000}]")), ""},
		{"the host's network without ports", deployment("3", "      hostNetwork: true\n"+gpu), ""},
		{"hostNetwork false", deployment("3", "      hostNetwork: false\n"+withPorts("[{containerPort: 8000}]")), ""},
		{"a port out of range", deployment("3", withPorts("[{containerPort: 8000, hostPort: 70000}]")), ""},
		{"one pod", deployment("1", withPorts("[{containerPort: 8000, hostPort: 8000}]")), ""},
	} {
		r := one(t, buildWarning(t, c.name, c.src, ""))
		if got := oneToANode(t, r.Pod); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: one per node %q, want %q", c.name, got, c.want)
		}
	}
}
