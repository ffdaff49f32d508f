package servers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// Azure is a running Azurite blob service, with one storage account made
// up for it.
type Azure struct {
	// Endpoint is the account's blob service URL,
	// http://127.0.0.1:PORT/ACCOUNT.
	Endpoint string
	// Addr is the service's host:port.
	Addr       string
	Account    string
	AccountKey string
	proc       *process
	n          atomic.Int64
}

// azuritePath is the Azurite blob service that scripts/setup.sh installs.
func azuritePath() (string, error) {
	p := filepath.Join(repoRoot(), "tests", "support", "servers", "js", "node_modules", ".bin", "azurite-blob")
	if _, err := os.Stat(p); err != nil {
		return "", fmt.Errorf("Azurite is not installed (%s missing)", p)
	}
	if _, err := exec.LookPath("node"); err != nil {
		return "", fmt.Errorf("node is not installed: %w", err)
	}
	return p, nil
}

// StartAzure starts Azurite's blob service for the test, in memory, with a
// fresh account, and stops it when the test ends. The azblob SDK speaks a
// newer API version than Azurite knows, hence --skipApiVersionCheck.
func StartAzure(t testing.TB) *Azure {
	t.Helper()
	bin, err := azuritePath()
	if err != nil {
		Unavailable(t, "%v", err)
	}
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	a := &Azure{Account: "zarrgw" + randomHex(4), AccountKey: base64.StdEncoding.EncodeToString(key)}
	dir := t.TempDir()
	command := func(port int) *exec.Cmd {
		cmd := exec.Command(bin, "--blobHost", "127.0.0.1", "--blobPort", fmt.Sprint(port),
			"--skipApiVersionCheck", "--disableTelemetry", "--inMemoryPersistence")
		cmd.Dir = dir // anything it writes lands in the test's directory
		cmd.Env = append(os.Environ(), "AZURITE_ACCOUNTS="+a.Account+":"+a.AccountKey)
		return cmd
	}
	a.proc, a.Addr = launch(t, "Azurite", time.Minute, command, httpAnswers)
	a.Endpoint = "http://" + a.Addr + "/" + a.Account
	return a
}

// PID returns Azurite's process ID.
func (a *Azure) PID() int { return a.proc.PID() }

// ConnectionString is the account's connection string.
func (a *Azure) ConnectionString() string {
	return fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;",
		a.Account, a.AccountKey, a.Endpoint)
}

// NewContainer creates a container with a name unique in this server.
func (a *Azure) NewContainer(t testing.TB) string {
	t.Helper()
	name := fmt.Sprintf("c%04d-%s", a.n.Add(1), randomHex(3))
	c, err := container.NewClientFromConnectionString(a.ConnectionString(), name, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := c.Create(ctx, nil); err != nil {
		t.Fatalf("create container %s: %v", name, err)
	}
	return name
}
