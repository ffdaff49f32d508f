package redact

import (
	"context"
	"log/slog"
)

// Logger is logger with the sensitive values hidden in every message and
// string attribute (Text): the errors a command or the gateway logs quote
// stores' roots and endpoints, which may come from sensitive variables.
// A nil Redactor returns logger.
func (r *Redactor) Logger(logger *slog.Logger) *slog.Logger {
	if logger == nil || r == nil {
		return logger
	}
	if h, ok := logger.Handler().(redacting); ok && h.r == r {
		return logger
	}
	return slog.New(redacting{logger.Handler(), r})
}

// redacting is a slog.Handler that redacts what it passes on.
type redacting struct {
	slog.Handler
	r *Redactor
}

func (h redacting) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, h.r.Text(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h redacting) WithAttrs(attrs []slog.Attr) slog.Handler {
	out := make([]slog.Attr, len(attrs))
	for i, a := range attrs {
		out[i] = h.attr(a)
	}
	return redacting{h.Handler.WithAttrs(out), h.r}
}

func (h redacting) WithGroup(name string) slog.Handler {
	return redacting{h.Handler.WithGroup(name), h.r}
}

// attr is a with its strings (and errors, as their text) redacted.
func (h redacting) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, h.r.Text(v.String()))
	case slog.KindGroup:
		group := v.Group()
		out := make([]any, len(group))
		for i, g := range group {
			out[i] = h.attr(g)
		}
		return slog.Group(a.Key, out...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, h.r.Text(err.Error()))
		}
	}
	return a
}
