package pluginapi

import (
	"log/slog"
	"os"
	"strings"

	"github.com/hashicorp/go-hclog"
)

// stderr is the process's real standard error, taken before go-plugin
// points os.Stderr at its stdio stream: the host reads log lines from it
// and files them under the plugin's name.
var stderr = os.Stderr

// LogLevelEnv is the environment variable through which the host passes
// its log level ("debug", "info", "warn", "error") to plugins.
const LogLevelEnv = "ZARRGW_PLUGIN_LOG_LEVEL"

func logLevel() string {
	if l := os.Getenv(LogLevelEnv); l != "" {
		return strings.ToLower(l)
	}
	return "info"
}

// hclogger is go-plugin's own logger in the plugin: hclog JSON on stderr.
func hclogger() hclog.Logger {
	return hclog.New(&hclog.LoggerOptions{
		Output:     stderr,
		JSONFormat: true,
		Level:      hclog.LevelFromString(logLevel()),
	})
}

// Logger returns a logger for plugin code. It writes hclog's JSON lines
// to stderr, which the host parses and logs under the plugin's name at the
// same level. Never log to stdout: it carries the handshake.
func Logger() *slog.Logger {
	level := slog.LevelDebug - 4 // trace
	if name := logLevel(); name != "trace" && level.UnmarshalText([]byte(name)) != nil {
		level = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level, ReplaceAttr: hclogKeys}))
}

// hclogKeys renames slog's built-in keys to those go-plugin's host parses.
func hclogKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		return slog.String("@timestamp", a.Value.Time().Format("2006-01-02T15:04:05.000000Z07:00"))
	case slog.LevelKey:
		return slog.String("@level", strings.ToLower(a.Value.String()))
	case slog.MessageKey:
		return slog.String("@message", a.Value.String())
	}
	return a
}
