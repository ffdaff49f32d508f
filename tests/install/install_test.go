package install

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/mod/sumdb/dirhash"

	"github.com/zarrgw/zarrgw/host/install"
	"github.com/zarrgw/zarrgw/host/runtime/pluginpkg"
)

// A filesystem mirror holds versions 1.2.0, 1.3.0 and 2.0.0, in either
// layout: "~> 1.2" installs 1.3.0, the lock records the version, the
// constraint, the package's hashes and what the plugin serves, and a
// dataset reads and writes through it. Once 1.4.0 appears, init keeps
// 1.3.0; init -upgrade takes 1.4.0.
func TestInitFromFilesystemMirror(t *testing.T) {
	for _, layout := range []string{"packed", "unpacked"} {
		t.Run(layout, func(t *testing.T) {
			mirror := t.TempDir()
			lay := func(versions ...string) {
				if layout == "packed" {
					publish(t, mirror, bitshaveBin, here, versions...)
				} else {
					unpacked(t, mirror, bitshaveBin, versions...)
				}
			}
			lay("1.2.0", "1.3.0", "2.0.0")
			m := newMachine(t, fsMirror(mirror))
			dir := project(t, "~> 1.2")
			fromMirror := install.Origin{Source: "filesystem mirror " + mirror}
			if got := initIn(t, m, dir, false); got.pinned || got.installed != "1.3.0" || got.from != fromMirror {
				t.Fatalf("init: %+v, want 1.3.0 chosen and installed from %+v", got, fromMirror)
			}
			e := lockOf(t, dir)
			h1, err := dirhash.HashDir(installed(dir, "1.3.0"), "", dirhash.Hash1)
			if err != nil {
				t.Fatal(err)
			}
			if e.Version != "1.3.0" || e.Constraints != "~> 1.2" || !slices.Contains(e.Hashes, h1) || !slices.Equal(e.Serves.Codecs, []string{"bitshave"}) {
				t.Fatalf("lock entry %+v; the installed package's h1 is %s", e, h1)
			}
			if layout == "packed" {
				zip := filepath.Join(mirror, filepath.FromSlash(address), "zarrgw-plugin-bitshave_1.3.0_"+here+".zip")
				want, err := pluginpkg.ZipHashes(zip)
				if err != nil || !slices.Equal(e.Hashes, want) || want[0] != h1 {
					t.Fatalf("hashes %v, the zip's %v (%v)", e.Hashes, want, err)
				}
			}
			writeData(t, m, dir)
			readData(t, m, dir)

			lay("1.4.0")
			if got := initIn(t, m, dir, false); !got.pinned || got.installed != "1.3.0" || got.from != (install.Origin{AlreadyInstalled: true}) {
				t.Fatalf("init with 1.4.0 available: %+v, want 1.3.0 as pinned and installed", got)
			}
			if e := lockOf(t, dir); e.Version != "1.3.0" {
				t.Fatalf("init with 1.4.0 available: the lock pins %s", e.Version)
			}
			if got := initIn(t, m, dir, true); got.pinned || got.installed != "1.4.0" || got.from != fromMirror {
				t.Fatalf("init -upgrade: %+v, want 1.4.0 installed from %+v", got, fromMirror)
			}
			if e := lockOf(t, dir); e.Version != "1.4.0" {
				t.Fatalf("after -upgrade the lock pins %s", e.Version)
			}
			readData(t, m, dir)
		})
	}
}

// What "zarrgw init" prints, line for line: installing from a filesystem
// mirror, then again as the lock file pins it. (The other tests follow the
// installer's steps through its events, not through these lines.)
func TestInitPrintsItsSteps(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, bitshaveBin, here, "1.2.0", "1.3.0")
	m := newMachine(t, fsMirror(mirror))
	dir := project(t, "~> 1.2")
	for i, want := range [][]string{{
		"Initializing plugins...",
		"- Finding " + address + ` versions matching "~> 1.2"...`,
		"- Installing " + address + " v1.3.0 for " + here + "...",
		"- Installed " + address + " v1.3.0 (filesystem mirror " + mirror + "; serves codec bitshave)",
		"zarrgw.lock.hcl: 1 plugins locked. zarrgw has changed the versions, hashes or names recorded there:",
		"review the changes and commit them with the configuration.",
	}, {
		"Initializing plugins...",
		"- Using " + address + " v1.3.0, as zarrgw.lock.hcl pins it",
		"- Installed " + address + " v1.3.0 (installed already; serves codec bitshave)",
		"zarrgw.lock.hcl: 1 plugins locked, unchanged",
	}} {
		if got := m.must(dir, "init", "-c", "zarrgw.hcl"); got != strings.Join(want, "\n")+"\n" {
			t.Fatalf("init %d printed\n%s\nwant\n%s", i+1, got, strings.Join(want, "\n"))
		}
	}
}

// A package that is not the one locked is refused, and so is an installed
// binary changed after installation, each with a message that names the
// plugin, the hashes expected and found, and the command that fixes it.
func TestTamperingIsRefused(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, bitshaveBin, here, "1.3.0")
	m := newMachine(t, fsMirror(mirror))
	dir := project(t, "1.3.0")
	m.must(dir, "init", "-c", "zarrgw.hcl")
	writeData(t, m, dir)
	locked := lockOf(t, dir).Hashes

	exe := filepath.Join(installed(dir, "1.3.0"), "zarrgw-plugin-bitshave_v1.3.0")
	f, err := os.OpenFile(exe, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("tampered"))
	f.Close()
	actual, err := pluginpkg.HashDir(installed(dir, "1.3.0"))
	if err != nil {
		t.Fatal(err)
	}
	everyCommandRefuses(t, m, dir, exe, "a tampered binary", address, actual, locked[0], "zarrgw init -c zarrgw.hcl")
	m.must(dir, "init", "-c", "zarrgw.hcl") // reinstalls what the lock vouches for
	readData(t, m, dir)

	// The mirror's package replaced by another: refused against the lock.
	publish(t, mirror, version99Bin, here, "1.3.0")
	os.RemoveAll(filepath.Join(dir, ".zarrgw"))
	_, stderr, code := m.run(dir, "init", "-c", "zarrgw.hcl")
	want, err := pluginpkg.ZipHashes(filepath.Join(mirror, filepath.FromSlash(address), "zarrgw-plugin-bitshave_1.3.0_"+here+".zip"))
	if err != nil {
		t.Fatal(err)
	}
	flat := strings.Join(strings.Fields(stderr), " ")
	for _, w := range []string{address, locked[0], want[0], "delete the plugin's block from zarrgw.lock.hcl and run: zarrgw init -c zarrgw.hcl"} {
		if code == 0 || !strings.Contains(flat, w) {
			t.Fatalf("init from a tampered mirror: exit %d, the message lacks %q:\n%s", code, w, stderr)
		}
	}
	if _, err := os.Stat(installed(dir, "1.3.0")); err == nil {
		t.Fatal("the tampered package was installed")
	}
}

// A network mirror is a directory "zarrgw plugins mirror" fills, served
// by any HTTP server (here one on loopback): it installs packages
// byte-identical to those the mirror was filled from, with the same
// hashes; a package that does not match the hashes the mirror states is
// refused.
func TestNetworkMirror(t *testing.T) {
	source := t.TempDir()
	publish(t, source, bitshaveBin, here, "1.2.0", "1.3.0", "2.0.0")
	a := newMachine(t, fsMirror(source))
	dirA := project(t, "~> 1.2")
	out := t.TempDir()
	a.must(dirA, "plugins", "mirror", "-c", "zarrgw.hcl", out)
	pdir := filepath.Join(out, filepath.FromSlash(address))
	for _, f := range []string{"index.json", "1.3.0.json", "zarrgw-plugin-bitshave_1.3.0_" + here + ".zip"} {
		if _, err := os.Stat(filepath.Join(pdir, f)); err != nil {
			t.Fatalf("mirror: %v", err)
		}
	}
	if _, err := os.Stat(filepath.Join(pdir, "2.0.0.json")); err == nil {
		t.Fatal("mirror holds 2.0.0, which the configuration does not need")
	}
	a.must(dirA, "init", "-c", "zarrgw.hcl")

	srv := serve(t, out, 0)
	b := newMachine(t, netMirror(srv.URL, ""))
	dirB := project(t, "~> 1.2")
	b.must(dirB, "init", "-c", "zarrgw.hcl")
	exe := "zarrgw-plugin-bitshave_v1.3.0"
	if !bytes.Equal(read(t, filepath.Join(installed(dirB, "1.3.0"), exe)), read(t, bitshaveBin)) {
		t.Fatal("the package installed from the network mirror differs from the binary published")
	}
	if ha, hb := lockOf(t, dirA).Hashes, lockOf(t, dirB).Hashes; !slices.Equal(ha, hb) {
		t.Fatalf("hashes from the filesystem mirror %v, from the network mirror %v", ha, hb)
	}
	writeData(t, b, dirB)
	readData(t, b, dirB)

	// The zip swapped for another: the mirror's stated hashes refuse it.
	zip := filepath.Join(pdir, "zarrgw-plugin-bitshave_1.3.0_"+here+".zip")
	other := filepath.Join(t.TempDir(), "other.zip")
	if err := pluginpkg.Build(other, version99Bin, exe); err != nil {
		t.Fatal(err)
	}
	write(t, zip, string(read(t, other)))
	dirC := project(t, "~> 1.2")
	_, stderr, code := b.run(dirC, "init", "-c", "zarrgw.hcl")
	if code == 0 || !strings.Contains(stderr, "the source states") {
		t.Fatalf("a zip that does not match the mirror's hashes: exit %d\n%s", code, stderr)
	}
}

// "plugins lock -platform" records the hashes of packages for platforms
// this machine is not (here a cross-built binary), fetched from the
// mirror and not installed; init then installs against them.
func TestLockOtherPlatforms(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, bitshaveBin, here, "1.3.0")
	publish(t, mirror, crossBin, crossPlatform, "1.3.0")
	m := newMachine(t, fsMirror(mirror))
	dir := project(t, "~> 1.2")
	m.must(dir, "plugins", "lock", "-c", "zarrgw.hcl", "-platform="+here, "-platform="+crossPlatform)
	var want []string
	for _, p := range []string{here, crossPlatform} {
		h, err := pluginpkg.ZipHashes(filepath.Join(mirror, filepath.FromSlash(address), "zarrgw-plugin-bitshave_1.3.0_"+p+".zip"))
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, h...)
	}
	slices.Sort(want)
	if e := lockOf(t, dir); e.Version != "1.3.0" || !slices.Equal(e.Hashes, want) {
		t.Fatalf("lock entry %+v, want the hashes %v", e, want)
	}
	if _, err := os.Stat(filepath.Join(dir, ".zarrgw")); err == nil {
		t.Fatal("plugins lock installed something")
	}
	m.must(dir, "init", "-c", "zarrgw.hcl")
	if e := lockOf(t, dir); !slices.Equal(e.Hashes, want) || !slices.Equal(e.Serves.Codecs, []string{"bitshave"}) {
		t.Fatalf("after init: %+v", e)
	}
}

// Two configurations sharing one plugin cache download each package once
// (the mirror counts the requests): the second links to what the first
// put in the cache. Two inits into one cache at once both succeed, and
// the package is still downloaded once: a file lock makes the second wait
// for the first, then find the package in the cache.
func TestSharedCache(t *testing.T) {
	source := t.TempDir()
	publish(t, source, bitshaveBin, here, "1.3.0")
	out := t.TempDir()
	newMachine(t, fsMirror(source)).must(project(t, "~> 1.2"), "plugins", "mirror", "-c", "zarrgw.hcl", out)
	zip := "zarrgw-plugin-bitshave_1.3.0_" + here + ".zip"

	srv := serve(t, out, 0)
	cache := t.TempDir()
	m := newMachine(t, netMirror(srv.URL, cache))
	a, b := project(t, "~> 1.2"), project(t, "~> 1.2")
	m.must(a, "init", "-c", "zarrgw.hcl")
	if got := initIn(t, m, b, false); got.from != (install.Origin{CacheDir: cache}) || len(got.downloads) != 0 {
		t.Errorf("the second init did not install from the cache alone: %+v", got)
	}
	if n := srv.zips()[zip]; n != 1 {
		t.Fatalf("the package was downloaded %d times for two configurations sharing a cache", n)
	}
	for _, dir := range []string{a, b} {
		if target, err := os.Readlink(installed(dir, "1.3.0")); err != nil || !strings.HasPrefix(target, cache) {
			t.Errorf("%s is not linked from the cache: %q %v", installed(dir, "1.3.0"), target, err)
		}
		writeData(t, m, dir)
		readData(t, m, dir)
	}

	// At once, into a new cache, with a mirror slow enough that both ask
	// for the package before either has it.
	slow := serve(t, out, time.Second)
	m = newMachine(t, netMirror(slow.URL, t.TempDir()))
	c, d := project(t, "~> 1.2"), project(t, "~> 1.2")
	var wg sync.WaitGroup
	results := make([]string, 2)
	for i, dir := range []string{c, d} {
		wg.Go(func() {
			stdout, stderr, code := m.run(dir, "init", "-c", "zarrgw.hcl")
			if code != 0 {
				results[i] = fmt.Sprintf("exit %d\n%s%s", code, stdout, stderr)
			}
		})
	}
	wg.Wait()
	for i, r := range results {
		if r != "" {
			t.Errorf("concurrent init %d: %s", i, r)
		}
	}
	if n := slow.zips()[zip]; n != 1 {
		t.Fatalf("two concurrent inits downloaded the package %d times", n)
	}
}

// A fresh machine with an empty home and cache, given only the
// configuration, its lock file, the dataset's data and a network mirror's
// URL: init installs what the lock pins, and the dataset reads through the
// installed plugin, by cat and through the gateway.
func TestFreshMachine(t *testing.T) {
	source := t.TempDir()
	publish(t, source, bitshaveBin, here, "1.2.0", "1.3.0")
	a := newMachine(t, fsMirror(source))
	dirA := project(t, "~> 1.2")
	a.must(dirA, "init", "-c", "zarrgw.hcl")
	writeData(t, a, dirA)
	out := t.TempDir()
	a.must(dirA, "plugins", "mirror", "-c", "zarrgw.hcl", out)
	publish(t, out, bitshaveBin, here, "1.4.0") // newer, but not what the lock pins

	srv := serve(t, out, 0)
	b := newMachine(t, netMirror(srv.URL, filepath.Join(t.TempDir(), "cache")))
	dirB := t.TempDir()
	for _, f := range []string{"zarrgw.hcl", "zarrgw.lock.hcl"} {
		write(t, filepath.Join(dirB, f), string(read(t, filepath.Join(dirA, f))))
	}
	if err := os.CopyFS(filepath.Join(dirB, "data"), os.DirFS(filepath.Join(dirA, "data"))); err != nil {
		t.Fatal(err)
	}
	// Before init, the plugin the lock pins is not installed: say so.
	_, stderr, code := b.run(dirB, "cat", "-c", "zarrgw.hcl", "lab", "--path", "t")
	if flat := strings.Join(strings.Fields(stderr), " "); code == 0 || !strings.Contains(flat, address+" 1.3.0 is not installed") || !strings.Contains(flat, "Install it with: zarrgw init -c zarrgw.hcl") {
		t.Fatalf("cat before init: exit %d\n%s", code, stderr)
	}
	got := initIn(t, b, dirB, false)
	if !got.pinned || got.installed != "1.3.0" || len(got.downloads) != 1 || got.from.Source == "" || got.from.CacheDir == "" {
		t.Fatalf("init on the fresh machine: %+v, want 1.3.0 as pinned, downloaded into the cache", got)
	}
	readData(t, b, dirB)
	gatewayRead(t, b, dirB)
}

// gatewayRead serves the project and reads the array through the
// gateway's array API.
func gatewayRead(t *testing.T, m *machine, dir string) {
	t.Helper()
	cmd := exec.Command(zarrgwBin, "serve", "-c", "zarrgw.hcl", "--listen", "127.0.0.1:0")
	cmd.Dir, cmd.Env = dir, m.env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	base := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), "serving 1 datasets at "); ok {
				base <- strings.Fields(rest)[0]
			}
		}
	}()
	var url string
	select {
	case url = <-base:
	case <-time.After(time.Minute):
		t.Fatal("the gateway did not start")
	}
	resp, err := http.Get(url + "lab/t?format=json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var doc struct{ Data []float64 }
	if err := json.Unmarshal(body, &doc); err != nil || resp.StatusCode != 200 || len(doc.Data) != len(values) || float32(doc.Data[1]) != shaved(values[1]) {
		t.Fatalf("GET %slab/t: %s %s (%v)", url, resp.Status, body, err)
	}
}

// A development override runs a build in place of the installed plugin:
// no init, no lock entry, and every command says so.
func TestDevOverride(t *testing.T) {
	build := t.TempDir()
	write(t, filepath.Join(build, "zarrgw-plugin-bitshave"), string(read(t, bitshaveBin)))
	os.Chmod(filepath.Join(build, "zarrgw-plugin-bitshave"), 0o755)
	m := newMachine(t, "plugin_installation {\n  dev_overrides = {\n    \""+address+"\" = \""+build+"\"\n  }\n}\n")
	dir := project(t, "~> 1.2")
	for _, args := range [][]string{{"validate", "-c", "zarrgw.hcl"}, {"create", "-c", "zarrgw.hcl", "lab", "--path", "t", "--shape", "4", "--dtype", "float32"}} {
		_, stderr, code := m.run(dir, args...)
		if code != 0 || !strings.Contains(stderr, `Development override for plugin "`+address+`"`) || !strings.Contains(stderr, m.cli) {
			t.Fatalf("%s: exit %d\n%s", args[0], code, stderr)
		}
	}
	// init installs nothing for it (there is no source to install from)
	// and says why; the lock file records nothing of it.
	if out := m.must(dir, "init", "-c", "zarrgw.hcl"); !strings.Contains(out, "- Skipping "+address+": dev_overrides in "+m.cli) {
		t.Errorf("init:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, "zarrgw.lock.hcl")); err == nil {
		t.Error("a lock file was written")
	}
}

// A plugin speaking no protocol version this zarrgw speaks is refused at
// init, with the versions of both sides.
func TestIncompatibleProtocolRefusedAtInit(t *testing.T) {
	mirror := t.TempDir()
	publish(t, mirror, version99Bin, here, "1.0.0")
	m := newMachine(t, fsMirror(mirror))
	dir := t.TempDir()
	write(t, filepath.Join(dir, "zarrgw.hcl"), `plugin "`+address+`" {
  version = "1.0.0"
  args    = ["version99"]
}
`)
	_, stderr, code := m.run(dir, "init", "-c", "zarrgw.hcl")
	if code == 0 || !strings.Contains(stderr, "Plugin version: 99") || !strings.Contains(stderr, "speaks plugin protocol version(s) [1]") {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "zarrgw.lock.hcl")); err == nil {
		t.Error("the lock file records a plugin that cannot run")
	}
}
