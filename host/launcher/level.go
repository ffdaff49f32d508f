package launcher

import (
	"context"
	"log/slog"
)

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
