package bottlerocket

import (
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/BurntSushi/toml"

	"github.com/gpuguard/gpuguard/parser"
)

// DevicePlugin is what user data sets of the NVIDIA device plugin Bottlerocket runs, as its
// settings model and the plugin config it renders from them say:
//   - device-sharing-strategy "time-slicing" or "mps" shares each GPU as replicas units (default
//     2) of nvidia.com/gpu, renamed nvidia.com/gpu.shared unless rename-by-default is false (its
//     default is true);
//   - a pod may ask for one unit only: under time-slicing unless
//     time-slicing.fail-requests-greater-than-one is false (its default is true), under MPS
//     always (the plugin sets failRequestsGreaterThanOne for MPS, and Bottlerocket has no
//     setting for it);
//   - device-partitioning-strategy "mig" runs the plugin with the single MIG strategy, and
//     mig.profile names the slice each GPU model is split into ("a100.40gb" = "1g.5gb");
//   - enabled = false runs no plugin.
//
// https://bottlerocket.dev/en/os/1.54.x/api/settings/kubelet-device-plugins/ and
// github.com/bottlerocket-os/bottlerocket-core-kit packages/nvidia-k8s-device-plugin
// (nvidia-k8s-device-plugin-conf.in, read 2026-11-27).
type DevicePlugin struct {
	Disabled bool
	Strategy string // parser.SharingTimeSlicing or parser.SharingMPS; "" when GPUs are not shared
	Replicas int
	Rename   bool
	OneUnit  bool // the plugin refuses a request for more than one unit
	MIG      bool
	Profiles map[string]string // the MIG slice, by Bottlerocket's GPU model key
}

// defaultReplicas is the plugin config's replicas when the settings name none.
const defaultReplicas = 2

// Settings are Bottlerocket user data decoded once (base64 undone, TOML parsed): the device
// plugin's settings and the node's, which DevicePlugin and Node read.
type Settings struct {
	kubernetes, nvidia map[string]any
}

// DecodeSettings decodes user data (TOML, or the base64 of it a launch template holds). Text
// that is not TOML is an error.
func DecodeSettings(userData string) (Settings, error) {
	text := decoded(userData)
	var doc struct {
		Settings struct {
			Kubernetes    map[string]any `toml:"kubernetes"`
			DevicePlugins struct {
				NVIDIA map[string]any `toml:"nvidia"`
			} `toml:"kubelet-device-plugins"`
		} `toml:"settings"`
	}
	if _, err := toml.Decode(text, &doc); err != nil {
		return Settings{}, fmt.Errorf("not TOML Bottlerocket reads: %v", err)
	}
	return Settings{kubernetes: doc.Settings.Kubernetes, nvidia: doc.Settings.DevicePlugins.NVIDIA}, nil
}

// Read parses user data (TOML, or the base64 of it a launch template holds). ok says whether it
// sets anything of the NVIDIA device plugin. Text that is not TOML, and values Bottlerocket
// refuses, are errors; user data that never names the plugin's settings is not parsed.
func Read(userData string) (d DevicePlugin, ok bool, err error) {
	if !strings.Contains(decoded(userData), "kubelet-device-plugins") {
		return DevicePlugin{}, false, nil
	}
	s, err := DecodeSettings(userData)
	if err != nil {
		return DevicePlugin{}, false, err
	}
	return s.DevicePlugin()
}

// decoded is user data with its base64 undone, when it is base64.
func decoded(userData string) string {
	if b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(userData)); err == nil && utf8.Valid(b) {
		return string(b)
	}
	return userData
}

// DevicePlugin reads what the settings set of the NVIDIA device plugin; ok says whether they
// set anything. Values Bottlerocket refuses are errors.
func (s Settings) DevicePlugin() (d DevicePlugin, ok bool, err error) {
	nvidia := s.nvidia
	if nvidia == nil {
		return DevicePlugin{}, false, nil
	}
	const at = "settings.kubelet-device-plugins.nvidia."
	if v, set := nvidia["enabled"]; set {
		b, isBool := v.(bool)
		if !isBool {
			return DevicePlugin{}, false, fmt.Errorf("%senabled is %v, not true or false", at, v)
		}
		d.Disabled = !b
	}
	switch s := nvidia["device-sharing-strategy"]; s {
	case nil, "none":
	case parser.SharingTimeSlicing, parser.SharingMPS:
		d.Strategy = s.(string)
		d.Replicas, d.Rename, d.OneUnit = defaultReplicas, true, true
		section, _ := nvidia[d.Strategy].(map[string]any)
		if v, set := section["replicas"]; set {
			n, isInt := v.(int64)
			if !isInt || n < 1 || n > 1<<31-1 {
				return DevicePlugin{}, false, fmt.Errorf("%s%s.replicas is %v, not a whole number of at least 1", at, d.Strategy, v)
			}
			d.Replicas = int(n)
		}
		if v, set := section["rename-by-default"]; set {
			b, isBool := v.(bool)
			if !isBool {
				return DevicePlugin{}, false, fmt.Errorf("%s%s.rename-by-default is %v, not true or false", at, d.Strategy, v)
			}
			d.Rename = b
		}
		if v, set := section["fail-requests-greater-than-one"]; set && d.Strategy == parser.SharingTimeSlicing {
			b, isBool := v.(bool)
			if !isBool {
				return DevicePlugin{}, false, fmt.Errorf("%stime-slicing.fail-requests-greater-than-one is %v, not true or false", at, v)
			}
			d.OneUnit = b
		}
	default:
		return DevicePlugin{}, false, fmt.Errorf("%sdevice-sharing-strategy is %v: Bottlerocket takes none, time-slicing or mps", at, s)
	}
	switch s := nvidia["device-partitioning-strategy"]; s {
	case nil, "none":
	case "mig":
		d.MIG = true
		migSettings, _ := nvidia["mig"].(map[string]any)
		profiles, _ := migSettings["profile"].(map[string]any)
		d.Profiles = make(map[string]string, len(profiles))
		for model, p := range profiles {
			slice, isText := p.(string)
			if !isText || !migSlice.MatchString(slice) {
				return DevicePlugin{}, false, fmt.Errorf("%smig.profile.%q is %v, not a MIG slice (1g.10gb)", at, model, p)
			}
			d.Profiles[strings.ToLower(model)] = slice
		}
	default:
		return DevicePlugin{}, false, fmt.Errorf("%sdevice-partitioning-strategy is %v: Bottlerocket takes none or mig", at, s)
	}
	return d, true, nil
}

// migSlice is how a MIG slice is named: compute units and memory (1g.10gb, 3g.71gb).
var migSlice = regexp.MustCompile(`^[1-7]g\.[0-9]+gb$`)

// Config is the device plugin config the settings make, as the group or NodePool whose nodes
// boot with them takes it; nil when they share no GPU. source says where the settings are.
func (d DevicePlugin) Config(source, from string) *parser.DevicePluginConfig {
	if d.Disabled || d.Strategy == "" || d.Replicas < 2 {
		return nil
	}
	resource := "nvidia.com/gpu"
	if d.Rename {
		resource += ".shared"
	}
	return &parser.DevicePluginConfig{Source: source, From: from, Strategy: d.Strategy, Replicas: map[string]int{resource: d.Replicas}, OneUnit: d.OneUnit}
}

// Slice is the MIG slice the settings split an instance type's GPUs into, or "" and why they
// are whole (when the settings ask for MIG).
func (d DevicePlugin) Slice(instanceType string) (slice, why string) {
	if !d.MIG || d.Disabled {
		return "", ""
	}
	model := ModelOf(instanceType)
	switch {
	case model == "":
		return "", fmt.Sprintf("its GPUs (%s) are not among the models whose MIG profiles Bottlerocket names: the GPUs are judged whole", instanceType)
	case d.Profiles[model] == "":
		return "", fmt.Sprintf("mig.profile names no slice for %s, the GPUs of %s: the GPUs are judged whole", model, instanceType)
	}
	return d.Profiles[model], ""
}

// ec2Models are the EC2 families with MIG-capable GPUs, by Bottlerocket's GPU model keys
// (bottlerocket-core-kit's accelerator settings name a100.40gb, a100.80gb, h100.80gb,
// h200.141gb, b200.180gb, b300.269gb and rtxpro6000.96gb); the GPUs of each family are the
// catalog's (shared/reference/pricing/aws_gcp_azure_gpu_instances.csv).
var ec2Models = map[string]string{
	"p4d": "a100.40gb", "p4de": "a100.80gb", "p5": "h100.80gb", "p5e": "h200.141gb", "p5en": "h200.141gb",
	"p6-b200": "b200.180gb", "p6-b300": "b300.269gb",
}

// ModelOf is Bottlerocket's GPU model key of an EC2 instance type's GPUs; "" when not known.
func ModelOf(instanceType string) string {
	family, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(instanceType)), ".")
	return ec2Models[family]
}
