package launcher

import (
	"context"
	"io"
	"log"
	"log/slog"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// slogHCLog is go-plugin's logger on the host: it files everything go-plugin
// says about a plugin, and every log line the plugin writes to stderr
// (hclog JSON, parsed by go-plugin), into the host's slog logger, whose
// records already carry the plugin's name.
type slogHCLog struct {
	l     *slog.Logger
	name  string
	args  []any
	level hclog.Level
	// panics gathers a panic's lines into one record; shared by the
	// loggers go-plugin derives from this one.
	panics *panicReport
	// execPath is the name the process was started by
	// (/proc/self/fd/N), which go-plugin's records give as its path;
	// they are given path, the plugin's file, instead.
	execPath, path string
}

func newHCLog(l *slog.Logger) *slogHCLog {
	level := hclog.Info
	ctx := context.Background()
	switch {
	case l.Enabled(ctx, slog.LevelDebug-4):
		level = hclog.Trace
	case l.Enabled(ctx, slog.LevelDebug):
		level = hclog.Debug
	}
	panics := &panicReport{emit: func(msg string, attrs []any) {
		l.Log(context.Background(), slog.LevelError, msg, attrs...)
	}}
	return &slogHCLog{l: l, level: level, panics: panics}
}

func toSlog(level hclog.Level) slog.Level {
	switch level {
	case hclog.Trace:
		return slog.LevelDebug - 4
	case hclog.Debug:
		return slog.LevelDebug
	case hclog.Warn:
		return slog.LevelWarn
	case hclog.Error:
		return slog.LevelError
	}
	return slog.LevelInfo
}

func (h *slogHCLog) Log(level hclog.Level, msg string, args ...any) {
	if level < h.level || level == hclog.Off {
		return
	}
	if len(args) == 0 && level == hclog.Error && h.panics.take(msg) {
		return
	}
	h.panics.flush() // any other line ends a panic's report
	attrs := append(append([]any(nil), h.args...), args...)
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i] == "plugin" {
			attrs[i] = "path" // go-plugin's own "plugin" is the binary's path; ours is the name
		}
		if v, ok := attrs[i+1].(string); ok && v == h.execPath && h.execPath != "" {
			attrs[i+1] = h.path
		}
	}
	if h.name != "" {
		attrs = append(attrs, "logger", h.name)
	}
	h.l.Log(context.Background(), toSlog(level), msg, attrs...)
}

func (h *slogHCLog) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *slogHCLog) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *slogHCLog) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *slogHCLog) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *slogHCLog) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *slogHCLog) IsTrace() bool { return h.level <= hclog.Trace }
func (h *slogHCLog) IsDebug() bool { return h.level <= hclog.Debug }
func (h *slogHCLog) IsInfo() bool  { return h.level <= hclog.Info }
func (h *slogHCLog) IsWarn() bool  { return h.level <= hclog.Warn }
func (h *slogHCLog) IsError() bool { return h.level <= hclog.Error }

func (h *slogHCLog) ImpliedArgs() []any { return h.args }

func (h *slogHCLog) With(args ...any) hclog.Logger {
	c := *h
	c.args = append(append([]any(nil), h.args...), args...)
	return &c
}

func (h *slogHCLog) Name() string { return h.name }

func (h *slogHCLog) Named(name string) hclog.Logger {
	c := *h
	if c.name != "" {
		name = c.name + "." + name
	}
	c.name = name
	return &c
}

func (h *slogHCLog) ResetNamed(name string) hclog.Logger {
	c := *h
	c.name = name
	return &c
}

func (h *slogHCLog) SetLevel(level hclog.Level) { h.level = level }
func (h *slogHCLog) GetLevel() hclog.Level      { return h.level }

func (h *slogHCLog) StandardLogger(opts *hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(opts), "", 0)
}

func (h *slogHCLog) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	return &lineWriter{log: func(line string) { h.Info(line) }}
}

// lineWriter logs each line written to it: what a plugin prints to stdout
// or stderr after the handshake arrives through go-plugin's stdio stream.
type lineWriter struct {
	log  func(string)
	part string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	s := w.part + string(p)
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimRight(s[:i], "\r"); line != "" {
			w.log(line)
		}
		s = s[i+1:]
	}
	w.part = s
	return len(p), nil
}
