package terraform

import (
	"fmt"
	"strings"

	"github.com/gpuguard/gpuguard/parser"
	"github.com/gpuguard/gpuguard/parser/bottlerocket"
)

// bottlerocketPlugin reads the settings an EKS managed node group's Bottlerocket nodes boot with
// (its launch template's user_data, which EKS merges into its own). Other AMI types read no TOML
// settings.
func (c *mapContext) bottlerocketPlugin(r *parser.Resource, w, lt *view) {
	ami, ok := w.quiet().str("ami_type")
	if !ok || !strings.HasPrefix(strings.ToUpper(ami), "BOTTLEROCKET_") || lt == nil || r.NodeLabels == nil {
		return
	}
	userData, ok := (&view{obj: lt.obj}).str("user_data")
	if !ok {
		return
	}
	ltAddr := strings.TrimSuffix(lt.path, ".")
	d, set, err := bottlerocket.Read(userData)
	c.bottlerocketSettings(r, d, set, err, ltAddr)
}

// bottlerocketSettings applies the device plugin settings read from Bottlerocket user data (of
// the launch template at ltAddr; set says it has some, err that it cannot be read) to a node
// group: the NVIDIA device plugin Bottlerocket runs shares each
// GPU (time-slicing, MPS) as the settings say, which the pods on the group take as they take a
// device plugin config the configuration deploys, and splits the GPUs into MIG slices, which the
// group's GPUs are then judged by. Settings Bottlerocket refuses are an error at the launch
// template.
func (c *mapContext) bottlerocketSettings(r *parser.Resource, d bottlerocket.DevicePlugin, set bool, err error, ltAddr string) {
	if err != nil {
		c.bootTextError(ltAddr, fmt.Errorf("user_data: %w", err))
		r.Note("the Bottlerocket settings in %s's user_data cannot be read: how its device plugin shares or splits the GPUs is not known", ltAddr)
		return
	}
	if !set {
		return
	}
	source := fmt.Sprintf("settings.kubelet-device-plugins.nvidia in %s's user_data", ltAddr)
	if d.Disabled {
		r.Note("%s sets enabled = false: Bottlerocket runs no NVIDIA device plugin of its own, and one the cluster deploys advertises the GPUs", source)
		return
	}
	if cfg := d.Config(source, "the Bottlerocket settings its nodes boot with"); cfg != nil {
		labels := *r.NodeLabels // a copy: instances may share the labels they were read with
		labels.DevicePlugin = cfg
		r.NodeLabels = &labels
	}
	switch slice, why := d.Slice(r.InstanceType); {
	case slice != "":
		r.GPUPartition = slice
		r.Note("GPUs are partitioned into MIG slices of %s (%s: device-partitioning-strategy = \"mig\", mig.profile): a workload gets one slice per copy", slice, source)
	case why != "":
		r.Note("%s asks for MIG, but %s", source, why)
	}
}

// bootTextError records an error in a text an instance boots with (user data, a startup
// script), which err names, at the declaration of the resource at addr that holds it.
func (c *mapContext) bootTextError(addr string, err error) {
	e := parser.Error{Message: fmt.Sprintf("%s: %v", addr, err)}
	if inst := c.ev.instances[addr]; inst != nil {
		e.File, e.Line = inst.decl.rng.Filename, inst.decl.rng.Start.Line
	}
	c.ev.l.errs = appendOnce(c.ev.l.errs, e)
}
