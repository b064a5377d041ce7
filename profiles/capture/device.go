package capture

import "errors"

// Library is the GPU management library: NVML in production, go-nvml's mocks in tests.
type Library interface {
	// Init loads and initialises the library. Nothing else may be called before it succeeds
	// (an uninitialised NVML kills the process).
	Init() error
	Shutdown()
	// DriverVersion is the NVIDIA driver's version, "" when unknown.
	DriverVersion() string
	// Devices lists what can be sampled: each GPU, or each MIG device of a GPU in MIG mode.
	Devices() ([]Device, []string, error)
}

// Device is one GPU or MIG device.
type Device interface {
	Index() int    // the GPU's index (a MIG device's parent's)
	Name() string  // "NVIDIA A100-SXM4-80GB", "NVIDIA A100-SXM4-40GB MIG 1g.5gb"
	UUID() string  // GPU-… or MIG-…
	MIG() bool     // a MIG device
	Label() string // "0", or "0/mig1" for a MIG device
	Memory() (Memory, error)
	// Utilization is the percent of time a kernel ran; ErrNotSupported on MIG devices.
	Utilization() (uint32, error)
	// PowerMilliwatts is the board's power draw; ErrNotSupported where the board has no sensor
	// (and on MIG devices, whose power is their GPU's).
	PowerMilliwatts() (uint32, error)
	// Processes are the compute processes using the device, with their memory.
	Processes() ([]Process, error)
}

// Memory is a device's memory in bytes. Used excludes memory the driver reserves where the
// driver reports it apart (NVML's memory info v2).
type Memory struct {
	Total, Used uint64
}

// Process is one process's use of a device.
type Process struct {
	PID       uint32
	UsedBytes uint64
}

// ErrNotSupported is a query the device does not answer (utilization on MIG, power on boards
// without a sensor). It is a note, not a failure.
var ErrNotSupported = errors.New("not supported on this device")

// ErrLibraryMissing means NVML could not be loaded: no NVIDIA driver on this machine.
var ErrLibraryMissing = errors.New("NVML (libnvidia-ml.so.1, part of the NVIDIA driver) could not be loaded: profile capture runs on a machine with an NVIDIA GPU and its driver")
