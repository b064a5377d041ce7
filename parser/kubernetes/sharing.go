package kubernetes

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// GPU sharing through NVIDIA's device plugin (https://github.com/NVIDIA/k8s-device-plugin,
// "Shared Access to GPUs"): its config file's sharing.timeSlicing or sharing.mps lists resources
// with a number of replicas, and a node then advertises each GPU as that many units of the
// resource (renamed <resource>.shared with renameByDefault or a resource's rename). With
// time-slicing the units interleave on the whole GPU, memory not isolated; with MPS each unit is
// an equal share of the GPU's memory and compute. The configs are keys of a ConfigMap, which the
// GPU Operator's ClusterPolicy names (spec.devicePlugin.config: name, default); a node takes the
// key its nvidia.com/device-plugin.config label names, else the default. GPU Feature Discovery
// labels a shared node nvidia.com/gpu.replicas.
const (
	labelPluginConfig  = "nvidia.com/device-plugin.config"
	labelPluginReplica = "nvidia.com/gpu.replicas"
	labelPluginSharing = "nvidia.com/gpu.sharing-strategy"
)

// Strategies of a shared GPU, as the device plugin names them (parser.PodGPUs.SharingStrategy).
const (
	SharingTimeSlicing = parser.SharingTimeSlicing
	SharingMPS         = parser.SharingMPS
)

// pluginConfig is one device plugin config file: how it shares each resource it replicates.
type pluginConfig struct {
	configMap string // ns/name
	source    string // ConfigMap ns/name, key K
	strategy  string // SharingTimeSlicing or SharingMPS; "" when nothing is shared
	shared    map[string]int
	// partial names the resources whose replicas cover only some of a node's GPUs (devices: a
	// count or a list): a unit may or may not be a share, so none is priced as one.
	partial map[string]bool
	// oneUnit says the plugin refuses a request for more than one unit of what it shares
	// (failRequestsGreaterThanOne); packed that it packs a request's units onto as few GPUs as
	// it can (flags.plugin.sharedDevicesAllocationPolicy).
	oneUnit, packed bool
}

// asConfig is the config as the node groups and pods that take it see it; from says why they do.
func (c *pluginConfig) asConfig(from string) *parser.DevicePluginConfig {
	return &parser.DevicePluginConfig{Source: c.source, From: from, Strategy: c.strategy, Replicas: c.shared, Partial: c.partial, OneUnit: c.oneUnit, Packed: c.packed}
}

// pluginSharing is what the manifests say of the device plugin's configs: every config found in
// a ConfigMap, by key, and the one nodes without the label take.
type pluginSharing struct {
	byKey map[string][]*pluginConfig // a key may be in several ConfigMaps
	maps  map[string]bool            // the ConfigMaps (ns/name) holding configs
	// named is the ConfigMap the device plugin reads, as a ClusterPolicy or a chart's values
	// name it ("" when nothing does), with the default key they name and which names them.
	named, namedDefault, policy string
	// defaultDecided says namedDefault is the whole answer: the device plugin chart's fallback
	// strategies were applied to the configs its values hold, and other keys are not guessed.
	defaultDecided bool
	// sources are the ConfigMaps and Secrets among the manifests, and pending the Flux releases
	// that take values from them, read by finish.
	sources []*object
	pending []pendingRelease
	// layouts are the MIG layouts the GPU Operator's releases declare in their values.
	layouts MIGLayouts
	// repo is the repository the manifests are read from (Options.Repository), for Argo CD's
	// value files; warns what could not be read of them.
	repo  Repository
	warns []parser.Error
	// kueue are the releases of Kueue's chart read, with their values: Build reads Kueue's
	// configuration from them.
	kueue []ChartRelease
}

func newPluginSharing() *pluginSharing {
	return &pluginSharing{byKey: map[string][]*pluginConfig{}, maps: map[string]bool{}, layouts: MIGLayouts{}}
}

// isPluginSharing says whether an object may tell how the device plugin shares GPUs: a
// ConfigMap (its configs), a ClusterPolicy, or a release of one of its charts (Flux, Argo CD).
func isPluginSharing(o *object) bool {
	switch {
	case (o.Kind == "ConfigMap" || o.Kind == "Secret") && o.APIVersion == "v1",
		o.Kind == "HelmRelease" && group(o.APIVersion) == "helm.toolkit.fluxcd.io",
		o.Kind == "Application" && group(o.APIVersion) == "argoproj.io",
		o.Kind == "ClusterPolicy" && group(o.APIVersion) == "nvidia.com":
		return true
	}
	return false
}

// addObject reads what an object isPluginSharing says of the device plugin's configs.
func (s *pluginSharing) addObject(o *object) []parser.Error {
	var errs []parser.Error
	switch o.Kind {
	case "ConfigMap":
		s.sources = append(s.sources, o)
		for _, err := range s.addConfigMap(o) {
			errs = append(errs, specError(o, err))
		}
	case "Secret":
		s.sources = append(s.sources, o) // values a Flux release takes
	case "HelmRelease":
		r, refs, unread, ok, err := fluxRelease(o)
		if err != nil {
			errs = append(errs, specError(o, err))
		}
		if unread != "" {
			s.warns = append(s.warns, parser.Error{File: o.file, Line: o.line, Message: o.address() + ": " + unread})
		}
		switch {
		case ok && len(refs) > 0:
			s.pending = append(s.pending, pendingRelease{o: o, r: r, refs: refs})
		case ok:
			errs = append(errs, releaseErrors(o, r, s.addRelease(r))...)
		}
	case "Application":
		rs, warns, err := argoReleases(o, s.repo)
		if err != nil {
			errs = append(errs, specError(o, err))
		}
		for _, w := range warns {
			s.warns = append(s.warns, parser.Error{File: o.file, Line: o.line, Message: o.address() + ": " + w})
		}
		for _, r := range rs {
			errs = append(errs, releaseErrors(o, r, s.addRelease(r))...)
		}
	case "ClusterPolicy":
		if err := s.addClusterPolicy(o); err != nil {
			errs = append(errs, specError(o, err))
		}
	}
	return errs
}

// finish reads the Flux releases that take values from ConfigMaps and Secrets, once every object
// is read: what the values get wrong is an error, a reference it cannot read a warning. The
// warnings include the Argo CD value files that could not be read.
func (s *pluginSharing) finish() (errs, warns []parser.Error) {
	warns, s.warns = s.warns, nil
	if len(s.pending) == 0 {
		return nil, warns
	}
	sources := make(map[string]*object, len(s.sources)) // by Kind/namespace/name
	for _, o := range s.sources {
		sources[o.Kind+"/"+o.namespace()+"/"+o.Metadata.Name] = o
	}
	for _, p := range s.pending {
		values, es, unread := fluxValues(p, sources)
		for _, e := range es {
			errs = append(errs, specError(p.o, e))
		}
		for _, u := range unread {
			warns = append(warns, parser.Error{File: p.o.file, Line: p.r.Line, Message: fmt.Sprintf("%s: %s", p.o.address(), u)})
		}
		p.r.Values = values
		errs = append(errs, releaseErrors(p.o, p.r, s.addRelease(p.r))...)
	}
	s.pending = nil
	return errs, warns
}

// DevicePluginOnGroups resolves, for each of a configuration's own node groups, the device
// plugin config its nodes take among the configuration's objects and the chart releases
// declared with them (by the group's label, else the plugin's default), so that pods read
// elsewhere that run on the group share its GPUs as its own pods do. Groups are keyed by
// address; none is when the configuration deploys no config. What the configs get wrong is
// Build's to report.
func DevicePluginOnGroups(files []*File, releases []ChartRelease, groups []NodeGroup) map[string]*parser.DevicePluginConfig {
	s := newPluginSharing()
	for _, r := range releases {
		s.addRelease(r)
	}
	for _, f := range files {
		for _, o := range f.objects {
			if isPluginSharing(o) {
				s.addObject(o)
			}
		}
	}
	s.finish()
	if len(s.byKey) == 0 {
		return nil
	}
	out := make(map[string]*parser.DevicePluginConfig, len(groups))
	for i := range groups {
		out[groups[i].Address] = s.onGroup(&groups[i])
	}
	return out
}

// onGroup is the config a group's nodes take: the one its label names, else the default;
// when neither is found, the keys of the configs, undecided, and the resources they share
// (none: whichever the nodes take, their GPUs are whole).
func (s *pluginSharing) onGroup(g *NodeGroup) *parser.DevicePluginConfig {
	key, from, byDefault := g.Labels[labelPluginConfig], "", false
	if key != "" {
		from = fmt.Sprintf("which %s labels its nodes with (%s)", g.Address, labelPluginConfig)
	} else if key = s.defaultKey(); key != "" {
		from, byDefault = "the device plugin's default config", true
	}
	var c *pluginConfig
	if key != "" {
		c = s.lookup(key)
	}
	if c != nil {
		if byDefault && s.namedDefault != "" && !strings.HasPrefix(c.source, s.policy) {
			from += " in " + s.policy
		}
		return c.asConfig(from)
	}
	d := &parser.DevicePluginConfig{Shares: map[string]bool{}}
	for k, cs := range s.byKey {
		d.Undecided = append(d.Undecided, k)
		for _, c := range cs {
			for r, n := range c.shared {
				if n > 1 {
					d.Shares[r] = true
				}
			}
		}
	}
	sort.Strings(d.Undecided)
	return d
}

// onGroupOf applies to a pod the device plugin config of the node group it runs on, as the
// group's own configuration resolved it (DevicePluginOnGroups).
func onGroupOf(res *parser.Resource, g *NodeGroup) {
	d, pod := g.DevicePlugin, res.Pod
	if d.Undecided != nil {
		if d.Shares[pod.Resource] {
			res.Note("the NVIDIA device plugin's configs declared with %s (keys %s) share %s on some nodes, but which config its nodes take is not said (label %s, or a default): each unit is priced as a whole %s",
				g.name(), strings.Join(d.Undecided, ", "), pod.Resource, labelPluginConfig, pod.UnitDevice())
		}
		return
	}
	at := *d
	if g.Root != "" {
		at.Source += " in " + g.Root
	}
	shareByConfig(res, &at)
}

// shareByConfig makes each unit of a pod's resource the share of a device (a GPU, or a MIG slice
// under the mixed strategy's nvidia.com/mig-<profile> or the single strategy's nvidia.com/gpu)
// that a device plugin config gives it, as its Source says and its From explains: replicas of
// it per device. Not when the replicas cover only some of a node's devices, nor MPS on a MIG
// slice, which the plugin refuses to start with (MIG devices are shared by time-slicing only).
// The pod also takes how the plugin hands out several units (OneUnit, Packed).
// https://github.com/NVIDIA/k8s-device-plugin#shared-access-to-gpus
// https://github.com/NVIDIA/k8s-device-plugin/pull/537 (MPS disabled for MIG devices)
func shareByConfig(res *parser.Resource, d *parser.DevicePluginConfig) {
	pod, source, from, strategy := res.Pod, d.Source, d.From, d.Strategy
	n, device := d.Replicas[pod.Resource], pod.UnitDevice()
	switch {
	case n <= 1:
		return
	case d.Partial[pod.Resource]:
		res.Note("%s, %s, shares only some of a node's GPUs (devices): a unit of %s may be a whole %s or 1/%d of one, priced as a whole %s", source, from, pod.Resource, device, n, device)
		return
	case pod.MIGProfile != "" && strategy == SharingMPS:
		res.Note("%s, %s, shares %s with MPS, which NVIDIA's device plugin refuses for MIG devices (they are shared by time-slicing only): each unit is priced as a whole %s", source, from, pod.Resource, device)
		return
	}
	pod.SharedReplicas, pod.SharingStrategy = n, strategy
	pod.SharedOneUnit, pod.SharedPacked = d.OneUnit, d.Packed
	res.Note("%s, %s, shares each %s as %d units of %s (%s)", source, from, device, n, pod.Resource, strategy)
}

// addConfigMap reads the device plugin configs among a ConfigMap's keys (addConfig); a config
// whose sharing section the plugin would refuse is an error at its key.
func (s *pluginSharing) addConfigMap(o *object) []error {
	data := o.topLevel("data")
	if data == nil || data.Kind != yaml.MappingNode {
		return nil
	}
	var errs []error
	key := "" // ns/name, made for the first value that may be a config
	for i := 0; i+1 < len(data.Content); i += 2 {
		k, v := data.Content[i], data.Content[i+1]
		if v.Kind != yaml.ScalarNode || !mayBeConfig(v.Value) {
			continue
		}
		if key == "" {
			key = o.namespace() + "/" + o.Metadata.Name
		}
		c, err := s.addConfig(key, k.Value, v.Value)
		if err != nil {
			errs = append(errs, lineError{line: o.lineOf(k), err: fmt.Errorf("data.%s: the device plugin's sharing config: %w", k.Value, err)})
		} else if c != nil {
			c.source = fmt.Sprintf("ConfigMap %s, key %s", key, k.Value)
		}
	}
	return errs
}

// addConfig reads one config file, the value of key in configMap (ns/name): a YAML document
// with version v1 and a sharing or flags section; anything else is not the device plugin's
// and is left alone (nil). An error says what in its sharing section the plugin would refuse.
// The caller says where the config came from (its source).
func (s *pluginSharing) addConfig(configMap, key, text string) (*pluginConfig, error) {
	if !mayBeConfig(text) {
		return nil, nil
	}
	var doc struct {
		Version string    `yaml:"version"`
		Flags   yaml.Node `yaml:"flags"`
		Sharing yaml.Node `yaml:"sharing"`
	}
	if yaml.Unmarshal([]byte(text), &doc) != nil || doc.Version != "v1" || doc.Flags.Kind == 0 && doc.Sharing.Kind == 0 {
		return nil, nil
	}
	c := &pluginConfig{configMap: configMap, shared: map[string]int{}, partial: map[string]bool{}}
	if err := c.readSharing(&doc.Sharing); err != nil {
		return nil, err
	}
	if err := c.readPolicy(&doc.Flags); err != nil {
		return nil, err
	}
	s.byKey[key] = append(s.byKey[key], c)
	s.maps[configMap] = true
	return c, nil
}

// mayBeConfig is addConfig's cheap test, before any YAML is parsed: a config file names its
// version and a sharing or flags section.
func mayBeConfig(text string) bool {
	return strings.Contains(text, "version") && (strings.Contains(text, "sharing") || strings.Contains(text, "flags"))
}

// readSharing reads sharing.mps or sharing.timeSlicing; MPS wins when it replicates anything,
// as the plugin's SharingStrategy has it. Its failRequestsGreaterThanOne makes the plugin refuse
// a request for more than one unit; MPS sets it unless the config says false, which the plugin
// honors in its recent releases (from v0.15.0 until then it set it whatever the config said).
// https://github.com/NVIDIA/k8s-device-plugin (api/config/v1/config.go, CHANGELOG v0.15.0-rc.2)
func (c *pluginConfig) readSharing(n *yaml.Node) error {
	if n.Kind == 0 {
		return nil
	}
	type resource struct {
		Name     string    `yaml:"name"`
		Rename   string    `yaml:"rename"`
		Replicas int       `yaml:"replicas"`
		Devices  yaml.Node `yaml:"devices"`
	}
	type replicated struct {
		RenameByDefault            bool       `yaml:"renameByDefault"`
		FailRequestsGreaterThanOne *bool      `yaml:"failRequestsGreaterThanOne"`
		Resources                  []resource `yaml:"resources"`
	}
	var sh struct {
		TimeSlicing *replicated `yaml:"timeSlicing"`
		MPS         *replicated `yaml:"mps"`
	}
	if err := n.Decode(&sh); err != nil {
		return err
	}
	for _, x := range []struct {
		strategy string
		r        *replicated
	}{{SharingMPS, sh.MPS}, {SharingTimeSlicing, sh.TimeSlicing}} {
		if x.r == nil {
			continue
		}
		for _, r := range x.r.Resources {
			if r.Name == "" || r.Replicas <= 0 || r.Replicas > maxPods {
				return fmt.Errorf("%s resource %q: replicas %d is not a number of shares of a GPU", x.strategy, r.Name, r.Replicas)
			}
		}
		if !slices.ContainsFunc(x.r.Resources, func(r resource) bool { return r.Replicas > 1 }) {
			continue
		}
		c.strategy = x.strategy
		c.oneUnit = x.strategy == SharingMPS // the plugin's default: set for MPS, not for time-slicing
		if f := x.r.FailRequestsGreaterThanOne; f != nil {
			c.oneUnit = *f
		}
		for _, r := range x.r.Resources {
			name := r.Name
			switch {
			case r.Rename != "":
				name = r.Rename
			case x.r.RenameByDefault:
				name += ".shared"
			}
			if r.Replicas > 1 {
				c.shared[name] = r.Replicas
			}
			if d := r.Devices; d.Kind != 0 && !(d.Kind == yaml.ScalarNode && d.Value == "all") {
				c.partial[name] = true
			}
		}
		return nil
	}
	return nil
}

// readPolicy reads how the plugin hands out the units of a shared GPU when a pod asks for more
// than one (flags.plugin.sharedDevicesAllocationPolicy): "distributed", its default, takes each
// unit from the GPU with the fewest units taken, so that k units land on k GPUs where the node
// has them free; "packed" fills a GPU's units before it takes the next GPU's. The plugin refuses
// to start with any other value.
// https://github.com/NVIDIA/k8s-device-plugin/pull/1621 (internal/rm/allocate.go)
func (c *pluginConfig) readPolicy(flags *yaml.Node) error {
	if flags.Kind == 0 {
		return nil
	}
	var f struct {
		Plugin struct {
			Policy *string `yaml:"sharedDevicesAllocationPolicy"`
		} `yaml:"plugin"`
	}
	if err := flags.Decode(&f); err != nil {
		return err
	}
	switch p := f.Plugin.Policy; {
	case p == nil || *p == "distributed":
	case *p == "packed":
		c.packed = true
	default:
		return fmt.Errorf("flags.plugin.sharedDevicesAllocationPolicy is %q: the device plugin takes distributed or packed", *p)
	}
	return nil
}

// addClusterPolicy reads the ConfigMap and default key the GPU Operator gives its device plugin.
func (s *pluginSharing) addClusterPolicy(o *object) error {
	var spec struct {
		DevicePlugin struct {
			Config struct {
				Name    string `yaml:"name"`
				Default string `yaml:"default"`
			} `yaml:"config"`
		} `yaml:"devicePlugin"`
	}
	if err := decodeSpec(o, &spec); err != nil {
		return err
	}
	if c := spec.DevicePlugin.Config; c.Name != "" {
		s.readsFrom(c.Name, c.Default, "ClusterPolicy "+o.Metadata.Name)
	}
	return nil
}

// lookup finds the config a node takes by its key; nil when the manifests do not tell one
// config apart.
func (s *pluginSharing) lookup(key string) *pluginConfig {
	var found []*pluginConfig
	for _, c := range s.byKey[key] {
		if s.named == "" || strings.HasSuffix(c.configMap, "/"+s.named) {
			found = append(found, c)
		}
	}
	if len(found) != 1 {
		return nil
	}
	return found[0]
}

// defaultKey is the key of the config nodes without the label take: the ClusterPolicy's default,
// else the key named "default", else the only key of the only ConfigMap, as the plugin's chart
// infers it. "" when the manifests do not say.
func (s *pluginSharing) defaultKey() string {
	if s.namedDefault != "" {
		return s.namedDefault
	}
	if s.defaultDecided {
		return ""
	}
	if len(s.byKey["default"]) > 0 {
		return "default"
	}
	if len(s.byKey) == 1 {
		for k, cs := range s.byKey {
			if len(cs) == 1 {
				return k
			}
		}
	}
	return ""
}

// apply makes each unit of a pod's GPU resource the share of a GPU the device plugin's config on
// its nodes makes it: the config its node labels name (the pod's own selection, the template of
// the NodePool that launches them, the node group that runs them), else the default. GKE's own
// sharing label and a pod on nodes GFD labels as shared decide first. A unit may be a MIG slice:
// the plugin time-slices the slices of its MIG strategies as it does whole GPUs.
func (s *pluginSharing) apply(res *parser.Resource, podSel selector, np *nodePool, g *NodeGroup) {
	pod := res.Pod
	if pod == nil || pod.SharedReplicas > 0 || !strings.HasPrefix(pod.Resource, ResourceNvidiaGPU) && !strings.HasPrefix(pod.Resource, ResourceNvidiaMIG) {
		return
	}
	sel := podSel
	if np != nil && (np.requirements.allowed[labelPluginConfig] != nil || np.requirements.allowed[labelPluginReplica] != nil) {
		sel = np.merge(podSel) // the NodePool's template labels are its nodes'
	}
	if v, ok := sel.values(labelPluginReplica); ok && len(v) == 1 && strings.HasPrefix(pod.Resource, ResourceNvidiaGPU) {
		if n, err := strconv.Atoi(v[0]); err == nil && n > 1 && n <= maxPods {
			pod.SharedReplicas = n
			if st, ok := sel.values(labelPluginSharing); ok && len(st) == 1 && (st[0] == SharingMPS || st[0] == SharingTimeSlicing) {
				// The config is not among the manifests: under MPS the plugin refuses requests
				// for more than one unit unless it says otherwise (mpsOneUnit).
				pod.SharingStrategy, pod.SharedOneUnit = st[0], st[0] == SharingMPS
			}
			res.Note("the pod selects %s=%d: its nodes advertise each GPU as %d units of %s", labelPluginReplica, n, n, pod.Resource)
			return
		}
	}
	if np != nil && np.bottlerocket != nil && !np.bottlerocket.Disabled {
		// Karpenter launches the nodes with Bottlerocket settings for the device plugin it runs
		// (with enabled = false it runs none, and the one the cluster deploys is the nodes').
		if c := np.bottlerocket.Config(np.bottlerocketFrom, "the Bottlerocket settings "+np.address+"'s nodes boot with"); c != nil {
			shareByConfig(res, c)
		}
		return
	}
	if g != nil && g.DevicePlugin != nil {
		// The group's own configuration deploys the device plugin: its config is the nodes'.
		onGroupOf(res, g)
		return
	}
	if len(s.byKey) == 0 {
		return
	}
	key, from, byDefault := "", "", false
	if v, ok := sel.values(labelPluginConfig); ok && len(v) == 1 {
		key, from = v[0], "which the pod selects with "+labelPluginConfig
	} else if g != nil && g.Labels[labelPluginConfig] != "" {
		key, from = g.Labels[labelPluginConfig], fmt.Sprintf("which %s labels its nodes with (%s)", g.name(), labelPluginConfig)
	} else if key = s.defaultKey(); key != "" {
		from, byDefault = "the device plugin's default config", true
	}
	var c *pluginConfig
	if key != "" {
		c = s.lookup(key)
	}
	if c != nil && byDefault && s.namedDefault != "" && !strings.HasPrefix(c.source, s.policy) {
		from += " in " + s.policy // where the default is named, when that is not where the config is
	}
	if c == nil {
		keys := make([]string, 0, len(s.byKey))
		for k := range s.byKey {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if s.sharesAny(pod.Resource) {
			res.Note("the NVIDIA device plugin's configs among the manifests (keys %s) share %s on some nodes, but which config this pod's nodes take is not said (label %s, or a default): each unit is priced as a whole %s",
				strings.Join(keys, ", "), pod.Resource, labelPluginConfig, pod.UnitDevice())
		}
		return
	}
	shareByConfig(res, c.asConfig(from))
}

// sharesAny says whether any config found shares the resource.
func (s *pluginSharing) sharesAny(resource string) bool {
	for _, cs := range s.byKey {
		for _, c := range cs {
			if c.shared[resource] > 1 {
				return true
			}
		}
	}
	return false
}

// sharedProductNote says so when a pod selects its GPU by the product label GPU feature discovery
// gives GPUs the device plugin replicates without renaming the resource ("NVIDIA-A10G-SHARED"),
// and nothing says into how many units each GPU is split: a unit is a share of a GPU, priced
// as the whole GPU, what a share costs at most.
func sharedProductNote(res *parser.Resource) {
	pod := res.Pod
	if pod == nil || pod.SharedReplicas > 0 {
		return
	}
	for _, n := range pod.GPUNames {
		if strings.HasSuffix(strings.ToUpper(n), "-SHARED") {
			res.Note("its nodes' GPUs are shared (%s %s: the device plugin time-slices or splits them, and GPU feature discovery marks the product): each %s unit is a share of a GPU, but nothing here says how many units a GPU is, so it is priced as a whole GPU; select %s too, or include the device plugin's config", labelGPUProduct, n, pod.Resource, labelPluginReplica)
			return
		}
	}
}
