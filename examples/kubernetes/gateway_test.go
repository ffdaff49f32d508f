package kubernetes

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// gateway is the Deployment of zarrgw serve, with its container and
// configuration.
type gateway struct {
	deploy *appsv1.Deployment
	c      corev1.Container
	cfg    *zconfig
	http   int32 // the key API's port (server.listen), where the probes go
	s3     int32 // the S3 API's port (server.s3.listen)
}

func gatewayOf(t *testing.T, objs []object) gateway {
	t.Helper()
	d := one[appsv1.Deployment](t, objs)
	p := pod{"Deployment " + d.Name, d.Spec.Template.Spec}
	if len(p.spec.Containers) != 1 {
		t.Fatalf("%s: %d containers, want the one running serve", p.name, len(p.spec.Containers))
	}
	c := p.spec.Containers[0]
	if args := append(append([]string{}, c.Command...), c.Args...); len(args) == 0 || args[0] != "serve" {
		t.Fatalf("%s: command line %q, want zarrgw serve", p.name, args)
	}
	cfg := containerConfig(t, objs, p, c)
	if cfg.server == nil || cfg.server.listen == "" {
		t.Fatalf("%s: no server block with listen", cfg.name)
	}
	g := gateway{deploy: d, c: c, cfg: cfg, http: port(t, cfg.server.listen)}
	if cfg.server.s3Listen == "" {
		t.Fatalf("%s: no s3 block with listen in the server block", cfg.name)
	}
	g.s3 = port(t, cfg.server.s3Listen)
	return g
}

// containerPort resolves a probe's or Service's port (a number or a
// port's name) to one of the container's ports; 0 if it names none.
func containerPort(c corev1.Container, p intstr.IntOrString) int32 {
	for _, cp := range c.Ports {
		if (p.Type == intstr.String && p.StrVal == cp.Name) || (p.Type == intstr.Int && p.IntVal == cp.ContainerPort) {
			return cp.ContainerPort
		}
	}
	return 0
}

// TestGatewayDeployment checks the gateway's pods: their ports are the
// configuration's listeners, readiness is /readyz and liveness /healthz on
// the key API's port, and Kubernetes waits for the drain and the shutdown
// before it kills the process.
func TestGatewayDeployment(t *testing.T) {
	g := gatewayOf(t, manifests(t))
	d := g.deploy
	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v: want several, so that one restarting leaves others serving", d.Spec.Replicas)
	}
	podLabels := labels.Set(d.Spec.Template.Labels)
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil || sel.Empty() || !sel.Matches(podLabels) {
		t.Errorf("the Deployment's selector %v does not select its pods %v (%v)", d.Spec.Selector, podLabels, err)
	}
	for _, want := range []int32{g.http, g.s3} {
		if containerPort(g.c, intstr.FromInt32(want)) == 0 {
			t.Errorf("the container does not declare port %d, a listener of %s", want, g.cfg.name)
		}
	}

	for _, probe := range []struct {
		name, path string
		p          *corev1.Probe
	}{{"readinessProbe", "/readyz", g.c.ReadinessProbe}, {"livenessProbe", "/healthz", g.c.LivenessProbe}} {
		switch {
		case probe.p == nil || probe.p.HTTPGet == nil:
			t.Errorf("%s: none, or not an HTTP GET", probe.name)
		case probe.p.HTTPGet.Path != probe.path:
			t.Errorf("%s: path %q, want %q", probe.name, probe.p.HTTPGet.Path, probe.path)
		case containerPort(g.c, probe.p.HTTPGet.Port) != g.http:
			t.Errorf("%s: port %s is not %d, the key API's (server.listen %q)", probe.name, probe.p.HTTPGet.Port.String(), g.http, g.cfg.server.listen)
		case probe.p.HTTPGet.Scheme != "" && probe.p.HTTPGet.Scheme != corev1.URISchemeHTTP:
			t.Errorf("%s: scheme %s on a listener without TLS", probe.name, probe.p.HTTPGet.Scheme)
		}
	}

	s := g.cfg.server
	if s.drainDelay == nil || s.shutdownTimeout == nil {
		t.Fatalf("%s: the server block must set drain_delay and shutdown_timeout, which the grace period is reckoned from", g.cfg.name)
	}
	if *s.drainDelay <= 0 {
		t.Errorf("drain_delay %s: the Service would still send to a pod whose listener closed", *s.drainDelay)
	}
	grace := d.Spec.Template.Spec.TerminationGracePeriodSeconds
	need := *s.drainDelay + *s.shutdownTimeout
	switch {
	case grace == nil:
		t.Errorf("no terminationGracePeriodSeconds (30 by default): want more than drain_delay + shutdown_timeout = %s", need)
	case time.Duration(*grace)*time.Second <= need:
		t.Errorf("terminationGracePeriodSeconds %d: want more than drain_delay + shutdown_timeout = %s, or Kubernetes kills the gateway while it drains", *grace, need)
	}

	spread := false
	for _, c := range d.Spec.Template.Spec.TopologySpreadConstraints {
		if s, err := metav1.LabelSelectorAsSelector(c.LabelSelector); err == nil && !s.Empty() && s.Matches(podLabels) && c.TopologyKey != "" {
			spread = true
		}
	}
	if a := d.Spec.Template.Spec.Affinity; a != nil && a.PodAntiAffinity != nil {
		terms := a.PodAntiAffinity.RequiredDuringSchedulingIgnoredDuringExecution
		for _, w := range a.PodAntiAffinity.PreferredDuringSchedulingIgnoredDuringExecution {
			terms = append(terms, w.PodAffinityTerm)
		}
		for _, term := range terms {
			if s, err := metav1.LabelSelectorAsSelector(term.LabelSelector); err == nil && !s.Empty() && s.Matches(podLabels) && term.TopologyKey != "" {
				spread = true
			}
		}
	}
	if !spread {
		t.Errorf("no topology spread constraint or pod anti-affinity over the gateway's own pods: replicas may share one node")
	}
}

// TestGatewayServiceAndBudget checks that the Service and the
// PodDisruptionBudget select the gateway's pods and no other (not the
// copy Job's), and that the Service exposes both APIs.
func TestGatewayServiceAndBudget(t *testing.T) {
	objs := manifests(t)
	g := gatewayOf(t, objs)
	podLabels := labels.Set(g.deploy.Spec.Template.Labels)
	var others []labels.Set
	for _, j := range all[batchv1.Job](objs) {
		others = append(others, labels.Set(j.Spec.Template.Labels))
	}

	svc := one[corev1.Service](t, objs)
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	if len(svc.Spec.Selector) == 0 || !sel.Matches(podLabels) {
		t.Errorf("Service %s: selector %v does not select the gateway's pods %v", svc.Name, svc.Spec.Selector, podLabels)
	}
	for _, o := range others {
		if sel.Matches(o) {
			t.Errorf("Service %s: selector %v also selects %v, a Job's pods", svc.Name, svc.Spec.Selector, o)
		}
	}
	exposed := map[int32]bool{}
	for _, p := range svc.Spec.Ports {
		target := p.TargetPort
		if target.Type == intstr.Int && target.IntVal == 0 {
			target = intstr.FromInt32(p.Port) // Kubernetes' default
		}
		cp := containerPort(g.c, target)
		if cp == 0 {
			t.Errorf("Service %s port %s: targetPort %s is no port of the gateway's container", svc.Name, p.Name, target.String())
		}
		exposed[cp] = true
	}
	if !exposed[g.http] || !exposed[g.s3] {
		t.Errorf("Service %s exposes container ports %v; want the key API's %d and the S3 API's %d", svc.Name, exposed, g.http, g.s3)
	}

	pdb := one[policyv1.PodDisruptionBudget](t, objs)
	psel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
	if err != nil || psel.Empty() || !psel.Matches(podLabels) {
		t.Errorf("PodDisruptionBudget %s: selector %v does not select the gateway's pods %v (%v)", pdb.Name, pdb.Spec.Selector, podLabels, err)
	}
	for _, o := range others {
		if err == nil && psel.Matches(o) {
			t.Errorf("PodDisruptionBudget %s: selector also selects %v, a Job's pods", pdb.Name, o)
		}
	}
	replicas := int32(1)
	if g.deploy.Spec.Replicas != nil {
		replicas = *g.deploy.Spec.Replicas
	}
	switch mu, ma := pdb.Spec.MaxUnavailable, pdb.Spec.MinAvailable; {
	case (mu == nil) == (ma == nil):
		t.Errorf("PodDisruptionBudget %s: want one of maxUnavailable and minAvailable", pdb.Name)
	case mu != nil && (mu.Type != intstr.Int || mu.IntVal < 1 || mu.IntVal >= replicas):
		t.Errorf("PodDisruptionBudget %s: maxUnavailable %s, want a number from 1 to replicas-1 (%d)", pdb.Name, mu.String(), replicas-1)
	case ma != nil && (ma.Type != intstr.Int || ma.IntVal < 1 || ma.IntVal >= replicas):
		t.Errorf("PodDisruptionBudget %s: minAvailable %s, want a number from 1 to replicas-1 (%d): more blocks every drain", pdb.Name, ma.String(), replicas-1)
	}
}
