//go:build !race

package sigv4

// raceEnabled is set when the race detector is on.
const raceEnabled = false
