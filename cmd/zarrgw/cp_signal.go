package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/zarrgw/zarrgw/host/app"
)

// signalWatch ends a copy's context on SIGINT or SIGTERM and remembers
// which came first: the exit status (128 + its number) and the message
// depend on it, and main's own handler only cancels.
type signalWatch struct {
	ch     chan os.Signal
	first  chan os.Signal
	cancel context.CancelFunc
}

func watchSignals(parent context.Context) (context.Context, *signalWatch) {
	ctx, cancel := context.WithCancel(parent)
	w := &signalWatch{ch: make(chan os.Signal, 2), first: make(chan os.Signal, 1), cancel: cancel}
	signal.Notify(w.ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		for s := range w.ch {
			select {
			case w.first <- s:
			default: // a later one: the copy is stopping already
			}
			cancel()
		}
	}()
	return ctx, w
}

func (w *signalWatch) stop() {
	signal.Stop(w.ch)
	close(w.ch)
	w.cancel()
}

// received returns the signal that ended ctx, nil if none did. Every
// handler gets a signal, in no set order, so main's may have cancelled
// ctx first: ours is then waited for a moment.
func (w *signalWatch) received(ctx context.Context) os.Signal {
	if ctx.Err() == nil {
		return nil
	}
	select {
	case s := <-w.first:
		return s
	case <-time.After(time.Second):
		return nil
	}
}

// interruption is a copy stopped by a signal: everything is closed and
// the journal kept; it says how to resume, and its exit status is the
// shell's for that signal.
type interruption struct {
	sig     os.Signal
	dryRun  bool
	summary *app.CopySummary // nil: stopped before copying began
	resume  string
}

func newInterruption(sig os.Signal, dryRun bool, s *app.CopySummary) *interruption {
	return &interruption{sig: sig, dryRun: dryRun, summary: s, resume: resumeCommand(os.Args)}
}

func (e *interruption) ExitCode() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

func (e *interruption) Error() string {
	name := signalName(e.sig)
	switch {
	case e.dryRun:
		return fmt.Sprintf("cp: dry run interrupted by %s; nothing was written", name)
	case e.summary == nil:
		return fmt.Sprintf("cp: interrupted by %s before copying began; nothing was written; to copy, run the same command again: %s", name, e.resume)
	}
	return fmt.Sprintf("cp: interrupted by %s after %d copied (%d done before), kept in its journal; to resume, run the same command again: %s",
		name, e.summary.Copied, e.summary.Skipped, e.resume)
}

func signalName(sig os.Signal) string {
	switch sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// resumeCommand is the command line as given, which resumes the copy,
// without --fresh (which would start it over), quoted for a shell.
func resumeCommand(args []string) string {
	var out []string
	for _, a := range args {
		if isFreshFlag(a) {
			continue
		}
		out = append(out, shellQuote(a))
	}
	return strings.Join(out, " ")
}

func isFreshFlag(a string) bool {
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return strings.HasPrefix(a, "-") && name == "fresh"
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=@%+,-]+$`)

// shellQuote quotes an argument for a POSIX shell where it needs it.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
