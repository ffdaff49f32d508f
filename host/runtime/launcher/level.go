package launcher

import (
	"context"
	"log/slog"

	"github.com/zarrgw/zarrgw/pluginapi"
)

// pluginapiLogLevel is the environment entry passing p's log level.
func pluginapiLogLevel(p *Plugin) string { return pluginapi.LogLevelEnv + "=" + levelName(p.log) }

// levelName is the lowest level l logs, passed to plugins so that they do
// not produce lines the host would drop.
func levelName(l *slog.Logger) string {
	ctx := context.Background()
	for _, c := range []struct {
		level slog.Level
		name  string
	}{{slog.LevelDebug - 4, "trace"}, {slog.LevelDebug, "debug"}, {slog.LevelInfo, "info"}, {slog.LevelWarn, "warn"}} {
		if l.Enabled(ctx, c.level) {
			return c.name
		}
	}
	return "error"
}
