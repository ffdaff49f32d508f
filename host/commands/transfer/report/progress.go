package report

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
)

// Progress is told of a copy's work as it goes.
type Progress interface {
	// Start begins a phase of total units (keys, or array elements).
	Start(what string, total int64)
	// Add counts units done and the bytes they moved.
	Add(units, bytes int64)
	// Finish ends the phase.
	Finish()
}

// NewProgress reports to w: a bar on a terminal, a line every few seconds
// elsewhere (logs, CI), nothing when quiet.
func NewProgress(w io.Writer, terminal, quiet bool) Progress {
	switch {
	case quiet:
		return silent{}
	case terminal:
		return &bar{w: w}
	}
	return &lines{w: w, every: 2 * time.Second}
}

type silent struct{}

func (silent) Start(string, int64) {}
func (silent) Add(int64, int64)    {}
func (silent) Finish()             {}

// bar draws a progress bar: units done of total, bytes, rate, ETA.
type bar struct {
	w   io.Writer
	mu  sync.Mutex
	b   *progressbar.ProgressBar
	out int64
}

func (b *bar) Start(what string, total int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.out = 0
	b.b = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(b.w),
		progressbar.OptionSetDescription("cp "+what),
		progressbar.OptionShowCount(),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(b.w) }),
	)
}

func (b *bar) Add(units, bytes int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.out += bytes
	b.b.Describe(fmt.Sprintf("cp %s", Bytes(b.out)))
	b.b.Add64(units)
}

func (b *bar) Finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.b.Finish()
}

// lines prints a progress line now and then.
type lines struct {
	w     io.Writer
	every time.Duration

	mu          sync.Mutex
	what        string
	total, done int64
	bytes       int64
	start, last time.Time
}

func (l *lines) Start(what string, total int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.what, l.total, l.done, l.bytes = what, total, 0, 0
	l.start, l.last = time.Now(), time.Now()
}

func (l *lines) Add(units, bytes int64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.done += units
	l.bytes += bytes
	if time.Since(l.last) >= l.every {
		l.last = time.Now()
		l.print()
	}
}

func (l *lines) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.print()
}

func (l *lines) print() {
	took := time.Since(l.start)
	rate, eta := "", ""
	if took > 0 && l.bytes > 0 {
		rate = fmt.Sprintf(", %.1f MB/s", float64(l.bytes)/took.Seconds()/1e6)
	}
	if l.done > 0 && l.done < l.total {
		eta = fmt.Sprintf(", ETA %s", (time.Duration(float64(took) / float64(l.done) * float64(l.total-l.done))).Round(time.Second))
	}
	fmt.Fprintf(l.w, "cp: %d/%d %s, %s%s%s\n", l.done, l.total, l.what, Bytes(l.bytes), rate, eta)
}
