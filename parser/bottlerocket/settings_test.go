package bottlerocket

import (
	"encoding/base64"
	"reflect"
	"strings"
	"testing"

	"github.com/gpuguard/gpuguard/parser"
)

func TestRead(t *testing.T) {
	for _, tc := range []struct {
		name, userData string
		want           DevicePlugin
		set            bool
		err            string
	}{
		{"time-slicing with its defaults", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n",
			DevicePlugin{Strategy: parser.SharingTimeSlicing, Replicas: 2, Rename: true, OneUnit: true}, true, ""},
		{"time-slicing that lets a pod take several units", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\ntime-slicing.fail-requests-greater-than-one = false\n",
			DevicePlugin{Strategy: parser.SharingTimeSlicing, Replicas: 2, Rename: true}, true, ""},
		{"MPS, dotted keys, not renamed", "settings.kubelet-device-plugins.nvidia.device-sharing-strategy = \"mps\"\nsettings.kubelet-device-plugins.nvidia.mps.replicas = 6\nsettings.kubelet-device-plugins.nvidia.mps.rename-by-default = false\n",
			DevicePlugin{Strategy: parser.SharingMPS, Replicas: 6, OneUnit: true}, true, ""},
		{"the other strategy's section is not read", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"mps\"\n[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplicas = 9\nfail-requests-greater-than-one = false\n",
			DevicePlugin{Strategy: parser.SharingMPS, Replicas: 2, Rename: true, OneUnit: true}, true, ""},
		{"MIG profiles by model", "[settings.kubelet-device-plugins.nvidia]\ndevice-partitioning-strategy = \"mig\"\n[settings.kubelet-device-plugins.nvidia.mig.profile]\n\"A100.40gb\" = \"1g.5gb\"\n",
			DevicePlugin{MIG: true, Profiles: map[string]string{"a100.40gb": "1g.5gb"}}, true, ""},
		{"disabled", "[settings.kubelet-device-plugins.nvidia]\nenabled = false\ndevice-sharing-strategy = \"none\"\n", DevicePlugin{Disabled: true}, true, ""},
		{"other settings only", "[settings.kubernetes]\ncluster-name = \"c\"\n", DevicePlugin{}, false, ""},
		{"not Bottlerocket's (a shell script)", "#!/bin/bash\n/etc/eks/bootstrap.sh c\n", DevicePlugin{}, false, ""},
		{"not TOML", "[settings.kubelet-device-plugins.nvidia\n", DevicePlugin{}, false, "not TOML Bottlerocket reads"},
		{"replicas of the wrong type", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\ntime-slicing.replicas = \"4\"\n", DevicePlugin{}, false,
			"settings.kubelet-device-plugins.nvidia.time-slicing.replicas is 4, not a whole number of at least 1"},
		{"no replicas", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\ntime-slicing.replicas = 0\n", DevicePlugin{}, false, "replicas is 0"},
		{"fail-requests of the wrong type", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\ntime-slicing.fail-requests-greater-than-one = 1\n", DevicePlugin{}, false,
			"time-slicing.fail-requests-greater-than-one is 1, not true or false"},
		{"rename of the wrong type", "[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"mps\"\nmps.rename-by-default = \"no\"\n", DevicePlugin{}, false, "mps.rename-by-default is no, not true or false"},
		{"enabled of the wrong type", "[settings.kubelet-device-plugins.nvidia]\nenabled = \"false\"\n", DevicePlugin{}, false, "enabled is false, not true or false"},
		{"an unknown partitioning", "[settings.kubelet-device-plugins.nvidia]\ndevice-partitioning-strategy = \"mixed\"\n", DevicePlugin{}, false, "device-partitioning-strategy is mixed: Bottlerocket takes none or mig"},
		{"a profile that is no slice", "[settings.kubelet-device-plugins.nvidia]\ndevice-partitioning-strategy = \"mig\"\nmig.profile = { \"a100.40gb\" = \"2\" }\n", DevicePlugin{}, false, `mig.profile."a100.40gb" is 2, not a MIG slice`},
	} {
		for _, enc := range []string{"text", "base64"} {
			userData := tc.userData
			if enc == "base64" {
				userData = base64.StdEncoding.EncodeToString([]byte(userData))
			}
			d, set, err := Read(userData)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("%s (%s): error %v, want %q", tc.name, enc, err, tc.err)
				}
				continue
			}
			if err != nil || set != tc.set || !reflect.DeepEqual(d, tc.want) {
				t.Errorf("%s (%s): %+v, %v, %v; want %+v, %v", tc.name, enc, d, set, err, tc.want, tc.set)
			}
		}
	}
}

func TestConfigAndSlice(t *testing.T) {
	shared := DevicePlugin{Strategy: parser.SharingTimeSlicing, Replicas: 4}
	if c := shared.Config("s", "f"); c == nil || c.Strategy != parser.SharingTimeSlicing || !reflect.DeepEqual(c.Replicas, map[string]int{"nvidia.com/gpu": 4}) || c.Source != "s" || c.From != "f" {
		t.Errorf("config %+v", c)
	}
	shared.Rename, shared.OneUnit = true, true
	if c := shared.Config("s", "f"); c == nil || !reflect.DeepEqual(c.Replicas, map[string]int{"nvidia.com/gpu.shared": 4}) || !c.OneUnit {
		t.Errorf("renamed config that refuses several units %+v", c)
	}
	for _, d := range []DevicePlugin{{}, {Strategy: parser.SharingMPS, Replicas: 1}, {Disabled: true, Strategy: parser.SharingMPS, Replicas: 3}} {
		if c := d.Config("s", "f"); c != nil {
			t.Errorf("%+v: config %+v, want none", d, c)
		}
	}
	mig := DevicePlugin{MIG: true, Profiles: map[string]string{"h100.80gb": "1g.20gb", "h200.141gb": "3g.71gb"}}
	for it, want := range map[string]struct{ slice, why string }{
		"p5.48xlarge":   {"1g.20gb", ""},
		"P5en.48xlarge": {"3g.71gb", ""},
		"p4d.24xlarge":  {"", "mig.profile names no slice for a100.40gb, the GPUs of p4d.24xlarge"},
		"g5.xlarge":     {"", "its GPUs (g5.xlarge) are not among the models whose MIG profiles Bottlerocket names"},
	} {
		if slice, why := mig.Slice(it); slice != want.slice || !strings.HasPrefix(why, want.why) || (why == "") != (want.why == "") {
			t.Errorf("Slice(%s) = %q, %q; want %q, %q", it, slice, why, want.slice, want.why)
		}
	}
	if slice, why := (DevicePlugin{}).Slice("p5.48xlarge"); slice != "" || why != "" {
		t.Errorf("no MIG: %q, %q", slice, why)
	}
}

// FuzzRead: any user data reads without a panic, and what it reads is within Bottlerocket's
// values.
func FuzzRead(f *testing.F) {
	f.Add("[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\n[settings.kubelet-device-plugins.nvidia.time-slicing]\nreplicas = 4\n")
	f.Add("settings.kubelet-device-plugins.nvidia = { device-partitioning-strategy = \"mig\", mig = { profile = { \"a100.40gb\" = \"1g.5gb\" } } }\n")
	f.Add("[settings.kubelet-device-plugins]\nnvidia = 3\n")
	f.Add("[settings.kubelet-device-plugins.nvidia]\ndevice-sharing-strategy = \"time-slicing\"\ntime-slicing = { fail-requests-greater-than-one = false, replicas = 3 }\n")
	f.Add("W3NldHRpbmdzLmt1YmVsZXQtZGV2aWNlLXBsdWdpbnMubnZpZGlhXQplbmFibGVkID0gZmFsc2UK")
	f.Add("[settings.kubernetes.node-labels]\na = \"b\"\n[settings.kubernetes.node-taints]\nk = [\"v:NoSchedule\", \":NoExecute\"]\n")
	f.Fuzz(func(t *testing.T, userData string) {
		// The node's labels and taints, read from the same settings.
		if n, ok, err := ReadNode(userData); err == nil && ok {
			for _, taint := range n.Taints {
				if taint.Key == "" || taint.Effect != "NoSchedule" && taint.Effect != "PreferNoSchedule" && taint.Effect != "NoExecute" {
					t.Fatalf("taint %+v", taint)
				}
			}
		}
		d, set, err := Read(userData)
		if err != nil || !set {
			return
		}
		if d.Strategy != "" && (d.Replicas < 1 || d.Strategy != parser.SharingTimeSlicing && d.Strategy != parser.SharingMPS) {
			t.Fatalf("read %+v", d)
		}
		for _, s := range d.Profiles {
			if !migSlice.MatchString(s) {
				t.Fatalf("profile %q", s)
			}
		}
	})
}
