package catalog

import (
	"fmt"
	"strings"
	"sync"
	"time"
)

// Retirement is a cloud's retirement of an instance type, or of a GPU attached to VMs apart
// from their type: from that day VMs of the type, or with the GPU, are stopped and new ones
// cannot be created. The table (data/retired.csv) holds each retirement with the provider's own
// announcement as its source; today it lists Azure's retired N-series sizes, from the migration
// guides on learn.microsoft.com, and Compute Engine's NVIDIA K80 (nvidia-tesla-k80, an N1
// accelerator), from its end-of-life page.
type Retirement struct {
	Provider, Type string
	// Accelerator says that Type names a GPU attached to a VM (a GCP guest accelerator), not
	// the VM's type: the table's part column is "gpu" rather than "size".
	Accelerator bool
	Series, GPU string
	// Date is the day the type is retired (YYYY-MM-DD).
	Date string
	// Successor is what the provider suggests moving to: a type, a series, or "".
	Successor string
	Source    string
	day       time.Time // Date, parsed once when the table is read
}

var (
	retiredOnce  sync.Once
	retiredTypes map[string]Retirement
	retiredErr   error
)

// Retired returns the retirement of an instance type or of an attached GPU (a GCP accelerator
// type such as nvidia-tesla-k80), if its provider has retired it or announced a date. Names are
// matched without regard to case, as Azure does for its sizes.
func Retired(provider, typ string) (Retirement, bool) {
	retiredOnce.Do(func() {
		f, err := dataFS.Open("data/retired.csv")
		if err != nil {
			panic(err) // embedded at build time: cannot be missing
		}
		defer f.Close()
		retiredTypes = map[string]Retirement{}
		retiredErr = readTable("retired.csv", f, func(r record) error {
			x := Retirement{Provider: r.s("provider"), Type: r.s("instance_type"), Series: r.s("series"), GPU: r.s("gpu"),
				Date: r.s("retired_on"), Successor: r.s("successor"), Source: r.s("source")}
			switch part := r.s("part"); part {
			case "size":
			case "gpu":
				x.Accelerator = true
			default:
				return fmt.Errorf("%s: part %q is neither size nor gpu", x.Type, part)
			}
			var err error
			if x.day, err = time.Parse(time.DateOnly, x.Date); err != nil {
				return fmt.Errorf("%s: retired_on: %w", x.Type, err)
			}
			if x.Source == "" {
				return fmt.Errorf("%s: no source", x.Type)
			}
			retiredTypes[retiredKey(x.Provider, x.Type)] = x
			return nil
		})
	})
	if retiredErr != nil {
		panic(retiredErr) // embedded at build time and checked by tests
	}
	x, ok := retiredTypes[retiredKey(provider, typ)]
	return x, ok
}

func retiredKey(provider, typ string) string { return provider + "/" + strings.ToLower(typ) }

// By says whether the type is retired on the given day.
func (x Retirement) By(day time.Time) bool { return !day.Before(x.day) }

// Why says that the type is retired and what to move to, for a resource left unpriced.
func (x Retirement) Why() string {
	if x.Accelerator {
		return fmt.Sprintf("%s was retired by %s on %s (%s): VMs with this GPU attached cannot be created or run; move to %s (%s)",
			x.Type, providerName(x.Provider), x.Date, x.GPU, x.successor(), x.Source)
	}
	return fmt.Sprintf("%s was retired by %s on %s (%s, %s): VMs of this size are stopped and new ones cannot be created; move to %s (%s)",
		x.Type, providerName(x.Provider), x.Date, x.Series, x.GPU, x.successor(), x.Source)
}

// Coming says that the type will be retired, for a resource still priced.
func (x Retirement) Coming() string {
	if x.Accelerator {
		return fmt.Sprintf("%s retires %s on %s (%s): VMs with this GPU attached will stop running then; plan a move to %s (%s)",
			providerName(x.Provider), x.Type, x.Date, x.GPU, x.successor(), x.Source)
	}
	return fmt.Sprintf("%s retires %s on %s (%s): VMs of this size will be stopped then; plan a move to %s (%s)",
		providerName(x.Provider), x.Type, x.Date, x.Series, x.successor(), x.Source)
}

func (x Retirement) successor() string {
	if x.Successor == "" && x.Accelerator {
		return "another GPU"
	}
	if x.Successor == "" {
		return "another GPU size"
	}
	return x.Successor
}
