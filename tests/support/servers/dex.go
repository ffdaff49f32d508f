package servers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Dex is a running Dex: an OpenID Connect provider with static users
// (Dex's password database) and one client, whose ID tokens the tests
// get by the password grant.
type Dex struct {
	// Issuer is its issuer URL, http://127.0.0.1:PORT/dex.
	Issuer string
	// Addr is its host:port.
	Addr string
	// ClientID and ClientSecret are its client's: an ID token's "aud"
	// is ClientID.
	ClientID, ClientSecret string

	bin, dir string
	opts     DexOptions
	users    []DexUser
	hashes   []string
	userIDs  []string // kept across restarts: "sub" derives from them
	port     int
	logPath  string
	logFile  *os.File
	proc     *process // nil while stopped
}

// DexOptions says what a Dex knows.
type DexOptions struct {
	// Users are its static users.
	Users []DexUser
	// ClientID is its client's ID; "" means "zarrgw".
	ClientID string
	// ClientSecret is its client's secret; "" means one made up for it.
	ClientSecret string
	// OtherClients are more client IDs (with the same secret), for tokens
	// of another audience (TokenFor).
	OtherClients []string
	// IDTokenExpiry is how long its ID tokens last, as Dex's expiry
	// idTokens reads it ("30s"); "" is Dex's default (24h).
	IDTokenExpiry string
}

// DexUser is a static user of a Dex.
type DexUser struct {
	// Email is how the user logs in, and the token's "email".
	Email string
	// Username is the token's "name" and "preferred_username".
	Username string
	Password string
	// Groups are the token's "groups" (with the scope "groups").
	Groups []string
}

// dexPath finds the dex binary: $DEX, on PATH, or where scripts/setup.sh
// built it.
func dexPath() (string, error) {
	if p := os.Getenv("DEX"); p != "" {
		return p, nil
	}
	if p, err := exec.LookPath("dex"); err == nil {
		return p, nil
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOPATH: %w", err)
	}
	for _, dir := range filepath.SplitList(strings.TrimSpace(string(out))) {
		p := filepath.Join(dir, "bin", "dex")
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("dex is not installed (not on PATH nor in $(go env GOPATH)/bin)")
}

// passwordHashes caches bcrypt hashes by password for the test binary:
// each costs a run of scripts/dex/passwordhash.
var passwordHashes sync.Map

// hashPasswords returns the bcrypt hashes Dex keeps of passwords. The
// main module has no bcrypt, so scripts/dex/passwordhash makes them, run
// in its module, which has it through Dex.
func hashPasswords(passwords []string) ([]string, error) {
	var missing []string
	for _, pw := range passwords {
		if _, ok := passwordHashes.Load(pw); !ok {
			missing = append(missing, pw)
		}
	}
	if len(missing) > 0 {
		cmd := exec.Command("go", "run", "./passwordhash")
		cmd.Dir = filepath.Join(repoRoot(), "scripts", "dex")
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOWORK=off")
		cmd.Stdin = strings.NewReader(strings.Join(missing, "\n") + "\n")
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("hashing the Dex users' passwords (go run ./passwordhash in scripts/dex): %v: %s", err, strings.TrimSpace(stderr.String()))
		}
		hashes := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		if len(hashes) != len(missing) {
			return nil, fmt.Errorf("hashing the Dex users' passwords: %d hashes for %d passwords", len(hashes), len(missing))
		}
		for i, pw := range missing {
			passwordHashes.Store(pw, hashes[i])
		}
	}
	out := make([]string, len(passwords))
	for i, pw := range passwords {
		h, _ := passwordHashes.Load(pw)
		out[i] = h.(string)
	}
	return out, nil
}

// StartDex starts Dex for the test, in memory, with opts' users and
// client, and stops it when the test ends. Its output goes to a file of
// the test's, shown if the test fails.
func StartDex(t testing.TB, opts DexOptions) *Dex {
	t.Helper()
	passwords := make([]string, len(opts.Users))
	seen := map[string]bool{}
	for i, u := range opts.Users {
		email := strings.ToLower(u.Email)
		if email == "" || u.Password == "" || strings.ContainsAny(u.Password, "\r\n") || seen[email] {
			t.Fatalf("Dex user %d: needs an email of its own and a password of one line", i)
		}
		seen[email] = true
		passwords[i] = u.Password
	}
	bin, err := dexPath()
	if err != nil {
		Unavailable(t, "%v", err)
	}
	hashes, err := hashPasswords(passwords)
	if err != nil {
		Unavailable(t, "%v", err)
	}
	d := &Dex{ClientID: opts.ClientID, ClientSecret: opts.ClientSecret, bin: bin, dir: t.TempDir(), opts: opts,
		users: opts.Users, hashes: hashes, userIDs: make([]string, len(opts.Users))}
	for i := range d.userIDs {
		d.userIDs[i] = fmt.Sprintf("user-%d-%s", i, randomHex(4))
	}
	if d.ClientID == "" {
		d.ClientID = "zarrgw"
	}
	if d.ClientSecret == "" {
		d.ClientSecret = randomHex(16)
	}
	d.logPath = filepath.Join(d.dir, "dex.log")
	if d.logFile, err = os.Create(d.logPath); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		d.stop()
		d.logFile.Close()
		if t.Failed() {
			t.Logf("Dex's output (%s):\n%s", d.logPath, d.logTail())
		}
	})
	// A port found free may be taken before Dex binds it: three tries,
	// as launch does.
	var errs []error
	for range 3 {
		port, err := freePort()
		if err != nil {
			Unavailable(t, "Dex: no free port: %v", err)
		}
		if err := d.startOn(port); err != nil {
			errs = append(errs, err)
			continue
		}
		return d
	}
	Unavailable(t, "Dex did not start: %v", errors.Join(errs...))
	return nil
}

// Restart stops Dex and starts it again on the same port, hence with the
// same issuer. Its storage is memory, so it comes back with new signing
// keys (tokens it signed before are no longer its own) and without the
// tokens it issued.
func (d *Dex) Restart(t testing.TB) {
	t.Helper()
	d.stop()
	fmt.Fprintf(d.logFile, "\n--- restarted by the test ---\n\n")
	if err := d.startOn(d.port); err != nil {
		t.Fatalf("Dex did not start again on port %d: %v", d.port, err)
	}
}

// PID returns Dex's process ID.
func (d *Dex) PID() int { return d.proc.PID() }

// stop stops Dex if it runs.
func (d *Dex) stop() {
	if d.proc != nil {
		d.proc.stop()
		d.proc = nil
	}
}

// startOn writes Dex's configuration for port and starts it there,
// waiting until it serves its keys.
func (d *Dex) startOn(port int) error {
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	issuer := "http://" + addr + "/dex"
	config := filepath.Join(d.dir, "config.yaml")
	if err := os.WriteFile(config, d.config(addr, issuer), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(d.bin, "serve", config)
	cmd.Dir = d.dir
	p, err := startLogged(cmd, d.logFile)
	if err != nil {
		return err
	}
	err = p.waitReady(addr, time.Minute, dexReady(issuer))
	if err == nil {
		var ours bool
		if ours, err = listens(p.PID(), port); err == nil && !ours {
			err = fmt.Errorf("another process answers on port %d", port)
		}
	}
	if err != nil {
		p.stop()
		return err
	}
	d.proc, d.port, d.Addr, d.Issuer = p, port, addr, issuer
	return nil
}

// config is Dex's configuration, in JSON, which is YAML: memory storage,
// the password database with the users, and the password grant through
// it.
func (d *Dex) config(addr, issuer string) []byte {
	users := make([]map[string]any, len(d.users))
	for i, u := range d.users {
		groups := u.Groups
		if groups == nil {
			groups = []string{}
		}
		users[i] = map[string]any{
			"email": u.Email, "hash": d.hashes[i], "username": u.Username, "preferredUsername": u.Username,
			"userID": d.userIDs[i], "groups": groups,
		}
	}
	cfg := map[string]any{
		"issuer":  issuer,
		"storage": map[string]any{"type": "memory"},
		"web":     map[string]any{"http": addr},
		"logger":  map[string]any{"level": "info", "format": "text"},
		"oauth2": map[string]any{
			"grantTypes":         []string{"authorization_code", "refresh_token", "password"},
			"passwordConnector":  "local",
			"skipApprovalScreen": true,
		},
		"enablePasswordDB": true,
		"staticPasswords":  users,
		"staticClients":    d.clients(),
	}
	if d.opts.IDTokenExpiry != "" {
		cfg["expiry"] = map[string]any{"idTokens": d.opts.IDTokenExpiry}
	}
	b, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		panic(err) // maps of strings always marshal
	}
	return b
}

// dexReady is ready once Dex serves its discovery document and a key set
// with keys: it makes its signing keys as it starts.
func dexReady(issuer string) func(context.Context) error {
	return func(ctx context.Context) error {
		for _, path := range []string{"/.well-known/openid-configuration", "/keys"} {
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, issuer+path, nil)
			if err != nil {
				return err
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				return err
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				return err
			}
			if resp.StatusCode != http.StatusOK {
				return fmt.Errorf("GET %s: %s", path, resp.Status)
			}
			if path == "/keys" {
				var set struct {
					Keys []json.RawMessage `json:"keys"`
				}
				if err := json.Unmarshal(body, &set); err != nil || len(set.Keys) == 0 {
					return fmt.Errorf("GET %s: no keys yet", path)
				}
			}
		}
		return nil
	}
}

// clients are Dex's static clients: the options' client and the others.
func (d *Dex) clients() []map[string]any {
	var out []map[string]any
	for _, id := range append([]string{d.ClientID}, d.opts.OtherClients...) {
		out = append(out, map[string]any{"id": id, "secret": d.ClientSecret, "name": id,
			"redirectURIs": []string{"http://127.0.0.1/callback"}})
	}
	return out
}

// TokenFor is Token for another of its clients (an audience of
// DexOptions.OtherClients).
func (d *Dex) TokenFor(t testing.TB, client, user, password string) string {
	t.Helper()
	tok, err := d.tokenFor(client, user, password, nil)
	if err != nil {
		t.Fatalf("Dex token of client %s for %s: %v", client, user, err)
	}
	return tok
}

// Token logs user in by the password grant and returns the ID token.
// user is the email (or the username of one of the options' users);
// scopes default to openid, email, profile and groups.
func (d *Dex) Token(t testing.TB, user, password string, scopes ...string) string {
	t.Helper()
	tok, err := d.token(user, password, scopes)
	if err != nil {
		t.Fatalf("Dex token for %s: %v", user, err)
	}
	return tok
}

func (d *Dex) token(user, password string, scopes []string) (string, error) {
	return d.tokenFor(d.ClientID, user, password, scopes)
}

func (d *Dex) tokenFor(client, user, password string, scopes []string) (string, error) {
	for _, u := range d.users {
		if u.Username != "" && u.Username == user {
			user = u.Email
		}
	}
	if len(scopes) == 0 {
		scopes = []string{"openid", "email", "profile", "groups"}
	}
	form := url.Values{"grant_type": {"password"}, "username": {user}, "password": {password},
		"scope": {strings.Join(scopes, " ")}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.Issuer+"/token", strings.NewReader(form.Encode()))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(client), url.QueryEscape(d.ClientSecret))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("POST /token: %s: %s", resp.Status, strings.TrimSpace(string(body)))
	}
	var out struct {
		IDToken string `json:"id_token"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.IDToken == "" {
		return "", fmt.Errorf("POST /token: no id_token in the answer (%v)", err)
	}
	return out.IDToken, nil
}

// logTail is the end of Dex's output file.
func (d *Dex) logTail() string {
	b, err := os.ReadFile(d.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) == 0 {
		return "(nothing)"
	}
	const max = 16 << 10
	if len(b) > max {
		b = append([]byte("..."), b[len(b)-max:]...)
	}
	return strings.TrimSpace(string(b))
}

// startLogged is start, with the output also written to w (a file the
// test shows if it fails).
func startLogged(cmd *exec.Cmd, w io.Writer) (*process, error) {
	p := &process{cmd: cmd, log: &Log{}, done: make(chan struct{})}
	out := io.MultiWriter(p.log, w)
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p, nil
}
