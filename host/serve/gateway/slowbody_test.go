package gateway_test

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowGateway serves testConfig with the given body pacing.
func slowGateway(t *testing.T, idle, rate string) *testGateway {
	t.Helper()
	return newGatewayOf(t, strings.Replace(testConfig, `  cache_ttl        = "1h"`, fmt.Sprintf(`  cache_ttl        = "1h"
  body_read_timeout = %q
  min_upload_rate   = %q`, idle, rate), 1))
}

// sendSlowly sends a PUT of a declared megabyte whose body comes as send
// writes it, and returns the status line of the answer (read with a
// deadline far beyond the timeouts: only a hang reaches it).
func sendSlowly(t *testing.T, tg *testGateway, send func(net.Conn) error) string {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(tg.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "PUT /d/open/slow HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n", 1<<20)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if send(conn) != nil {
				return
			}
		}
	}()
	conn.SetReadDeadline(time.Now().Add(time.Minute))
	line, err := bufio.NewReader(conn).ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to a slow body: %v", err)
	}
	return strings.TrimSpace(line)
}

// A body that stops coming is cut off after body_read_timeout: 408, and
// nothing is stored.
func TestStalledBodyIsCutOff(t *testing.T) {
	tg := slowGateway(t, "300ms", "0")
	sent := false
	line := sendSlowly(t, tg, func(c net.Conn) error {
		if !sent {
			sent = true
			_, err := c.Write([]byte("0123456789"))
			return err
		}
		time.Sleep(10 * time.Millisecond) // the client's pace, not a wait for the server
		return nil
	})
	if !strings.Contains(line, " 408 ") {
		t.Fatalf("a stalled body answered %q, want 408", line)
	}
	if _, err := os.Stat(filepath.Join(tg.root, "open", "slow")); !os.IsNotExist(err) {
		t.Fatalf("a stalled upload stored something: %v", err)
	}
}

// A body that trickles (a byte at a time, never idle for long) is cut off
// once it falls behind min_upload_rate.
func TestTricklingBodyIsCutOff(t *testing.T) {
	tg := slowGateway(t, "500ms", "1KiB")
	line := sendSlowly(t, tg, func(c net.Conn) error {
		time.Sleep(20 * time.Millisecond) // the client's pace: 50 bytes/s
		_, err := c.Write([]byte("x"))
		return err
	})
	if !strings.Contains(line, " 408 ") {
		t.Fatalf("a trickling body answered %q, want 408", line)
	}
}

// A body that keeps its pace is stored whole.
func TestPacedBodyIsStored(t *testing.T) {
	tg := slowGateway(t, "5s", "1KiB")
	body := strings.Repeat("p", 64<<10)
	if resp, msg := tg.do(t, http.MethodPut, "/d/open/paced", body); resp.StatusCode/100 != 2 {
		t.Fatalf("PUT at full speed: %d %s", resp.StatusCode, msg)
	}
	if b, err := os.ReadFile(filepath.Join(tg.root, "open", "paced")); err != nil || string(b) != body {
		t.Fatalf("stored %d bytes, %v", len(b), err)
	}
}
