//go:build linux && cgo

package capture

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/NVIDIA/go-nvml/pkg/nvml"
)

// OpenNVML returns the system's NVML (loaded from libnvidia-ml.so.1 by Init).
func OpenNVML() Library { return NewNVML(nvml.New()) }

// NewNVML adapts a go-nvml Interface: the real library or one of its mocks.
func NewNVML(lib nvml.Interface) Library { return &nvmlLibrary{lib: lib} }

type nvmlLibrary struct {
	lib    nvml.Interface
	inited bool
}

// nvmlError turns a Return into an error, ErrNotSupported for the answers that mean "this device
// does not do that".
func nvmlError(what string, r nvml.Return) error {
	switch r {
	case nvml.SUCCESS:
		return nil
	case nvml.ERROR_NOT_SUPPORTED, nvml.ERROR_FUNCTION_NOT_FOUND:
		return ErrNotSupported
	}
	return fmt.Errorf("%s: %s", what, returnText(r))
}

func returnText(r nvml.Return) string {
	switch r {
	case nvml.ERROR_GPU_IS_LOST:
		return "the GPU is lost (fell off the bus or was reset)"
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return "NVML library not found"
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return "the NVIDIA driver is not loaded"
	case nvml.ERROR_NO_PERMISSION:
		return "no permission"
	case nvml.ERROR_UNKNOWN:
		return "unknown NVML error"
	}
	return "NVML error " + strconv.Itoa(int(r))
}

func (l *nvmlLibrary) Init() error {
	switch r := l.lib.Init(); r {
	case nvml.SUCCESS:
		l.inited = true
		return nil
	case nvml.ERROR_LIBRARY_NOT_FOUND:
		return ErrLibraryMissing
	case nvml.ERROR_DRIVER_NOT_LOADED:
		return fmt.Errorf("%w (the library loaded, but the NVIDIA kernel driver is not running)", ErrLibraryMissing)
	default:
		return fmt.Errorf("NVML failed to initialise: %s", returnText(r))
	}
}

func (l *nvmlLibrary) Shutdown() {
	if l.inited {
		l.lib.Shutdown()
		l.inited = false
	}
}

func (l *nvmlLibrary) DriverVersion() string {
	if !l.inited {
		return ""
	}
	v, r := l.lib.SystemGetDriverVersion()
	if r != nvml.SUCCESS {
		return ""
	}
	return v
}

// Devices lists every GPU, and in place of a GPU in MIG mode its MIG devices (the work runs on
// those, and memory is theirs).
func (l *nvmlLibrary) Devices() ([]Device, []string, error) {
	if !l.inited {
		return nil, nil, errors.New("NVML is not initialised")
	}
	n, r := l.lib.DeviceGetCount()
	if r != nvml.SUCCESS {
		return nil, nil, fmt.Errorf("listing GPUs: %s", returnText(r))
	}
	var out []Device
	var notes []string
	for i := 0; i < n; i++ {
		d, r := l.lib.DeviceGetHandleByIndex(i)
		if r != nvml.SUCCESS {
			notes = append(notes, fmt.Sprintf("GPU %d could not be opened (%s) and was not sampled", i, returnText(r)))
			continue
		}
		gpu := &nvmlDevice{d: d, index: i}
		gpu.name, _ = d.GetName()
		gpu.uuid, _ = d.GetUUID()
		current, _, r := d.GetMigMode()
		if r != nvml.SUCCESS || current != nvml.DEVICE_MIG_ENABLE {
			out = append(out, gpu)
			continue
		}
		max, r := d.GetMaxMigDeviceCount()
		if r != nvml.SUCCESS {
			notes = append(notes, fmt.Sprintf("GPU %d is in MIG mode but its MIG devices could not be listed (%s)", i, returnText(r)))
			continue
		}
		found := 0
		for m := 0; m < max; m++ {
			md, r := d.GetMigDeviceHandleByIndex(m)
			if r != nvml.SUCCESS {
				continue // an empty slot
			}
			mig := &nvmlDevice{d: md, index: i, mig: true, parent: gpu, slot: m}
			mig.name, _ = md.GetName()
			mig.uuid, _ = md.GetUUID()
			out = append(out, mig)
			found++
		}
		if found == 0 {
			notes = append(notes, fmt.Sprintf("GPU %d is in MIG mode with no MIG devices created: nothing can run on it", i))
		}
	}
	return out, notes, nil
}

type nvmlDevice struct {
	d      nvml.Device
	index  int
	name   string
	uuid   string
	mig    bool
	slot   int
	parent *nvmlDevice
	// v1 is set once memory info v2 turned out not to be supported.
	v1 bool
}

func (d *nvmlDevice) Index() int   { return d.index }
func (d *nvmlDevice) Name() string { return d.name }
func (d *nvmlDevice) UUID() string { return d.uuid }
func (d *nvmlDevice) MIG() bool    { return d.mig }
func (d *nvmlDevice) Label() string {
	if d.mig {
		return fmt.Sprintf("%d/mig%d", d.index, d.slot)
	}
	return strconv.Itoa(d.index)
}

// Memory uses GetMemoryInfo_v2 where the driver has it: its Used leaves out the memory the
// driver reserves, which v1 counts as used.
func (d *nvmlDevice) Memory() (Memory, error) {
	if !d.v1 {
		m, r := d.d.GetMemoryInfo_v2()
		if r == nvml.SUCCESS {
			return Memory{Total: m.Total, Used: m.Used}, nil
		}
		if err := nvmlError("memory", r); !errors.Is(err, ErrNotSupported) {
			return Memory{}, err
		}
		d.v1 = true
	}
	m, r := d.d.GetMemoryInfo()
	if r != nvml.SUCCESS {
		return Memory{}, nvmlError("memory", r)
	}
	return Memory{Total: m.Total, Used: m.Used}, nil
}

func (d *nvmlDevice) Utilization() (uint32, error) {
	u, r := d.d.GetUtilizationRates()
	if r != nvml.SUCCESS {
		return 0, nvmlError("utilization", r)
	}
	return u.Gpu, nil
}

func (d *nvmlDevice) PowerMilliwatts() (uint32, error) {
	if d.mig {
		return 0, ErrNotSupported
	}
	p, r := d.d.GetPowerUsage()
	if r != nvml.SUCCESS {
		return 0, nvmlError("power", r)
	}
	return p, nil
}

func (d *nvmlDevice) Processes() ([]Process, error) {
	ps, r := d.d.GetComputeRunningProcesses()
	if r != nvml.SUCCESS {
		return nil, nvmlError("processes", r)
	}
	out := make([]Process, 0, len(ps))
	for _, p := range ps {
		out = append(out, Process{PID: p.Pid, UsedBytes: p.UsedGpuMemory})
	}
	return out, nil
}
