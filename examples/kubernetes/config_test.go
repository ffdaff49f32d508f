package kubernetes

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	corev1 "k8s.io/api/core/v1"
)

// zconfig is what these tests read of a zarrgw configuration: its
// variables, datasets and server block, as written (no evaluation).
type zconfig struct {
	name      string // ConfigMap/key
	src       []byte
	variables map[string]variable
	datasets  map[string]dataset
	server    *server
}

type variable struct {
	env        string
	hasDefault bool
	sensitive  bool
}

type dataset struct{ readOnly bool }

type server struct {
	listen, s3Listen string
	drainDelay       *time.Duration // nil when the block does not set it
	shutdownTimeout  *time.Duration
}

// parseConfig reads the parts of a configuration the manifests depend on.
// Values are literals here; an attribute that is not one is an error.
func parseConfig(name string, src []byte) (*zconfig, error) {
	f, diags := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if diags.HasErrors() {
		return nil, diags
	}
	cfg := &zconfig{name: name, src: src, variables: map[string]variable{}, datasets: map[string]dataset{}}
	for _, b := range f.Body.(*hclsyntax.Body).Blocks {
		switch b.Type {
		case "variable":
			var v variable
			_, v.hasDefault = b.Body.Attributes["default"]
			if err := literal(b.Body, "env", &v.env); err != nil {
				return nil, err
			}
			if err := literal(b.Body, "sensitive", &v.sensitive); err != nil {
				return nil, err
			}
			cfg.variables[b.Labels[0]] = v
		case "dataset":
			var d dataset
			if err := literal(b.Body, "read_only", &d.readOnly); err != nil {
				return nil, err
			}
			cfg.datasets[b.Labels[0]] = d
		case "server":
			s := &server{}
			if err := literal(b.Body, "listen", &s.listen); err != nil {
				return nil, err
			}
			for attr, dst := range map[string]**time.Duration{"drain_delay": &s.drainDelay, "shutdown_timeout": &s.shutdownTimeout} {
				var text string
				if err := literal(b.Body, attr, &text); err != nil {
					return nil, err
				}
				if a := b.Body.Attributes[attr]; a != nil {
					d, err := time.ParseDuration(text)
					if err != nil {
						return nil, fmt.Errorf("%s: %s: %w", a.SrcRange, attr, err)
					}
					*dst = &d
				}
			}
			for _, inner := range b.Body.Blocks {
				if inner.Type == "s3" {
					if err := literal(inner.Body, "listen", &s.s3Listen); err != nil {
						return nil, err
					}
				}
			}
			cfg.server = s
		}
	}
	return cfg, nil
}

// literal sets *dst to the value of attribute name of body, if it has one.
func literal(body *hclsyntax.Body, name string, dst any) error {
	a := body.Attributes[name]
	if a == nil {
		return nil
	}
	v, diags := a.Expr.Value(nil)
	if diags.HasErrors() {
		return fmt.Errorf("%s: %s is not a literal: %s", a.SrcRange, name, diags.Error())
	}
	switch d := dst.(type) {
	case *string:
		if v.Type() != cty.String || v.IsNull() {
			return fmt.Errorf("%s: %s is not a string", a.SrcRange, name)
		}
		*d = v.AsString()
	case *bool:
		if v.Type() != cty.Bool || v.IsNull() {
			return fmt.Errorf("%s: %s is not a bool", a.SrcRange, name)
		}
		*d = v.True()
	}
	return nil
}

// port returns the port of a listen address.
func port(t *testing.T, listen string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(listen)
	if err != nil {
		t.Fatalf("listen %q: %v", listen, err)
	}
	var n int32
	if _, err := fmt.Sscan(p, &n); err != nil {
		t.Fatalf("listen %q: port: %v", listen, err)
	}
	return n
}

// configFlag returns the configuration file a container's command line
// names, if it names one.
func configFlag(c corev1.Container) (string, bool) {
	return flagValue(append(append([]string{}, c.Command...), c.Args...), "--config", "-c")
}

// containerConfig returns the configuration a container's --config names,
// following its volume mount to a ConfigMap of the manifests.
func containerConfig(t *testing.T, objs []object, p pod, c corev1.Container) *zconfig {
	t.Helper()
	file, ok := configFlag(c)
	if !ok {
		t.Fatalf("%s container %s: no --config", p.name, c.Name)
	}
	dir, key := filepath.Dir(file), filepath.Base(file)
	for _, m := range c.VolumeMounts {
		if m.MountPath != dir {
			continue
		}
		for _, v := range p.spec.Volumes {
			if v.Name != m.Name {
				continue
			}
			if v.ConfigMap == nil {
				t.Fatalf("%s container %s: %s is mounted from volume %s, not a ConfigMap", p.name, c.Name, dir, v.Name)
			}
			if len(v.ConfigMap.Items) > 0 || m.SubPath != "" {
				t.Fatalf("%s container %s: volume %s maps keys to paths; these tests read the ConfigMap's keys as files", p.name, c.Name, v.Name)
			}
			for _, cm := range all[corev1.ConfigMap](objs) {
				if cm.Name != v.ConfigMap.Name {
					continue
				}
				src, ok := cm.Data[key]
				if !ok {
					t.Fatalf("%s container %s: ConfigMap %s has no key %s for --config %s", p.name, c.Name, cm.Name, key, file)
				}
				cfg, err := parseConfig(cm.Name+"/"+key, []byte(src))
				if err != nil {
					t.Fatalf("ConfigMap %s: %v", cm.Name, err)
				}
				return cfg
			}
			t.Fatalf("%s container %s: no ConfigMap %s in the manifests", p.name, c.Name, v.ConfigMap.Name)
		}
		t.Fatalf("%s container %s: mount %s names no volume of the pod", p.name, c.Name, m.Name)
	}
	t.Fatalf("%s container %s: nothing is mounted at %s, where --config %s is", p.name, c.Name, dir, file)
	return nil
}

// configured is a container of the manifests that runs on a configuration.
type configured struct {
	pod       pod
	container corev1.Container
	cfg       *zconfig
}

func configuredContainers(t *testing.T, objs []object) []configured {
	t.Helper()
	var out []configured
	for _, p := range pods(objs) {
		for _, c := range p.spec.Containers {
			if _, ok := configFlag(c); ok {
				out = append(out, configured{p, c, containerConfig(t, objs, p, c)})
			}
		}
	}
	if len(out) == 0 {
		t.Fatal("no container runs zarrgw with --config")
	}
	return out
}

// TestSecretsReachVariables checks the path of every credential: a
// Secret's key, an environment variable of the container, a variable of
// the configuration that names it with env. A variable the container does
// not set and that has no default would stop zarrgw at start; a sensitive
// one given a literal value would put a secret in the manifest; a Secret's
// key that no variable reads is a name that drifted.
func TestSecretsReachVariables(t *testing.T) {
	objs := manifests(t)
	for _, cc := range configuredContainers(t, objs) {
		where := fmt.Sprintf("%s container %s (%s)", cc.pod.name, cc.container.Name, cc.cfg.name)
		read := map[string]string{} // environment variable -> variable
		for name, v := range cc.cfg.variables {
			if v.env == "" {
				continue
			}
			read[v.env] = name
			e, set := envVar(cc.container, v.env)
			switch {
			case !set && !v.hasDefault:
				t.Errorf("%s: variable %q has no default and the container does not set %s", where, name, v.env)
			case set && v.sensitive && (e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil):
				t.Errorf("%s: %s, of the sensitive variable %q, does not come from a Secret", where, v.env, name)
			}
		}
		secrets := 0
		for _, e := range cc.container.Env {
			if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
				continue
			}
			secrets++
			if _, ok := read[e.Name]; !ok {
				t.Errorf("%s: %s comes from Secret %s key %s, but no variable of the configuration reads it (env = %q)",
					where, e.Name, e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key, e.Name)
			}
		}
		if secrets == 0 {
			t.Errorf("%s: no credential comes from a Secret", where)
		}
	}
}

// TestReadmeCreatesTheSecret checks that the command README.md gives to
// create the Secret makes every key the manifests read from it.
func TestReadmeCreatesTheSecret(t *testing.T) {
	objs := manifests(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(readme), "\n## Running on Kubernetes\n")
	if !ok {
		t.Fatal(`README.md has no section "## Running on Kubernetes"`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	for _, p := range pods(objs) {
		for _, c := range p.spec.Containers {
			for _, e := range c.Env {
				if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
					continue
				}
				ref := e.ValueFrom.SecretKeyRef
				if !strings.Contains(section, "kubectl create secret generic "+ref.Name) {
					t.Errorf("%s: Secret %s: README.md does not say how to create it (kubectl create secret generic %s)", p.name, ref.Name, ref.Name)
				}
				if !regexp.MustCompile(`--from-(literal|file)=` + regexp.QuoteMeta(ref.Key) + `=`).MatchString(section) {
					t.Errorf("%s: Secret %s key %s: README.md's command does not create it", p.name, ref.Name, ref.Key)
				}
			}
		}
	}
}

// repoRoot is the checkout of the main module, two levels up.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !bytes.HasPrefix(mod, []byte("module github.com/zarrgw/zarrgw\n")) {
		t.Fatalf("%s is not zarrgw's checkout (go.mod: %v)", root, err)
	}
	return root
}

var (
	buildOnce sync.Once
	buildDir  string // removed by TestMain
	binary    string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// zarrgwBinary builds cmd/zarrgw of the checkout once for the tests.
// Go's test cache sees only this module's files: after a change to zarrgw
// alone, or to README.md, a cached pass stands until go test -count=1.
func zarrgwBinary(t *testing.T) string {
	t.Helper()
	root := repoRoot(t)
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "zarrgw-k8s-test")
		if err != nil {
			buildErr = err
			return
		}
		buildDir, binary = dir, filepath.Join(dir, "zarrgw")
		cmd := exec.Command("go", "build", "-o", binary, "./cmd/zarrgw")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/zarrgw: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// dummy is a value for an environment variable that zarrgw validate
// accepts: each distinct, a SHA-256's 64 hexadecimal digits where the
// name asks for one, never a published example.
func dummy(name string) string {
	sum := sha256.Sum256([]byte("manifest test " + name))
	if strings.Contains(name, "SHA256") {
		return hex.EncodeToString(sum[:])
	}
	return "dummy-" + hex.EncodeToString(sum[:8])
}

// diagnostic is one of zarrgw validate --json's diagnostics.
type diagnostic struct {
	Severity string `json:"severity"`
	Summary  string `json:"summary"`
	Detail   string `json:"detail"`
}

// validate runs zarrgw validate --json on the container's configuration
// with the container's environment (Secrets' values made up).
func validate(t *testing.T, bin string, cc configured) (valid bool, diags []diagnostic) {
	t.Helper()
	dir := t.TempDir()
	file := filepath.Join(dir, filepath.Base(cc.cfg.name))
	if err := os.WriteFile(file, cc.cfg.src, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "validate", "--json", "--config", file)
	// only what the pod would have: nothing of this machine's credentials
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for _, e := range cc.container.Env {
		switch {
		case e.ValueFrom == nil:
			cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
		case e.ValueFrom.SecretKeyRef != nil:
			cmd.Env = append(cmd.Env, e.Name+"="+dummy(e.Name))
		default: // the downward API: the Job's index
			cmd.Env = append(cmd.Env, e.Name+"=0")
		}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var report struct {
		Valid       bool         `json:"valid"`
		Diagnostics []diagnostic `json:"diagnostics"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &report); err != nil {
		t.Fatalf("zarrgw validate --json %s: %v (%v)\nstdout: %s\nstderr: %s", cc.cfg.name, err, runErr, stdout.Bytes(), stderr.Bytes())
	}
	if report.Valid != (runErr == nil) {
		t.Fatalf("zarrgw validate %s: valid=%v but exit %v", cc.cfg.name, report.Valid, runErr)
	}
	return report.Valid, report.Diagnostics
}

// TestConfigurationsValidate loads each ConfigMap's configuration with
// zarrgw's own loader (zarrgw validate, built from this checkout), with
// the environment its container gives it.
func TestConfigurationsValidate(t *testing.T) {
	objs := manifests(t)
	bin := zarrgwBinary(t)
	for _, cc := range configuredContainers(t, objs) {
		t.Run(strings.ReplaceAll(cc.pod.name+"/"+cc.container.Name, " ", "_"), func(t *testing.T) {
			if valid, diags := validate(t, bin, cc); !valid {
				t.Fatalf("%s is not valid: %+v", cc.cfg.name, diags)
			}
		})
	}
}
