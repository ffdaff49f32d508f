//go:build !unix

package pluginapi

import "errors"

var errNoShared = errors.New("shared memory arenas need a unix system")

func createShared(int) (string, []byte, func(), error) { return "", nil, nil, errNoShared }

func mapShared(string, int) ([]byte, error) { return nil, errNoShared }

func unmapShared([]byte) error { return nil }

func trimShared([]byte) error { return nil }
