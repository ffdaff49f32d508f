package servers

import (
	"net"
	"os"
	"os/exec"
	"testing"
)

// listens tells this process's listener from another's on the same kind
// of port, and a port nobody listens on.
func TestListens(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	if ok, err := listens(os.Getpid(), port); err != nil || !ok {
		t.Fatalf("listens(self, %d) = %v, %v; want true", port, ok, err)
	}
	other := exec.Command("sleep", "60")
	if err := other.Start(); err != nil {
		t.Fatal(err)
	}
	defer other.Process.Kill()
	if ok, err := listens(other.Process.Pid, port); err != nil || ok {
		t.Fatalf("listens(another process, %d) = %v, %v; want false", port, ok, err)
	}
	free, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := listens(os.Getpid(), free); err != nil || ok {
		t.Fatalf("listens(self, free port %d) = %v, %v; want false", free, ok, err)
	}
}
