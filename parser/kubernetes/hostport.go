package kubernetes

import (
	"fmt"
	"strconv"

	"go.yaml.in/yaml/v3"
)

// A container port with a hostPort binds that port on its node, and two pods cannot bind the
// same one: the kube-scheduler's NodePorts plugin leaves a pod off a node whose pods hold a host
// port it asks for, and Karpenter and the cluster autoscaler do not pack two such pods onto a node
// they launch (kubernetes pkg/scheduler/util GetHostPorts, Karpenter's HostPortUsage). The ports
// that count are the app containers' and those of sidecars (init containers with restartPolicy
// Always), which run as long as the pod. A pod on the host's network (hostNetwork: true) has each
// container port defaulted to a host port of the same number (SetDefaults_PodSpec,
// defaultHostNetworkPorts, in kubernetes pkg/apis/core/v1/defaults.go). So the replicas of a
// workload with one are kept one to a node (MaxPerNode 1), as by a required anti-affinity: common
// for multi-node training and inference that runs on the host's network for its interconnect.

// containerPort is what gpuguard reads of a container's port, as nodes: a shape the API would
// refuse does not fail the object.
type containerPort struct {
	ContainerPort yaml.Node `yaml:"containerPort"`
	HostPort      yaml.Node `yaml:"hostPort"`
}

// hostPortApart says why no two pods of tpl, a pod template of o, share a node: the first host
// port one of its containers binds. "" when none does.
func hostPortApart(o *object, tpl *podTemplate) string {
	hostNetwork := tpl.Spec.HostNetwork.Kind == yaml.ScalarNode && tpl.Spec.HostNetwork.Value == "true"
	var running []container
	for _, c := range tpl.Spec.InitContainers {
		if c.RestartPolicy == "Always" {
			running = append(running, c)
		}
	}
	running = append(running, tpl.Spec.Containers...)
	for _, c := range running {
		for _, n := range listItems(&c.Ports) {
			var p containerPort
			if n.Decode(&p) != nil {
				continue
			}
			if port := portNumber(&p.HostPort); port > 0 {
				return fmt.Sprintf("its container %s binds host port %d on its node (hostPort%s), which two pods cannot both bind", c.Name, port, o.atLine(&p.HostPort))
			}
			if port := portNumber(&p.ContainerPort); hostNetwork && port > 0 {
				return fmt.Sprintf("its pods run on their node's network (hostNetwork), so its container %s's port %d (containerPort%s) is a host port too, which two pods cannot both bind", c.Name, port, o.atLine(&p.ContainerPort))
			}
		}
	}
	return ""
}

// portNumber is a port field's number, or 0 when it has none the API server takes (1 to 65535).
func portNumber(n *yaml.Node) int {
	if n.Kind != yaml.ScalarNode {
		return 0
	}
	p, err := strconv.Atoi(n.Value)
	if err != nil || p < 1 || p > 65535 {
		return 0
	}
	return p
}
