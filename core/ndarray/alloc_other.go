//go:build !linux

package ndarray

func adviseHugePages([]byte) {}
