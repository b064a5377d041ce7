package kubernetes

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Kueue's own configuration (kind Configuration, apiVersion config.kueue.x-k8s.io/v1beta1 or
// v1beta2), read where a manifest declares it: as a document of its own, or as the value of a
// ConfigMap's data key (the kueue-manager-config ConfigMap Kueue's manifests and Helm chart
// deploy, whose controller_manager_config.yaml holds it). It changes what the queues admit:
//
//   - resources.excludeResourcePrefixes: a pod's requests of the resources whose names start
//     with one of them are not counted (no ClusterQueue needs to cover them);
//   - resources.transformations: a request of a transformation's input adds each of its
//     outputs, times the request (times the pod's request of multiplyBy, where that is set),
//     and strategy Replace drops the input (Retain, the default, keeps it). Kueue applies them
//     after the exclusions, to one pod's requests, each quantity rounded up to a whole number
//     of its unit (resource.Quantity.Value) before it multiplies;
//   - integrations.frameworks (and externalFrameworks): the kinds Kueue manages. Left out,
//     Kueue manages batch Jobs only; a workload of another kind is left alone, whatever queue
//     it names, and its pods are scheduled as they are;
//   - resources.deviceClassMappings: the DRA devices of a pod's claim templates count against
//     quota as the logical resource their DeviceClass maps to (kueuedra.go);
//   - manageJobsWithoutQueueName: Kueue also suspends the jobs that name no queue, in the
//     namespaces managedJobsNamespaceSelector selects (left out: all but kube-system and
//     Kueue's own namespace), and a job with no queue is never admitted.
//
// https://kueue.sigs.k8s.io/docs/reference/kueue-config.v1beta1/ and Kueue's pkg/workload
// (dropExcludedResources, applyResourceTransformations) and apis/config defaults, read 2026-11.
const kueueConfigGroup = "config.kueue.x-k8s.io"

// kueueConfig is one Kueue Configuration read.
type kueueConfig struct {
	from       string // where it was read, for notes: "Kueue's configuration (file:line)"
	exclude    []string
	transforms map[string]kueueTransform // by input resource
	frameworks []string                  // integrations.frameworks, defaulted
	external   []string                  // integrations.externalFrameworks: Kind.version.group
	// withoutQueueName is manageJobsWithoutQueueName; managed is managedJobsNamespaceSelector,
	// defaulted.
	withoutQueueName bool
	managed          labelSelector
	// deviceClasses are resources.deviceClassMappings: the logical resource a DRA device of
	// each DeviceClass counts as against a ClusterQueue's quota (kueueDRA); nil when there are
	// none, or the DRA integration's feature gate is off. prioritizedList is its
	// KueueDRAIntegrationPrioritizedList gate, under which a firstAvailable request counts too.
	deviceClasses   map[string]string
	prioritizedList bool
}

// kueueTransform is one of resources.transformations.
type kueueTransform struct {
	replace    bool
	multiplyBy string
	outputs    map[string]float64 // per unit of the input, in each output's unit
	written    map[string]string  // the outputs as written, for notes
}

// isKueueConfig reports whether a decoded document is a Kueue Configuration.
func isKueueConfig(apiVersion, kind string) bool {
	return group(apiVersion) == kueueConfigGroup && kind == "Configuration"
}

// kueueConfigs reads the Kueue Configurations o declares: itself, or the values of a
// ConfigMap's data that hold one.
func kueueConfigs(o *object) ([]*kueueConfig, []error) {
	if isKueueConfig(o.APIVersion, o.Kind) {
		c, err := readKueueConfig(o, o.doc, fmt.Sprintf("Kueue's configuration (%s:%d)", o.file, o.line))
		if err != nil {
			return nil, []error{err}
		}
		return []*kueueConfig{c}, nil
	}
	data := o.topLevel("data")
	if o.Kind != "ConfigMap" || data == nil || data.Kind != yaml.MappingNode {
		return nil, nil
	}
	var out []*kueueConfig
	var errs []error
	for i := 0; i+1 < len(data.Content); i += 2 {
		key, v := data.Content[i], data.Content[i+1]
		if v.Kind != yaml.ScalarNode || !strings.Contains(v.Value, kueueConfigGroup) {
			continue
		}
		var doc yaml.Node
		if yaml.Unmarshal([]byte(v.Value), &doc) != nil || len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
			continue // not a Configuration gpuguard can read; Kueue would not start with it either
		}
		root := doc.Content[0]
		var head struct {
			APIVersion string `yaml:"apiVersion"`
			Kind       string `yaml:"kind"`
		}
		if root.Decode(&head) != nil || !isKueueConfig(head.APIVersion, head.Kind) {
			continue
		}
		// A block scalar's text starts on the line after its key; a value written inline has
		// no lines of its own, and its nodes are placed at the key's.
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
			shiftLines(root, v.Line)
		} else {
			placeAt(root, v.Line)
		}
		from := fmt.Sprintf("Kueue's configuration (%s:%d, ConfigMap %s/%s, key %s)", o.file, o.lineOf(key), o.namespace(), o.Metadata.Name, key.Value)
		c, err := readKueueConfig(o, root, from)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out = append(out, c)
	}
	return out, errs
}

// kueueReleaseConfig reads Kueue's configuration from the values of a release of Kueue's chart:
// managerConfig.controllerManagerConfigYaml, which the chart writes whole into the ConfigMap
// Kueue reads (so it replaces the chart's default, and is read as it stands). nil when the
// values do not set it; a text without apiVersion and kind is read as a Configuration, as
// Kueue's own docs write their snippets. Its lines are the release's.
// https://github.com/kubernetes-sigs/kueue/tree/main/charts/kueue (values.yaml), read 2026-11.
func kueueReleaseConfig(r ChartRelease) (*kueueConfig, error) {
	text, ok := dig(r.Values, "managerConfig", "controllerManagerConfigYaml").(string)
	if !ok || strings.TrimSpace(text) == "" {
		return nil, nil
	}
	field := "managerConfig.controllerManagerConfigYaml"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(text), &doc); err != nil {
		return nil, fmt.Errorf("%s: not YAML: %v", field, err)
	}
	if len(doc.Content) == 0 || doc.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a mapping: not Kueue's configuration", field)
	}
	root := doc.Content[0]
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	_ = root.Decode(&head)
	if head.APIVersion != "" && !isKueueConfig(head.APIVersion, head.Kind) {
		return nil, fmt.Errorf("%s: apiVersion %s, kind %s is not Kueue's Configuration (%s)", field, head.APIVersion, head.Kind, kueueConfigGroup)
	}
	placeAt(root, r.Line)
	c, err := readKueueConfig(&object{file: r.File, line: r.Line}, root, fmt.Sprintf("Kueue's configuration (%s's values, %s; %s:%d)", r.Source, field, r.File, r.Line))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return c, nil
}

// readKueueConfig reads a Configuration document n of o. A transformation Kueue's validation
// refuses (an input named twice, a strategy other than Retain or Replace, an output that is
// not a quantity) is an error at its line: Kueue does not start with it, and gpuguard does not
// use it.
func readKueueConfig(o *object, n *yaml.Node, from string) (*kueueConfig, error) {
	var spec struct {
		Namespace                    string         `yaml:"namespace"`
		ManageJobsWithoutQueueName   bool           `yaml:"manageJobsWithoutQueueName"`
		ManagedJobsNamespaceSelector *labelSelector `yaml:"managedJobsNamespaceSelector"`
		Integrations                 struct {
			Frameworks         []string `yaml:"frameworks"`
			ExternalFrameworks []string `yaml:"externalFrameworks"`
		} `yaml:"integrations"`
		Resources struct {
			ExcludeResourcePrefixes []string `yaml:"excludeResourcePrefixes"`
			Transformations         []struct {
				Input      yaml.Node            `yaml:"input"`
				Strategy   yaml.Node            `yaml:"strategy"`
				MultiplyBy string               `yaml:"multiplyBy"`
				Outputs    map[string]yaml.Node `yaml:"outputs"`
			} `yaml:"transformations"`
			DeviceClassMappings []struct {
				Name             string   `yaml:"name"`
				DeviceClassNames []string `yaml:"deviceClassNames"`
			} `yaml:"deviceClassMappings"`
		} `yaml:"resources"`
		FeatureGates map[string]bool `yaml:"featureGates"`
	}
	if n == nil {
		return nil, lineError{line: o.line, err: fmt.Errorf("Kueue Configuration: not a mapping")}
	}
	if err := n.Decode(&spec); err != nil {
		return nil, fmt.Errorf("Kueue Configuration: %w", err)
	}
	c := &kueueConfig{
		from:             from,
		exclude:          spec.Resources.ExcludeResourcePrefixes,
		transforms:       map[string]kueueTransform{},
		frameworks:       spec.Integrations.Frameworks,
		external:         spec.Integrations.ExternalFrameworks,
		withoutQueueName: spec.ManageJobsWithoutQueueName,
	}
	if len(c.frameworks) == 0 {
		c.frameworks = []string{"batch/job"} // Kueue's default
	}
	// The DRA integration's gate: KueueDRAIntegration from 0.18 (beta, on unless turned off),
	// DynamicResourceAllocation before (alpha); a mapping is read unless a gate turns it off.
	off := false
	for _, g := range []string{"KueueDRAIntegration", "DynamicResourceAllocation"} {
		if on, set := spec.FeatureGates[g]; set && !on {
			off = true
		}
	}
	for _, m := range spec.Resources.DeviceClassMappings {
		if off || m.Name == "" {
			continue
		}
		if c.deviceClasses == nil {
			c.deviceClasses = map[string]string{}
		}
		for _, dc := range m.DeviceClassNames {
			c.deviceClasses[dc] = m.Name
		}
	}
	c.prioritizedList = spec.FeatureGates["KueueDRAIntegrationPrioritizedList"]
	if s := spec.ManagedJobsNamespaceSelector; s != nil {
		c.managed = *s
	} else {
		own := spec.Namespace
		if own == "" {
			own = "kueue-system"
		}
		c.managed = labelSelector{MatchExpressions: []requirement{{Key: "kubernetes.io/metadata.name", Operator: "NotIn", Values: []string{"kube-system", own}}}}
	}
	for _, t := range spec.Resources.Transformations {
		line := o.lineOf(&t.Input)
		input := t.Input.Value
		if _, dup := c.transforms[input]; dup {
			return nil, lineError{line: line, err: fmt.Errorf("Kueue Configuration: resources.transformations names input %q twice: Kueue refuses the configuration", input)}
		}
		kt := kueueTransform{multiplyBy: t.MultiplyBy, outputs: map[string]float64{}, written: map[string]string{}}
		switch t.Strategy.Value {
		case "", "Retain":
		case "Replace":
			kt.replace = true
		default:
			return nil, lineError{line: o.lineOf(&t.Strategy), err: fmt.Errorf("Kueue Configuration: transformation of %s: strategy %q is not Retain or Replace: Kueue refuses the configuration", input, t.Strategy.Value)}
		}
		for name, q := range t.Outputs {
			v, err := computeQuantity(q.Value)
			if q.Kind != yaml.ScalarNode || err != nil || v < 0 {
				return nil, lineError{line: o.lineOf(&q), err: fmt.Errorf("Kueue Configuration: transformation of %s: output %s %q is not a quantity: Kueue refuses the configuration", input, name, q.Value)}
			}
			kt.outputs[name], kt.written[name] = v, q.Value
		}
		c.transforms[input] = kt
	}
	return c, nil
}

// requests is one pod's requests as Kueue counts them against quota: without the excluded
// resources, then transformed. notes say what the configuration changed.
func (c *kueueConfig) requests(in map[string]float64) (out map[string]float64, notes []string) {
	if c == nil {
		return in, nil
	}
	out = map[string]float64{}
	var dropped []string
	for name, v := range in {
		if slices.ContainsFunc(c.exclude, func(p string) bool { return strings.HasPrefix(name, p) }) {
			dropped = append(dropped, name)
			continue
		}
		out[name] = v
	}
	if len(dropped) > 0 {
		slices.Sort(dropped)
		notes = append(notes, fmt.Sprintf("%s leaves %s out of quota (resources.excludeResourcePrefixes)", c.from, strings.Join(dropped, ", ")))
	}
	filtered := out
	out = map[string]float64{}
	for _, input := range slices.Sorted(maps.Keys(filtered)) {
		t, ok := c.transforms[input]
		if !ok {
			out[input] += filtered[input]
			continue
		}
		// Kueue multiplies the input's quantity itself (so a retained input is counted
		// multiplied too), then each output by the product rounded up.
		q, how := filtered[input], ""
		if m, ok := filtered[t.multiplyBy]; ok && t.multiplyBy != "" {
			q *= wholeUnits(m)
			how = fmt.Sprintf(" times its %s request", t.multiplyBy)
		}
		units := wholeUnits(q)
		var parts []string
		for _, name := range slices.Sorted(maps.Keys(t.outputs)) {
			out[name] += t.outputs[name] * units
			parts = append(parts, fmt.Sprintf("%s × %s", name, t.written[name]))
		}
		strategy := "Replace: it is not counted itself"
		if !t.replace {
			out[input] += q
			strategy = "Retain: it is counted too"
		}
		notes = append(notes, fmt.Sprintf("%s counts each %s the pod requests%s as %s (resources.transformations, %s)", c.from, input, how, strings.Join(parts, " + "), strategy))
	}
	return out, notes
}

// wholeUnits rounds a request up to a whole number of its unit, as resource.Quantity.Value
// does before Kueue multiplies by it.
func wholeUnits(v float64) float64 { return math.Ceil(v - 1e-9) }

// kueueFramework is the name of the Kueue integration that manages o's kind
// (integrations.frameworks), "" for a kind with none of its own.
func kueueFramework(o *object) string {
	g := group(o.APIVersion)
	switch {
	case g == "batch" && (o.Kind == "Job" || o.Kind == "CronJob"):
		return "batch/job" // a CronJob's Jobs are batch Jobs
	case g == "apps" && o.Kind == "Deployment":
		return "deployment"
	case g == "apps" && o.Kind == "StatefulSet":
		return "statefulset"
	case o.APIVersion == "v1" && o.Kind == "Pod":
		return "pod"
	case g == "jobset.x-k8s.io", g == "kubeflow.org", g == "ray.io", g == "trainer.kubeflow.org", g == "workload.codeflare.dev", g == "leaderworkerset.x-k8s.io":
		return g + "/" + strings.ToLower(o.Kind)
	}
	return ""
}

// manages reports whether Kueue manages o under this configuration, and why not: a kind of
// its own integration when that is enabled; another kind when externalFrameworks names it
// (Kind.version.group), or, where the pod integration is enabled, when its pods carry the
// queue label themselves (podQueued).
func (c *kueueConfig) manages(o *object, podQueued bool) (bool, string) {
	if c == nil {
		return true, ""
	}
	if f := kueueFramework(o); f != "" {
		if slices.Contains(c.frameworks, f) {
			return true, ""
		}
		return false, fmt.Sprintf("%s does not enable Kueue's %s integration (integrations.frameworks): Kueue leaves the %s alone", c.from, f, o.Kind)
	}
	version := o.APIVersion[strings.Index(o.APIVersion, "/")+1:]
	if slices.Contains(c.external, o.Kind+"."+version+"."+group(o.APIVersion)) {
		return true, ""
	}
	if podQueued && slices.Contains(c.frameworks, "pod") {
		return true, ""
	}
	return false, fmt.Sprintf("%s enables no Kueue integration for %s (integrations.frameworks, externalFrameworks, or pod for pods that carry the queue label themselves): Kueue leaves it alone", c.from, o.Kind)
}
