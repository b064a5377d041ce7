package kubernetes

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuguard/gpuguard/parser"
)

// NVIDIA's DRA driver shares a claim's GPUs between the processes that use them (the
// containers of a pod, the pods that name a shared ResourceClaim) as the claim's opaque
// configuration says: a GpuConfig or MigDeviceConfig (resource.nvidia.com) whose sharing
// strategy is TimeSlicing (the default: each process sees all of the memory, none isolated) or
// MPS, whose mpsConfig may cap the device memory each client process may allocate
// (defaultPinnedDeviceMemoryLimit, or per device) and the share of the GPU's threads it may use
// (defaultActiveThreadPercentage). The driver hands the limits to the claim's MPS control daemon
// (set_default_device_pinned_mem_limit, set_default_active_thread_percentage).
// https://github.com/NVIDIA/k8s-dra-driver-gpu (api/nvidia.com/resource/v1beta1/sharing.go)
// https://docs.nvidia.com/deploy/mps/latest/mpsv2-interface.html

// nvidiaDRADriver is the name NVIDIA's DRA driver publishes its GPUs under and reads its
// opaque configuration by.
const nvidiaDRADriver = "gpu.nvidia.com"

// deviceConfig is one entry of a claim's devices.config or a DeviceClass's config.
type deviceConfig struct {
	// Requests names the claim's requests it applies to (a subrequest of a prioritized list as
	// request/subrequest); none means all of them. A DeviceClass's config has none.
	Requests []string `yaml:"requests"`
	Opaque   *struct {
		Driver     string `yaml:"driver"`
		Parameters struct {
			Kind    string `yaml:"kind"`
			Sharing *struct {
				Strategy  string `yaml:"strategy"`
				MpsConfig *struct {
					DefaultActiveThreadPercentage     yaml.Node            `yaml:"defaultActiveThreadPercentage"`
					DefaultPinnedDeviceMemoryLimit    yaml.Node            `yaml:"defaultPinnedDeviceMemoryLimit"`
					DefaultPerDevicePinnedMemoryLimit map[string]yaml.Node `yaml:"defaultPerDevicePinnedMemoryLimit"`
				} `yaml:"mpsConfig"`
			} `yaml:"sharing"`
		} `yaml:"parameters"`
	} `yaml:"opaque"`
}

// appliesTo reports whether the entry configures the request of that name (a class's config
// names no requests: it applies to all).
func (c sharingConfig) appliesTo(request string) bool {
	return len(c.requests) == 0 || slices.ContainsFunc(c.requests, func(r string) bool {
		return r == request || strings.HasPrefix(r, request+"/")
	})
}

// sharing reads the entry's sharing settings for NVIDIA's driver: nil when it has none (another
// driver's, or a config without sharing). A limit that is not a quantity is an error at its line;
// the rest of the settings still stand.
func (c deviceConfig) sharing() (*parser.ClaimSharing, []error) {
	if c.Opaque == nil || !strings.EqualFold(c.Opaque.Driver, nvidiaDRADriver) || c.Opaque.Parameters.Sharing == nil {
		return nil, nil
	}
	sh := c.Opaque.Parameters.Sharing
	s := parser.ClaimSharing{Kind: cmp.Or(c.Opaque.Parameters.Kind, "GpuConfig")}
	switch sh.Strategy {
	case "TimeSlicing":
		s.Strategy = parser.SharingTimeSlicing
	case "MPS":
		s.Strategy = parser.SharingMPS
	default:
		return nil, nil // no sharing named, or one gpuguard does not judge (Fabric)
	}
	m := sh.MpsConfig
	if m == nil || s.Strategy != parser.SharingMPS {
		return &s, nil
	}
	var errs []error
	if n := &m.DefaultActiveThreadPercentage; n.Kind != 0 {
		var pct int
		if err := n.Decode(&pct); err != nil || pct < 1 || pct > 100 {
			errs = append(errs, lineError{line: n.Line, err: fmt.Errorf("defaultActiveThreadPercentage %q is not a percentage from 1 to 100", n.Value)})
		} else {
			s.ActiveThreadPercent = pct
		}
	}
	limit := func(n *yaml.Node, what string) float64 {
		v, err := computeQuantity(n.Value)
		if n.Kind != yaml.ScalarNode || err != nil || v < 1<<20 {
			// The driver refuses a limit under a MiB ("value set too low").
			errs = append(errs, lineError{line: n.Line, err: fmt.Errorf("%s %q is not a memory quantity of at least 1Mi", what, n.Value)})
			return 0
		}
		return math.Round(v/(1<<30)*100) / 100
	}
	if n := &m.DefaultPinnedDeviceMemoryLimit; n.Kind != 0 {
		s.MemoryLimitGiB = limit(n, "defaultPinnedDeviceMemoryLimit")
	}
	// A device's own limit overrides the default for that device: the pod is judged on the
	// device it may use the least of (a device without one keeps the default, or none).
	for _, k := range slices.Sorted(maps.Keys(m.DefaultPerDevicePinnedMemoryLimit)) {
		n := m.DefaultPerDevicePinnedMemoryLimit[k]
		if v := limit(&n, "defaultPerDevicePinnedMemoryLimit["+k+"]"); v > 0 && (s.MemoryLimitGiB == 0 || v < s.MemoryLimitGiB) {
			s.MemoryLimitGiB, s.LimitPerDevice = v, true
		}
	}
	return &s, errs
}

// sharingConfig is a config entry as read once: the requests it names and its sharing (nil for
// none).
type sharingConfig struct {
	requests []string
	sharing  *parser.ClaimSharing
}

// readConfigs reads a claim's or a DeviceClass's configs once, when the object is read; what of
// them cannot be read is errors at their lines.
func readConfigs(configs []deviceConfig) ([]sharingConfig, []error) {
	out := make([]sharingConfig, 0, len(configs))
	var errs []error
	for _, c := range configs {
		s, e := c.sharing()
		errs = append(errs, e...)
		out = append(out, sharingConfig{requests: c.Requests, sharing: s})
	}
	return out, errs
}

// requestSharing is how the configs share the devices of one request of a claim: the configs
// of its DeviceClass (className) first, then the claim's, the last that sets sharing standing
// (the driver applies them in that order). It is a copy, the caller's to complete.
func requestSharing(request, className string, class, claim []sharingConfig) *parser.ClaimSharing {
	var s *parser.ClaimSharing
	for i, c := range slices.Concat(class, claim) {
		if c.sharing == nil || !c.appliesTo(request) {
			continue
		}
		got := *c.sharing
		s = &got
		if i < len(class) {
			s.From = "DeviceClass " + className
		}
	}
	return s
}

// sharingNote says how a claim's devices are shared, for the notes.
func sharingNote(address string, s *parser.ClaimSharing) string {
	config := s.Kind
	if s.From != "" {
		config = s.From + "'s " + s.Kind
	}
	device := "GPU"
	if s.Kind == "MigDeviceConfig" {
		device = "MIG slice"
	}
	if s.Strategy != parser.SharingMPS {
		return fmt.Sprintf("%s time-slices its %ss between the processes that use them (%s, sharing TimeSlicing): none of their memory is isolated", address, device, config)
	}
	var caps []string
	if s.MemoryLimitGiB > 0 {
		field := "defaultPinnedDeviceMemoryLimit"
		if s.LimitPerDevice {
			field = "defaultPerDevicePinnedMemoryLimit, the lowest of its devices'"
		}
		caps = append(caps, fmt.Sprintf("%s GiB of each %s's memory (%s)", strconv.FormatFloat(s.MemoryLimitGiB, 'f', -1, 64), device, field))
	}
	if s.ActiveThreadPercent > 0 {
		caps = append(caps, fmt.Sprintf("%d%% of its threads (defaultActiveThreadPercentage)", s.ActiveThreadPercent))
	}
	if len(caps) == 0 {
		return fmt.Sprintf("%s shares its %ss through MPS (%s) without a memory limit: none of their memory is isolated", address, device, config)
	}
	return fmt.Sprintf("%s shares its %ss through MPS (%s): each process may use up to %s", address, device, config, strings.Join(caps, " and "))
}
