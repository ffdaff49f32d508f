// Package kubernetes holds the Kubernetes manifests that run zarrgw (an
// Indexed Job of `zarrgw cp --partition`, a gateway Deployment) and the
// tests that hold them to the Kubernetes API and to zarrgw's configuration.
// It is a module of its own so that zarrgw never depends on Kubernetes.
package kubernetes

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// image is the one image every manifest names; VERSION is replaced by a
// release when the manifests are applied (README.md).
const image = "ghcr.io/zarrgw/zarrgw:VERSION"

// kinds are the API types the manifests may hold, by apiVersion and kind:
// anything else is refused rather than let through unchecked.
var kinds = map[string]func() any{
	"v1/ConfigMap":                  func() any { return new(corev1.ConfigMap) },
	"v1/Service":                    func() any { return new(corev1.Service) },
	"batch/v1/Job":                  func() any { return new(batchv1.Job) },
	"apps/v1/Deployment":            func() any { return new(appsv1.Deployment) },
	"policy/v1/PodDisruptionBudget": func() any { return new(policyv1.PodDisruptionBudget) },
}

// object is one YAML document of a manifest file, decoded.
type object struct {
	where string // file#document
	obj   any
}

// decode decodes one YAML document strictly into the API type its
// apiVersion and kind name: an unknown kind, an unknown or duplicated
// field, or a value of the wrong type is an error.
func decode(doc []byte) (any, error) {
	var head metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return nil, err
	}
	key := head.APIVersion + "/" + head.Kind
	newObj, ok := kinds[key]
	if !ok {
		return nil, fmt.Errorf("apiVersion %q kind %q: not a kind these manifests use", head.APIVersion, head.Kind)
	}
	obj := newObj()
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		return nil, fmt.Errorf("%s: %w", key, err)
	}
	return obj, nil
}

// documents splits a file into its YAML documents, leaving out those that
// hold only comments.
func documents(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		var v any
		if err := yaml.Unmarshal(doc, &v); err != nil {
			return nil, err
		}
		if v != nil {
			docs = append(docs, doc)
		}
	}
}

// manifests decodes every document of every YAML file in this directory.
func manifests(t *testing.T) []object {
	t.Helper()
	var files []string
	for _, pattern := range []string{"*.yaml", "*.yml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) == 0 {
		t.Fatal("no manifests (*.yaml) here")
	}
	sort.Strings(files)
	var objs []object
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := documents(data)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if len(docs) == 0 {
			t.Errorf("%s: no documents", f)
		}
		for i, doc := range docs {
			where := fmt.Sprintf("%s#%d", f, i+1)
			obj, err := decode(doc)
			if err != nil {
				t.Errorf("%s: %v", where, err)
				continue
			}
			objs = append(objs, object{where, obj})
		}
	}
	if t.Failed() {
		t.FailNow() // the checks that follow would only repeat it
	}
	return objs
}

// all returns the objects of type T.
func all[T any](objs []object) []*T {
	var out []*T
	for _, o := range objs {
		if v, ok := o.obj.(*T); ok {
			out = append(out, v)
		}
	}
	return out
}

// one returns the only object of type T, failing the test if there is
// not exactly one.
func one[T any](t *testing.T, objs []object) *T {
	t.Helper()
	found := all[T](objs)
	if len(found) != 1 {
		var zero T
		t.Fatalf("%d objects of type %T, want 1", len(found), zero)
	}
	return found[0]
}

// TestDecodeIsStrict shows that decode refuses what a careless manifest
// would hold, so that the other tests' decoding means something.
func TestDecodeIsStrict(t *testing.T) {
	for name, doc := range map[string]string{
		"unknown kind":   "apiVersion: v1\nkind: Pod2\nmetadata: {name: x}\n",
		"unknown field":  "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replica: 3}\n",
		"nested field":   "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {template: {spec: {containers: [{name: c, args: [a], envv: []}]}}}\n",
		"duplicate key":  "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\ndata: {c: d}\n",
		"wrong type":     "apiVersion: batch/v1\nkind: Job\nmetadata: {name: x}\nspec: {completions: four}\n",
		"no api version": "kind: Service\nmetadata: {name: x}\n",
	} {
		if _, err := decode([]byte(doc)); err == nil {
			t.Errorf("%s: decoded without an error", name)
		}
	}
	ok := "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: x}\nspec: {maxUnavailable: 1}\n"
	if _, err := decode([]byte(ok)); err != nil {
		t.Errorf("a valid PodDisruptionBudget: %v", err)
	}
}

// TestEveryManifestDecodes decodes every document of every file, and
// checks what holds for all of them: names, one image, a configuration
// mounted from a ConfigMap that exists.
func TestEveryManifestDecodes(t *testing.T) {
	objs := manifests(t)
	seen := map[string]string{}
	for _, o := range objs {
		meta := metaOf(o.obj)
		if meta.Name == "" {
			t.Errorf("%s: no metadata.name", o.where)
		}
		key := fmt.Sprintf("%T/%s", o.obj, meta.Name)
		if prev, dup := seen[key]; dup {
			t.Errorf("%s: %s again (first in %s)", o.where, key, prev)
		}
		seen[key] = o.where
	}
	for _, p := range pods(objs) {
		for _, c := range p.spec.Containers {
			if c.Image != image {
				t.Errorf("%s container %s: image %q, want %q (the placeholder README.md documents)", p.name, c.Name, c.Image, image)
			}
		}
	}
}

// metaOf returns an object's metadata.
func metaOf(obj any) metav1.ObjectMeta {
	switch v := obj.(type) {
	case *corev1.ConfigMap:
		return v.ObjectMeta
	case *corev1.Service:
		return v.ObjectMeta
	case *batchv1.Job:
		return v.ObjectMeta
	case *appsv1.Deployment:
		return v.ObjectMeta
	case *policyv1.PodDisruptionBudget:
		return v.ObjectMeta
	}
	panic(fmt.Sprintf("no metadata for %T", obj))
}

// pod is the pod template of a workload.
type pod struct {
	name string
	spec corev1.PodSpec
}

func pods(objs []object) []pod {
	var out []pod
	for _, j := range all[batchv1.Job](objs) {
		out = append(out, pod{"Job " + j.Name, j.Spec.Template.Spec})
	}
	for _, d := range all[appsv1.Deployment](objs) {
		out = append(out, pod{"Deployment " + d.Name, d.Spec.Template.Spec})
	}
	return out
}

// flagValue returns the value of a flag in args, given as "--name VALUE"
// or "--name=VALUE" under any of its names.
func flagValue(args []string, names ...string) (string, bool) {
	for i, a := range args {
		for _, n := range names {
			if a == n && i+1 < len(args) {
				return args[i+1], true
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v, true
			}
		}
	}
	return "", false
}

// envVar returns the container's variable of that name.
func envVar(c corev1.Container, name string) (corev1.EnvVar, bool) {
	i := slices.IndexFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == name })
	if i < 0 {
		return corev1.EnvVar{}, false
	}
	return c.Env[i], true
}

// TestWorkloadsAreLockedDown checks what every pod of the manifests
// holds: non-root, a read-only root filesystem, resources requested, and
// every $(VAR) of its command line declared (Kubernetes passes an
// undeclared one on as it is written).
func TestWorkloadsAreLockedDown(t *testing.T) {
	objs := manifests(t)
	ps := pods(objs)
	if len(ps) == 0 {
		t.Fatal("no workloads")
	}
	for _, p := range ps {
		for _, c := range p.spec.Containers {
			where := p.name + " container " + c.Name
			nonRoot := p.spec.SecurityContext != nil && p.spec.SecurityContext.RunAsNonRoot != nil && *p.spec.SecurityContext.RunAsNonRoot
			if c.SecurityContext != nil && c.SecurityContext.RunAsNonRoot != nil {
				nonRoot = *c.SecurityContext.RunAsNonRoot
			}
			if !nonRoot {
				t.Errorf("%s: runAsNonRoot is not true", where)
			}
			if c.SecurityContext == nil || c.SecurityContext.ReadOnlyRootFilesystem == nil || !*c.SecurityContext.ReadOnlyRootFilesystem {
				t.Errorf("%s: readOnlyRootFilesystem is not true", where)
			}
			if c.SecurityContext == nil || c.SecurityContext.AllowPrivilegeEscalation == nil || *c.SecurityContext.AllowPrivilegeEscalation {
				t.Errorf("%s: allowPrivilegeEscalation is not false", where)
			}
			if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() {
				t.Errorf("%s: no cpu or memory request", where)
			}
			if c.Resources.Limits.Memory().IsZero() {
				t.Errorf("%s: no memory limit", where)
			}
			for _, a := range slices.Concat(c.Command, c.Args) {
				for _, name := range references(a) {
					if _, ok := envVar(c, name); !ok {
						t.Errorf("%s: %q refers to $(%s), which its env does not declare", where, a, name)
					}
				}
			}
		}
	}
}

// references returns the names of the $(VAR) references in s, as
// Kubernetes expands them ($$ escapes a $).
func references(s string) []string {
	var names []string
	for i := 0; i < len(s); i++ {
		if s[i] != '$' || i+1 >= len(s) {
			continue
		}
		if s[i+1] == '$' {
			i++
			continue
		}
		if s[i+1] == '(' {
			if end := strings.IndexByte(s[i+2:], ')'); end >= 0 {
				names = append(names, s[i+2:i+2+end])
				i += 2 + end
			}
		}
	}
	return names
}

func TestReferences(t *testing.T) {
	got := references("$(A)/4 $$(B) $(C_D)x $( $")
	if want := []string{"A", "C_D"}; !slices.Equal(got, want) {
		t.Errorf("references = %q, want %q", got, want)
	}
}
