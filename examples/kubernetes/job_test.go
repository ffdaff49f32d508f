package kubernetes

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// indexEnv is the variable the partition's index comes from.
const indexEnv = "JOB_COMPLETION_INDEX"

// TestCopyJob checks the Indexed Job of `zarrgw cp --partition`: N pods,
// pod I copying part I of N, each part retried on its own.
func TestCopyJob(t *testing.T) {
	objs := manifests(t)
	job := one[batchv1.Job](t, objs)
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode is not Indexed: each pod must know which part it copies")
	}
	if spec.Completions == nil || *spec.Completions < 2 {
		t.Fatalf("completions %v: a copy in parts needs at least 2", spec.Completions)
	}
	n := *spec.Completions
	if spec.Parallelism == nil || *spec.Parallelism != n {
		t.Errorf("parallelism %v, want %d (completions): every part at once", spec.Parallelism, n)
	}
	if spec.BackoffLimitPerIndex == nil || *spec.BackoffLimitPerIndex < 1 {
		t.Errorf("backoffLimitPerIndex %v: a part that fails once must be retried alone", spec.BackoffLimitPerIndex)
	}
	if spec.MaxFailedIndexes == nil || *spec.MaxFailedIndexes >= n {
		t.Errorf("maxFailedIndexes %v: want fewer than the %d parts, so that a shared fault stops the Job", spec.MaxFailedIndexes, n)
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q, want Never (podFailurePolicy and per-index retries count pods)", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers, want the one running cp", len(pod.Containers))
	}
	c := pod.Containers[0]
	if p := spec.PodFailurePolicy; p != nil {
		for i, r := range p.Rules {
			if r.OnExitCodes != nil && r.OnExitCodes.ContainerName != nil && *r.OnExitCodes.ContainerName != c.Name {
				t.Errorf("podFailurePolicy rule %d names container %q, not %q", i, *r.OnExitCodes.ContainerName, c.Name)
			}
		}
	}

	args := slices.Concat(c.Command, c.Args)
	if len(args) == 0 || args[0] != "cp" {
		t.Fatalf("command line %q: want zarrgw cp", args)
	}
	want := fmt.Sprintf("$(%s)/%d", indexEnv, n)
	if got, ok := flagValue(args, "--partition"); !ok || got != want {
		t.Errorf("--partition %q (given: %v), want %q: part JOB_COMPLETION_INDEX of completions", got, ok, want)
	}
	e, ok := envVar(c, indexEnv)
	wantPath := fmt.Sprintf("metadata.annotations['%s']", batchv1.JobCompletionIndexAnnotation)
	if !ok || e.ValueFrom == nil || e.ValueFrom.FieldRef == nil || e.ValueFrom.FieldRef.FieldPath != wantPath {
		t.Errorf("env %s is not declared from %s: $(%s) in args is expanded only from declared variables", indexEnv, wantPath, indexEnv)
	}

	// SRC and DST: datasets of the configuration, the source read-only.
	cfg := containerConfig(t, objs, podOf(job), c)
	if len(args) < 3 {
		t.Fatalf("command line %q: no SRC DST", args)
	}
	src, dst := args[len(args)-2], args[len(args)-1]
	for _, name := range []string{src, dst} {
		if strings.HasPrefix(name, "-") {
			t.Errorf("command line %q: it must end with SRC DST", args)
		} else if _, ok := cfg.datasets[name]; !ok {
			t.Errorf("%q is not a dataset of %s", name, cfg.name)
		}
	}
	if d, ok := cfg.datasets[src]; ok && !d.readOnly {
		t.Errorf("source dataset %q is not read_only", src)
	}

	// cp's journal goes to $XDG_CACHE_HOME/zarrgw/cp: it must be writable
	// on a read-only root filesystem.
	cache, ok := envVar(c, "XDG_CACHE_HOME")
	if !ok || cache.Value == "" {
		t.Fatalf("XDG_CACHE_HOME is not set: cp's journal would go to the read-only root filesystem")
	}
	if !writable(pod, c, cache.Value) {
		t.Errorf("XDG_CACHE_HOME %s is on no writable volume", cache.Value)
	}
}

func podOf(job *batchv1.Job) pod { return pod{"Job " + job.Name, job.Spec.Template.Spec} }

// writable reports whether path lies on a volume mounted read-write, of a
// kind a pod may write (emptyDir or a claim).
func writable(p corev1.PodSpec, c corev1.Container, path string) bool {
	for _, m := range c.VolumeMounts {
		rel, err := filepath.Rel(m.MountPath, path)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") || m.ReadOnly {
			continue
		}
		for _, v := range p.Volumes {
			if v.Name == m.Name && (v.EmptyDir != nil || v.PersistentVolumeClaim != nil || v.Ephemeral != nil) {
				return true
			}
		}
	}
	return false
}
