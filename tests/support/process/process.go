// Package process freezes a running process for tests that must observe
// or kill it at a point it has really reached, rather than after a guess
// at how long it takes to get there.
package process

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// Stop stops p (SIGSTOP) and returns once every one of its threads is
// stopped. The signal takes effect asynchronously, thread by thread (a
// thread inside a system call such as fsync stops when it returns), so
// until then the process may still change what a test looks at.
func Stop(p *os.Process) error {
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		return fmt.Errorf("stop %d: %w", p.Pid, err)
	}
	for {
		stopped, err := allStopped(p.Pid)
		if err != nil || stopped {
			return err
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// Continue lets a stopped p run again.
func Continue(p *os.Process) error {
	if err := p.Signal(syscall.SIGCONT); err != nil {
		return fmt.Errorf("continue %d: %w", p.Pid, err)
	}
	return nil
}

// allStopped reports whether every thread of pid is stopped; a process
// that has exited (a zombie, not yet waited for) is an error.
func allStopped(pid int) (bool, error) {
	tasks, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/stat", pid))
	if err != nil {
		return false, err
	}
	if len(tasks) == 0 {
		return false, fmt.Errorf("stop %d: no such process", pid)
	}
	for _, task := range tasks {
		stat, err := os.ReadFile(task)
		if err != nil {
			continue // the thread ended
		}
		switch state(stat) {
		case "T", "t":
		case "Z", "X":
			return false, fmt.Errorf("stop %d: it has exited", pid)
		default:
			return false, nil
		}
	}
	return true, nil
}

// state is the state field of a /proc stat line. It follows the command
// name in parentheses, which may itself hold spaces and parentheses.
func state(stat []byte) string {
	fields := bytes.Fields(stat[bytes.LastIndexByte(stat, ')')+1:])
	if len(fields) == 0 {
		return ""
	}
	return string(fields[0])
}
