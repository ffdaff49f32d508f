package servers

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// S3 is a running versitygw: an S3 service over a POSIX directory.
type S3 struct {
	// Endpoint is the service's URL, http://127.0.0.1:PORT.
	Endpoint string
	// Addr is its host:port.
	Addr string
	// AccessKey and SecretKey are the root user's credentials, made up
	// for this server.
	AccessKey, SecretKey string
	Region               string
	// Dir is the directory holding the buckets.
	Dir  string
	proc *process
	n    atomic.Int64
}

// versitygwPath finds the versitygw binary: $VERSITYGW, on PATH, or where
// `go install` put it.
func versitygwPath() (string, error) {
	if p := os.Getenv("VERSITYGW"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("versitygw"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPATH: %w", err)
	}
	for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(dir, "bin", "versitygw")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("versitygw is not installed (not on PATH nor in $(go env GOPATH)/bin)")
}

// checkXattrs fails unless dir's filesystem keeps user extended
// attributes, where versitygw's POSIX backend keeps ETags and metadata.
func checkXattrs(dir string) error {
	probe := filepath.Join(dir, ".xattr-probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		return err
	}
	defer os.Remove(probe)
	if err := unix.Setxattr(probe, "user.zarrgw.probe", []byte("1"), 0); err != nil {
		return fmt.Errorf("the filesystem of %s has no user extended attributes, which versitygw needs: %w", dir, err)
	}
	return nil
}

// StartS3 starts versitygw for the test, with fresh credentials over a
// fresh directory, and stops it when the test ends.
func StartS3(t testing.TB) *S3 {
	t.Helper()
	bin, err := versitygwPath()
	if err != nil {
		Unavailable(t, "%v", err)
	}
	dir := t.TempDir()
	if err := checkXattrs(dir); err != nil {
		Unavailable(t, "%v", err)
	}
	s := &S3{AccessKey: "zarrgw" + randomHex(7), SecretKey: randomHex(20), Region: "us-east-1", Dir: dir}
	command := func(port int) *exec.Cmd {
		cmd := exec.Command(bin, "--port", fmt.Sprintf("127.0.0.1:%d", port), "--region", s.Region, "--quiet", "posix", dir)
		// Credentials through the environment keep them out of ps.
		cmd.Env = append(os.Environ(), "ROOT_ACCESS_KEY_ID="+s.AccessKey, "ROOT_SECRET_ACCESS_KEY="+s.SecretKey)
		return cmd
	}
	s.proc, s.Addr = launch(t, "versitygw", time.Minute, command, httpAnswers)
	s.Endpoint = "http://" + s.Addr
	return s
}

// httpAnswers is ready once the server answers an HTTP request at all.
func httpAnswers(addr string) func(context.Context) error {
	return func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/", nil)
		if err != nil {
			return err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		return nil
	}
}

// PID returns versitygw's process ID.
func (s *S3) PID() int { return s.proc.PID() }

// NewBucket creates a bucket with a name unique in this server, by making
// its directory under Dir: versitygw's POSIX backend takes each top-level
// directory for a bucket.
func (s *S3) NewBucket(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("b%04d-%s", s.n.Add(1), randomHex(3))
	if err := os.Mkdir(filepath.Join(s.Dir, name), 0o755); err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	return name
}
