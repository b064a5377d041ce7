package kubernetes

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// migLayoutSlice matches the GPU Operator's default layouts that split every GPU into one slice
// profile: all-1g.10gb; the .me variants (media extensions) are the same slice.
var migLayoutSlice = regexp.MustCompile(`^all-([1-7]g\.[0-9]+gb)(?:[.+]me)?$`)

// MIGLayoutSlice reads a node's nvidia.com/mig.config label: the layout, named in the MIG
// manager's mig-parted config, that NVIDIA's GPU Operator splits the node's GPUs into. Its
// default config names all-<profile> for every GPU split into slices of that profile (each
// nvidia.com/gpu a pod asks for under the single MIG strategy is one), all-disabled and
// all-enabled (no slices), and all-balanced (a mix of slices on each GPU, which pods ask for by
// name under the mixed strategy). It returns the one slice of the layout, or "" and, for a
// layout that is not whole GPUs, why the GPUs are still judged whole.
// https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html
// https://github.com/NVIDIA/mig-parted (examples/config.yaml)
func MIGLayoutSlice(layout string) (slice, why string) {
	layout = strings.TrimSpace(layout)
	if m := migLayoutSlice.FindStringSubmatch(layout); m != nil {
		return m[1], ""
	}
	switch layout {
	case "", "all-disabled":
		return "", ""
	case "all-enabled":
		return "", "enables MIG mode without creating slices: the GPUs are judged whole"
	case "all-balanced":
		return "", "splits each GPU into a mix of slices, which pods ask for by name (nvidia.com/mig-<profile>): the GPUs are judged whole"
	}
	return "", "is not one of the GPU Operator's default layouts (all-<profile>): which slices it makes is not known, and the GPUs are judged whole"
}

// MIGLayouts are the MIG layouts of the mig-parted configs among the manifests (a ConfigMap the
// GPU Operator's ClusterPolicy names in spec.migManager.config.name holds one at a key, usually
// config.yaml) and in the values of the GPU Operator's chart releases (migManager.config.data),
// by name: a layout there takes the place of the default config's of that name.
type MIGLayouts map[string]migLayout

// MIGLayoutsOf reads the MIG layouts a configuration's own objects and chart releases declare,
// so that its node groups' nvidia.com/mig.config labels are read as its pods' are. What the
// configs get wrong is Build's to report.
func MIGLayoutsOf(files []*File, releases []ChartRelease) MIGLayouts {
	// The GPU Operator's releases: those given, and those declared among the objects (a Flux
	// HelmRelease, an Argo CD Application), read as Build reads them.
	sharing := newPluginSharing()
	for _, r := range releases {
		sharing.addRelease(r)
	}
	l := MIGLayouts{}
	for _, f := range files {
		for _, o := range f.objects {
			if isPluginSharing(o) {
				sharing.addObject(o)
			}
			if o.Kind == "ConfigMap" && o.APIVersion == "v1" {
				l.add(o)
			}
		}
	}
	sharing.finish()
	for name, layout := range sharing.layouts {
		if _, ok := l[name]; !ok { // a ConfigMap's layout of the same name wins, as in Build
			l[name] = layout
		}
	}
	return l
}

// Partition splits a node group's GPUs into the MIG slices its nvidia.com/mig.config label
// names (NVIDIA's GPU Operator's MIG manager partitions the nodes so), as the default layouts or
// these custom ones declare it, unless the group declares its own partition (GKE's
// gpu_partition_size, AKS's gpu_instance).
func (l MIGLayouts) Partition(r *parser.Resource) {
	if r.NodeLabels == nil || r.Pod != nil || r.GPUPartition != "" {
		return
	}
	layout, ok := r.NodeLabels.Labels[LabelMIGConfig]
	if !ok {
		return
	}
	switch slice, why, from := l.Slice(layout); {
	case slice != "":
		r.GPUPartition = slice
		if from != "" {
			from = ", as " + from + " declares it"
		}
		r.Note("GPUs are partitioned into MIG slices of %s (label %s=%s, which the GPU Operator's MIG manager applies%s): a workload gets one slice per copy", slice, LabelMIGConfig, layout, from)
	case why != "":
		r.Note("label %s=%s %s", LabelMIGConfig, layout, why)
	case from != "":
		r.Note("label %s=%s names a layout that %s declares with MIG disabled: the GPUs are whole", LabelMIGConfig, layout, from)
	}
}

// PartitionDeclared partitions a node group read before these layouts were (a Terraform group
// whose layout the manifests read beside it declare) when they declare the layout its label
// names: what Partition said of the label then gives way to what the layout says.
func (l MIGLayouts) PartitionDeclared(r *parser.Resource) {
	if r.NodeLabels == nil || r.Pod != nil || r.GPUPartition != "" {
		return
	}
	layout, ok := r.NodeLabels.Labels[LabelMIGConfig]
	if _, _, from := l.Slice(layout); !ok || from == "" {
		return
	}
	said := fmt.Sprintf("label %s=%s ", LabelMIGConfig, layout)
	r.Notes = slices.DeleteFunc(r.Notes, func(n string) bool { return strings.HasPrefix(n, said) })
	l.Partition(r)
}

// migLayout is one named layout: the one slice it splits every GPU into, or why the GPUs are
// judged whole, and where it is declared.
type migLayout struct {
	slice, why, from string
}

// migPartedConfig is a mig-parted config file: each layout is a list of device groups.
// https://github.com/NVIDIA/mig-parted (README: "mig-configs")
type migPartedConfig struct {
	Version    string                  `yaml:"version"`
	MIGConfigs map[string][]migDevices `yaml:"mig-configs"`
}

// migDevices is one device group of a layout: which GPUs (all, or indexes), of which models
// (device-filter), and the slices made on each.
type migDevices struct {
	Devices      any            `yaml:"devices"`
	DeviceFilter any            `yaml:"device-filter"`
	MIGEnabled   bool           `yaml:"mig-enabled"`
	MIGDevices   map[string]int `yaml:"mig-devices"`
}

// add reads the mig-parted configs a ConfigMap holds; keys that hold none are left alone. A
// layout a ConfigMap declares takes the place of a release's of that name.
func (l MIGLayouts) add(o *object) {
	data := o.topLevel("data")
	if data == nil || data.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(data.Content); i += 2 {
		v := data.Content[i+1]
		if v.Kind != yaml.ScalarNode || !strings.Contains(v.Value, "mig-configs") {
			continue
		}
		var c migPartedConfig
		if yaml.Unmarshal([]byte(v.Value), &c) != nil || len(c.MIGConfigs) == 0 {
			continue
		}
		from := fmt.Sprintf("the mig-parted config in ConfigMap %s/%s (key %s)", o.namespace(), o.Metadata.Name, data.Content[i].Value)
		for name, groups := range c.MIGConfigs {
			l[name] = layoutOf(groups, from)
		}
	}
}

// addRelease reads the layouts a release of the GPU Operator's chart declares in its values: with
// migManager.config.create, the chart writes migManager.config.data, a text of named layouts,
// under mig-configs in the ConfigMap migManager.config.name (templates/mig_config.yaml, which
// renders nothing when the data is empty). Data the MIG manager could not read is an error
// naming the value's path. A ConfigMap's layout of the same name wins: Build keeps the releases'
// layouts apart and adds only those no ConfigMap declares, and MIGLayoutsOf reads the releases
// first.
// https://docs.nvidia.com/datacenter/cloud-native/gpu-operator/latest/gpu-operator-mig.html
// ("Dynamically Creating the MIG Configuration ConfigMap")
func (l MIGLayouts) addRelease(r ChartRelease) error {
	if chartName(r.Chart) != "gpu-operator" {
		return nil
	}
	if create, _ := dig(r.Values, "migManager", "config", "create").(bool); !create {
		return nil
	}
	var configs map[string][]migDevices
	switch data := dig(r.Values, "migManager", "config", "data").(type) {
	case nil:
		return nil
	case string:
		if strings.TrimSpace(data) == "" {
			return nil
		}
		if err := yaml.Unmarshal([]byte(data), &configs); err != nil {
			return fmt.Errorf("migManager.config.data: the MIG manager's layouts: %w", err)
		}
	default:
		// The chart indents the value as text (nindent): anything else fails to render.
		return fmt.Errorf("migManager.config.data is %s, not text: the chart writes it as the text of the layouts under mig-configs (data: |)", kindOfValue(data))
	}
	ns := cmp.Or(r.Namespace, "default")
	name, _ := dig(r.Values, "migManager", "config", "name").(string)
	from := fmt.Sprintf("%s's values (migManager.config.data, ConfigMap %s/%s)", r.Source, ns, name)
	for layout, groups := range configs {
		l[layout] = layoutOf(groups, from)
	}
	return nil
}

// kindOfValue names what a value read from YAML is, for errors.
func kindOfValue(v any) string {
	switch v.(type) {
	case map[string]any:
		return "a mapping"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

// layoutOf is what a layout's device groups make of a node's GPUs: one slice when every group
// covers all devices and enables MIG with slices of one profile; whole GPUs when none enables
// MIG; otherwise unknown.
func layoutOf(groups []migDevices, from string) migLayout {
	slice, enabled, disabled := "", false, false
	for _, g := range groups {
		if !g.MIGEnabled {
			disabled = true
			continue
		}
		enabled = true
		if all, _ := g.Devices.(string); all != "all" {
			disabled = true // the GPUs it does not name are left as they are
		}
		if len(g.MIGDevices) > 1 {
			return migLayout{from: from, why: "is declared in " + from + " with several slice sizes on each GPU: the GPUs are judged whole"}
		}
		for p := range g.MIGDevices {
			if slice != "" && slice != p {
				return migLayout{from: from, why: "is declared in " + from + " with a slice size per GPU model: the GPUs are judged whole"}
			}
			slice = p
		}
	}
	switch {
	case enabled && disabled:
		return migLayout{from: from, why: "is declared in " + from + " with MIG on some of a node's GPUs only: the GPUs are judged whole"}
	case slice == "" && enabled:
		return migLayout{from: from, why: "is declared in " + from + " enabling MIG without slices: the GPUs are judged whole"}
	}
	return migLayout{slice: slice, from: from}
}

// Slice is a layout by name: a mig-parted config's among the manifests, else the default
// config's (MIGLayoutSlice); from says where a custom one is declared.
func (l MIGLayouts) Slice(name string) (slice, why, from string) {
	if c, ok := l[strings.TrimSpace(name)]; ok {
		return c.slice, c.why, c.from
	}
	slice, why = MIGLayoutSlice(name)
	return slice, why, ""
}
