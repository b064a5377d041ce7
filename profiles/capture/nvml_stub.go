//go:build !(linux && cgo)

package capture

import "fmt"

// OpenNVML returns the NVML library. This build has no NVML: it was built without cgo (as the
// GitHub Action's static image is) or not for Linux.
func OpenNVML() Library { return stub{} }

type stub struct{}

func (stub) Init() error {
	return fmt.Errorf("%w (this gpuguard binary was built without cgo or not for Linux, so it has no NVML support; build it with CGO_ENABLED=1 on Linux)", ErrLibraryMissing)
}
func (stub) Shutdown()             {}
func (stub) DriverVersion() string { return "" }
func (stub) Devices() ([]Device, []string, error) {
	return nil, nil, fmt.Errorf("NVML is not available")
}
