package launcher

import (
	"regexp"
	"strings"
	"sync"
	"time"
)

// panicQuiet is how long after its last line a panic's report is taken to
// be complete when nothing else ends it. Normally go-plugin's "plugin
// process exited", logged once stderr is drained, ends it first.
const panicQuiet = 500 * time.Millisecond

// maxPanicLines bounds a report, in case a plugin prints "panic: " and
// then goes on writing plain lines.
const maxPanicLines = 4000

// panicReport gathers the lines of a plugin's panic or fatal error, which
// go-plugin logs one per line (about two per stack frame), into one record
// that names the call that panicked.
type panicReport struct {
	mu    sync.Mutex
	lines []string
	timer *time.Timer
	emit  func(summary string, attrs []any)
}

// startsPanic reports whether line opens a Go panic or fatal error report.
func startsPanic(line string) bool {
	return strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")
}

// take offers one log line without attributes at error level, which is how
// go-plugin forwards the plain lines of a panic. It reports whether the
// line is part of a panic and so must not be logged on its own.
func (r *panicReport) take(line string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case startsPanic(line):
		r.flushLocked()
	case len(r.lines) == 0:
		return false
	}
	if len(r.lines) < maxPanicLines {
		r.lines = append(r.lines, line)
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(panicQuiet, r.flush)
	} else {
		r.timer.Reset(panicQuiet)
	}
	return true
}

// flush logs the report gathered so far, if any.
func (r *panicReport) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.flushLocked()
}

func (r *panicReport) flushLocked() {
	if len(r.lines) == 0 {
		return
	}
	lines := r.lines
	r.lines = nil
	if r.timer != nil {
		r.timer.Stop()
	}
	call, fn := panicSite(lines)
	value := strings.TrimPrefix(lines[0], "panic: ")
	attrs := []any{"panic", value, "call", call, "function", fn, "stack", strings.Join(lines, "\n")}
	r.emit("plugin panicked in "+call+" ("+fn+"): "+value, attrs)
}

// serviceMethod matches pluginapi's gRPC handlers in a stack frame, such
// as "github.com/.../pluginapi.(*codecService).Batch.func1(...)": its
// service and an exported method (the handler, not a helper of it).
var serviceMethod = regexp.MustCompile(`pluginapi\.\(\*(\w+)Service\)\.([A-Z]\w*)`)

// panicSite names, from the stack of the goroutine that panicked, the
// plugin protocol call it was serving ("Codec/Batch") and the function
// that panicked: the frame below the last panic() frame (those above it
// are deferred functions that panicked again), else the first frame
// outside the Go runtime. Either is "?" when the stack does not say.
func panicSite(lines []string) (call, fn string) {
	call, fn = "?", "?"
	var frames []string
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "goroutine ") {
			if frames != nil {
				break // only the first goroutine's stack is the panic's
			}
			frames = []string{}
			continue
		}
		if frames != nil && l != "" && !strings.HasPrefix(l, "\t") && !strings.HasPrefix(l, "created by ") {
			frames = append(frames, l)
		}
	}
	for i, f := range frames {
		if strings.HasPrefix(f, "panic(") && i+1 < len(frames) {
			fn = frames[i+1]
		}
		if m := serviceMethod.FindStringSubmatch(f); m != nil && call == "?" {
			call = strings.ToUpper(m[1][:1]) + m[1][1:] + "/" + m[2]
		}
	}
	for _, f := range frames {
		if fn == "?" && !strings.HasPrefix(f, "runtime.") {
			fn = f
		}
	}
	if i := strings.LastIndexByte(fn, '('); i > 0 {
		fn = fn[:i]
	}
	return call, fn
}
