package launcher

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/hashicorp/go-plugin"

	"github.com/zarrgw/zarrgw/pluginapi"
)

// stableAfter is how long a process must have run for its crash to count
// as a fresh failure rather than one more in a row.
const stableAfter = time.Minute

// Connect returns the connection to the running plugin, starting it, or
// restarting it if its process has exited or its connection broke. A
// start outlives a caller that gives up on it: the next caller finds the
// plugin started (or the start's error).
func (p *Plugin) Connect(ctx context.Context) (*pluginapi.Conn, error) {
	if conn, err := p.live(); conn != nil || err != nil {
		return conn, err
	}
	select {
	case p.starting <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("plugin %s: waiting for its start: %w", p.spec.Name, context.Cause(ctx))
	}
	if conn, err := p.live(); conn != nil || err != nil {
		<-p.starting
		return conn, err // started by the caller ahead of us
	}
	p.reapLastProcess()
	if err := p.waitBackoff(ctx); err != nil {
		<-p.starting
		return nil, err
	}
	type started struct {
		conn *pluginapi.Conn
		err  error
	}
	done := make(chan started, 1)
	go func() {
		defer func() { <-p.starting }()
		conn, err := p.start()
		done <- started{conn, err}
	}()
	select {
	case r := <-done:
		return r.conn, r.err
	case <-ctx.Done():
		return nil, fmt.Errorf("plugin %s: starting: %w", p.spec.Name, context.Cause(ctx))
	}
}

// live returns the current connection if its process is usable.
func (p *Plugin) live() (*pluginapi.Conn, error) {
	if p.l.isClosed() {
		return nil, fmt.Errorf("plugin %s: %w", p.spec.Name, ErrClosed)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.conn != nil && !p.conn.Broken() && !p.proc.Exited() {
		return p.conn, nil
	}
	return nil, nil
}

// start launches a process and records it, or the failure.
func (p *Plugin) start() (*pluginapi.Conn, error) {
	proc, conn, err := p.launch()
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.state, p.lastErr = Failed, err
		p.failed()
		return nil, err
	}
	if p.l.isClosed() {
		stop(proc, killGrace)
		conn.Release()
		return nil, fmt.Errorf("plugin %s: %w", p.spec.Name, ErrClosed)
	}
	if p.state != NotStarted {
		p.restarts++
	}
	p.proc, p.conn, p.state, p.since = proc, conn, Running, time.Now()
	if rc := proc.ReattachConfig(); rc != nil {
		p.pid = rc.Pid
	}
	p.log.Info("plugin started", "pid", p.pid, "protocol", proc.NegotiatedVersion())
	return conn, nil
}

// reapLastProcess kills a process that crashed or lost its connection and
// counts the failure.
func (p *Plugin) reapLastProcess() {
	p.mu.Lock()
	proc, conn, ran := p.proc, p.conn, time.Since(p.since)
	if proc == nil {
		p.mu.Unlock()
		return
	}
	p.proc, p.conn, p.state = nil, nil, Exited
	p.lastErr = fmt.Errorf("plugin %s: process %d exited or lost its connection", p.spec.Name, p.pid)
	if ran >= stableAfter {
		p.failures = 0
	}
	p.failed()
	p.mu.Unlock()
	p.log.Warn("plugin process gone or hung; restarting", "pid", p.pid, "ran", ran.Round(time.Millisecond))
	stop(proc, 0) // crashed, or silent: nothing to wait for
	conn.Release()
}

// failed counts a failure and sets the backoff: none before the first
// retry, then RestartDelay doubling up to MaxRestartDelay. Holds p.mu.
func (p *Plugin) failed() {
	p.failures++
	delay := time.Duration(0)
	if p.failures > 1 {
		delay = p.l.opts.RestartDelay << min(p.failures-2, 16)
		delay = min(delay, p.l.opts.MaxRestartDelay)
	}
	p.notBefore = time.Now().Add(delay)
}

// waitBackoff waits until the next start is allowed. A caller whose
// deadline comes first fails now with the reason, instead of waiting for
// nothing.
func (p *Plugin) waitBackoff(ctx context.Context) error {
	p.mu.Lock()
	wait, last := time.Until(p.notBefore), p.lastErr
	p.mu.Unlock()
	if wait <= 0 {
		return nil
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) < wait {
		return fmt.Errorf("plugin %s: restarting in %s after: %w", p.spec.Name, wait.Round(time.Millisecond), last)
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("plugin %s: waiting to restart: %w", p.spec.Name, context.Cause(ctx))
	}
}

// launch starts a process, running the file openBinary vouched for, and
// completes the handshake.
func (p *Plugin) launch() (*plugin.Client, *pluginapi.Conn, error) {
	bin, err := p.openBinary()
	if err != nil {
		return nil, nil, err
	}
	defer bin.Close() // the process holds its own descriptor once started
	proc := plugin.NewClient(p.clientConfig(bin))
	rpc, err := proc.Client()
	if err != nil {
		stop(proc, killGrace)
		return nil, nil, p.startError(err)
	}
	raw, err := rpc.Dispense(pluginapi.PluginName)
	if err != nil {
		stop(proc, killGrace)
		return nil, nil, p.startError(err)
	}
	conn, ok := raw.(*pluginapi.Conn)
	if !ok {
		stop(proc, killGrace)
		return nil, nil, fmt.Errorf("plugin %s: dispensed %T", p.spec.Name, raw)
	}
	return proc, conn, nil
}

func (p *Plugin) clientConfig(bin *binary) *plugin.ClientConfig {
	cmd := exec.Command(p.spec.Path, p.spec.Args...)
	execByDescriptor(cmd, bin.f) // the file hashed, not the one now at the path
	cmd.Env = p.environment()
	logger := newHCLog(p.log)
	logger.execPath, logger.path = cmd.Path, p.spec.Path
	return &plugin.ClientConfig{
		HandshakeConfig:  pluginapi.Handshake,
		VersionedPlugins: pluginapi.HostPlugins(),
		Cmd:              cmd,
		// The environment is cmd.Env alone: InheritedEnv, not the host's.
		SkipHostEnv: true,
		// No SecureConfig: go-plugin would hash the file at Cmd.Path again,
		// after openBinary hashed the one that runs.
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		AutoMTLS:         true,
		Managed:          true,
		StartTimeout:     p.l.opts.StartTimeout,
		Logger:           logger,
		SyncStdout:       logger.StandardWriter(nil),
		SyncStderr:       logger.StandardWriter(nil),
		GRPCDialOptions:  pluginapi.DialOptions(),
	}
}

// startError names the plugin, and for a version mismatch the versions
// this host speaks.
func (p *Plugin) startError(err error) error {
	if strings.Contains(err.Error(), "incompatible API version") {
		return fmt.Errorf("plugin %s: %w; this zarrgw speaks plugin protocol version(s) %v: rebuild the plugin against a matching pluginapi", p.spec.Name, err, pluginapi.ProtocolVersions)
	}
	return fmt.Errorf("plugin %s: %w: start %s: %w", p.spec.Name, ErrUnavailable, p.spec.Path, err)
}

// close ends the process for good.
func (p *Plugin) close() {
	p.mu.Lock()
	proc, conn := p.proc, p.conn
	p.proc, p.conn, p.state = nil, nil, Closed
	p.mu.Unlock()
	if proc != nil {
		stop(proc, killGrace)
		conn.Release()
	}
}

// killGrace is how long a plugin asked to end has to exit before it is
// killed outright.
const killGrace = 3 * time.Second

// stop ends a plugin process: gracefully if it exits within grace, else
// with SIGKILL. go-plugin's Kill asks the plugin to shut down and waits
// for it to exit, with no limit: a hung plugin would hold it forever.
func stop(proc *plugin.Client, grace time.Duration) {
	done := make(chan struct{})
	go func() {
		proc.Kill()
		close(done)
	}()
	timer := time.NewTimer(grace)
	defer timer.Stop()
	select {
	case <-done:
		return
	case <-timer.C:
	}
	// Not reaped yet (Exited is false), so the pid is still our child's.
	if rc := proc.ReattachConfig(); rc != nil && rc.Pid > 0 && !proc.Exited() {
		if pr, err := os.FindProcess(rc.Pid); err == nil {
			pr.Kill()
		}
	}
	<-done
}

// mismatch is the error for a binary that does not match its pin: both
// checksums, and the spec's remedy.
func (p *Plugin) mismatch(actual string) error {
	return p.unpinned("%s has sha256 %s, which does not match its pinned sha256 %s", p.spec.Path, actual, p.spec.SHA256)
}
