package main

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/mgpu-sim/mgpu/atomicfile"
)

// handover counts the handlers of SIGINT and SIGTERM of a command's own
// (a sweep finishes or abandons its runs in flight): while there is one,
// stopOnSignal leaves the signals to it.
var handover struct {
	sync.Mutex
	active int
}

// takeSignals makes stopOnSignal leave SIGINT and SIGTERM to the caller
// until release.
func takeSignals() (release func()) {
	handover.Lock()
	handover.active++
	handover.Unlock()
	return func() {
		handover.Lock()
		handover.active--
		handover.Unlock()
	}
}

// stopOnSignal makes SIGINT and SIGTERM, while cmd runs, remove the
// temporary files of the writes under way and say on stderr what was
// stopped before the process exits 128+signal, as a shell reports it. Go's
// default exit does neither: it left run's hidden temporary result beside
// --out, and said nothing. release ends this when cmd returns.
func stopOnSignal(cmd string, stderr io.Writer) (release func()) {
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case s := <-ch:
				handover.Lock()
				mine := handover.active == 0
				handover.Unlock()
				if mine {
					stopNow(cmd, s, stderr)
				}
			case <-done:
				return
			}
		}
	}()
	return func() {
		signal.Stop(ch)
		close(done)
		setStage("")
	}
}

// stopNow abandons the writes under way, says so and exits.
func stopNow(cmd string, s os.Signal, stderr io.Writer) {
	name, code := signalName(s)
	msg := fmt.Sprintf("mgpu: %s stopped by %s", cmd, name)
	if doing := currentStage(); doing != "" {
		msg += " while " + doing
	}
	var removed []string
	for _, a := range atomicfile.Abandon() {
		removed = append(removed, fmt.Sprintf("%s (its temporary file %s removed)", a.Path, a.Temp))
	}
	if len(removed) > 0 {
		msg += "; not written: " + strings.Join(removed, ", ")
	}
	fmt.Fprintln(messageWriter(stderr), msg)
	os.Exit(code)
}

// signalName is "SIGINT" or "SIGTERM" and the exit status a shell gives
// a process that signal ended.
func signalName(s os.Signal) (string, int) {
	switch s {
	case os.Interrupt:
		return "SIGINT", 128 + int(syscall.SIGINT)
	case syscall.SIGTERM:
		return "SIGTERM", 128 + int(syscall.SIGTERM)
	}
	return s.String(), 1
}

// messageWriter writes a line below a status line (run's progress, a
// sweep's bar) rather than into it.
func messageWriter(stderr io.Writer) io.Writer {
	if t, ok := stderr.(*terminal); ok {
		return logSide{t}
	}
	return stderr
}

// stage says what a long command is doing, for the message of a signal
// that stops it.
var stage struct {
	sync.Mutex
	doing string
}

// setStage records what the command is doing now; "" for nothing to say.
func setStage(doing string) {
	stage.Lock()
	stage.doing = doing
	stage.Unlock()
}

func currentStage() string {
	stage.Lock()
	defer stage.Unlock()
	return stage.doing
}
