package terraform

import (
	"testing"
	"time"
)

// Every tz database zone the Windows names map to loads (from the embedded tz database in the
// binary): a misspelt one would leave its recurring profiles unreplayed.
func TestWindowsZonesLoad(t *testing.T) {
	if len(windowsZones) < 100 {
		t.Fatalf("%d Windows zones: the CLDR table is incomplete", len(windowsZones))
	}
	for windows, zone := range windowsZones {
		if _, err := time.LoadLocation(zone); err != nil {
			t.Errorf("%s: %s does not load: %v", windows, zone, err)
		}
	}
	if windowsZones[azureDefaultZone] != "America/Los_Angeles" || windowsZones["W. Europe Standard Time"] != "Europe/Berlin" {
		t.Errorf("the default and a common zone map to %q and %q", windowsZones[azureDefaultZone], windowsZones["W. Europe Standard Time"])
	}
}
