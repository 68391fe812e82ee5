package main

import (
	"flag"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/rs/zerolog"
	"github.com/rs/zerolog/log"

	"github.com/mgpu-sim/mgpu/platform"
)

// logLevels are the --log-level values, most verbose first.
var logLevels = []zerolog.Level{zerolog.TraceLevel, zerolog.DebugLevel, zerolog.InfoLevel, zerolog.WarnLevel, zerolog.ErrorLevel}

const logLevelUsage = "log level: trace (adds fault batches), debug (adds kernel launches, policy and phase changes, SUV's placements), info, warn, error"

// addLogLevelFlag defines --log-level, warn by default.
func addLogLevelFlag(fs *flag.FlagSet, level *string) {
	fs.StringVar(level, "log-level", "warn", logLevelUsage)
}

// parseLogLevel accepts exactly the names in logLevels.
func parseLogLevel(s string) (zerolog.Level, error) {
	names := make([]string, len(logLevels))
	for i, l := range logLevels {
		if s == l.String() {
			return l, nil
		}
		names[i] = l.String()
	}
	return zerolog.NoLevel, badInput("--log-level %q: valid levels are %s", s, strings.Join(names, ", "))
}

// setupLogging parses level and makes the process log at it to stderr:
// zerolog's console format, coloured only when stderr is a terminal,
// with the simulations' events (platform.SetLogger) among them. It
// returns stderr wrapped so that a log line never lands in the middle of
// a progress line; write every later message through it.
func setupLogging(level string, stderr io.Writer) (*terminal, error) {
	lvl, err := parseLogLevel(level)
	if err != nil {
		return nil, err
	}
	t := newTerminal(stderr)
	installLogger(lvl, t)
	return t, nil
}

// installLogger sends log.Logger and the platform's logger to t at lvl.
func installLogger(lvl zerolog.Level, t *terminal) {
	zerolog.SetGlobalLevel(lvl)
	l := zerolog.New(zerolog.ConsoleWriter{Out: logSide{t}, NoColor: !t.tty, TimeFormat: "15:04:05"}).With().Timestamp().Logger()
	log.Logger = l
	platform.SetLogger(l)
}

// isTerminal reports whether w is a character device (a terminal); a
// pipe, a file or a buffer is not.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// terminal is stderr shared by log lines, plain messages and a one-line
// status (run's progress, sweep's bar) that is rewritten in place with
// "\r". Writes are serialized. A log line first erases a status line of
// run's own, or ends a foreign one (sweep's bar) with a newline, so that
// it starts at the beginning of a line; the status is redrawn by its next
// update.
type terminal struct {
	mu      sync.Mutex
	w       io.Writer
	tty     bool
	status  int  // width of run's status line on screen, 0 if none
	midLine bool // the last write did not end its line
}

func newTerminal(w io.Writer) *terminal {
	if t, ok := w.(*terminal); ok {
		return t
	}
	return &terminal{w: w, tty: isTerminal(w)}
}

// Write passes plain output through, after erasing run's status line.
func (t *terminal) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clear()
	return t.write(p)
}

func (t *terminal) write(p []byte) (int, error) {
	if len(p) > 0 {
		t.midLine = p[len(p)-1] != '\n'
	}
	return t.w.Write(p)
}

// setStatus shows line as the status line, replacing the one shown.
func (t *terminal) setStatus(line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	pad := max(t.status-len(line), 0)
	t.write([]byte("\r" + line + strings.Repeat(" ", pad)))
	t.status = len(line)
}

// clearStatus erases the status line, leaving the cursor at its start.
func (t *terminal) clearStatus() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clear()
}

func (t *terminal) clear() {
	if t.status > 0 {
		t.w.Write([]byte("\r" + strings.Repeat(" ", t.status) + "\r"))
		t.status, t.midLine = 0, false
	}
}

// logSide is the terminal as the logger writes to it.
type logSide struct{ t *terminal }

func (l logSide) Write(p []byte) (int, error) {
	t := l.t
	t.mu.Lock()
	defer t.mu.Unlock()
	t.clear()
	if t.midLine { // a status line not run's own: keep it, below it
		t.w.Write([]byte("\n"))
		t.midLine = false
	}
	return t.write(p)
}
