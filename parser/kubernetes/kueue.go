package kubernetes

import (
	"fmt"
)

// Kueue queues batch workloads and admits them onto resource flavors: a Job labelled
// kueue.x-k8s.io/queue-name names a LocalQueue, which feeds a ClusterQueue, whose resource
// groups list flavors in the order Kueue tries them; an admitted workload's pods get the
// flavor's node labels and tolerations. gpuguard places a queued workload's pods on the first
// flavor of the group that covers their GPU resource, as Kueue does while that flavor has quota.
// https://kueue.sigs.k8s.io/docs/concepts/cluster_queue/#flavors-and-resources
const labelQueueName = "kueue.x-k8s.io/queue-name"

type kueueIndex struct {
	flavors       map[string]kueueFlavor
	clusterQueues map[string][]kueueGroup
	localQueues   map[string]string // namespace/name → ClusterQueue
}

type kueueFlavor struct {
	name        string
	labels      map[string]string
	tolerations []toleration
}

type kueueGroup struct {
	covered []string
	flavors []string
}

func newKueueIndex() *kueueIndex {
	return &kueueIndex{flavors: map[string]kueueFlavor{}, clusterQueues: map[string][]kueueGroup{}, localQueues: map[string]string{}}
}

func isKueue(o *object) bool { return group(o.APIVersion) == "kueue.x-k8s.io" }

// add reads a ResourceFlavor, ClusterQueue or LocalQueue; other Kueue kinds are not needed.
func (k *kueueIndex) add(o *object) error {
	switch o.Kind {
	case "ResourceFlavor":
		var spec struct {
			NodeLabels  map[string]string `yaml:"nodeLabels"`
			Tolerations []toleration      `yaml:"tolerations"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.flavors[o.Metadata.Name] = kueueFlavor{name: o.Metadata.Name, labels: spec.NodeLabels, tolerations: spec.Tolerations}
	case "ClusterQueue":
		var spec struct {
			ResourceGroups []struct {
				CoveredResources []string `yaml:"coveredResources"`
				Flavors          []struct {
					Name string `yaml:"name"`
				} `yaml:"flavors"`
			} `yaml:"resourceGroups"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		var groups []kueueGroup
		for _, g := range spec.ResourceGroups {
			kg := kueueGroup{covered: g.CoveredResources}
			for _, f := range g.Flavors {
				kg.flavors = append(kg.flavors, f.Name)
			}
			groups = append(groups, kg)
		}
		k.clusterQueues[o.Metadata.Name] = groups
	case "LocalQueue":
		var spec struct {
			ClusterQueue string `yaml:"clusterQueue"`
		}
		if err := decodeSpec(o, &spec); err != nil {
			return err
		}
		k.localQueues[o.namespace()+"/"+o.Metadata.Name] = spec.ClusterQueue
	}
	return nil
}

// place finds the flavor a queued workload's pods get for their GPU resource. It returns the
// flavor and a note, or only a note saying what is missing; nothing when the workload is not
// queued.
func (k *kueueIndex) place(o *object, tmpl podTemplate, resource string) (*kueueFlavor, string) {
	queue := o.Metadata.Labels[labelQueueName]
	if queue == "" {
		queue = tmpl.Metadata.Labels[labelQueueName]
	}
	if queue == "" {
		return nil, ""
	}
	cq, ok := k.localQueues[o.namespace()+"/"+queue]
	if !ok {
		return nil, fmt.Sprintf("Kueue LocalQueue %s/%s is not among the files read: the node comes from the pod's own labels", o.namespace(), queue)
	}
	groups, ok := k.clusterQueues[cq]
	if !ok {
		return nil, fmt.Sprintf("Kueue ClusterQueue %s (of LocalQueue %s/%s) is not among the files read: the node comes from the pod's own labels", cq, o.namespace(), queue)
	}
	for _, g := range groups {
		covers := false
		for _, r := range g.covered {
			covers = covers || r == resource
		}
		if !covers || len(g.flavors) == 0 {
			continue
		}
		name := g.flavors[0]
		f, ok := k.flavors[name]
		if !ok {
			return nil, fmt.Sprintf("Kueue ResourceFlavor %s (of ClusterQueue %s) is not among the files read: the node comes from the pod's own labels", name, cq)
		}
		note := fmt.Sprintf("Kueue: LocalQueue %s/%s → ClusterQueue %s → ResourceFlavor %s", o.namespace(), queue, cq, name)
		if len(g.flavors) > 1 {
			note += fmt.Sprintf(", the first of %d flavors (Kueue moves to the next when its quota is used)", len(g.flavors))
		}
		return &f, note
	}
	return nil, fmt.Sprintf("Kueue ClusterQueue %s covers no %s: the node comes from the pod's own labels", cq, resource)
}

// withFlavor adds a flavor's node labels to a pod's selection (the pod's own win, as Kueue
// refuses a flavor that contradicts them) and its tolerations to the pod's.
func withFlavor(sel selector, tols []toleration, f *kueueFlavor) (selector, []toleration) {
	out := newSelector()
	for k, v := range sel.allowed {
		out.allowed[k] = v
	}
	for k, v := range sel.excluded {
		out.excluded[k] = v
	}
	for k, v := range sel.above {
		out.bound("Gt", k, v)
	}
	for k, v := range sel.below {
		out.bound("Lt", k, v)
	}
	for k, v := range f.labels {
		if _, ok := out.allowed[k]; !ok {
			out.allowed[k] = []string{v}
		}
	}
	return out, append(append([]toleration(nil), tols...), f.tolerations...)
}
