//go:build race

package policies

// raceEnabled: the race detector slows evaluation several times over, and the bounds that tell a
// stopped evaluation from a hung one scale with it.
const raceEnabled = true
