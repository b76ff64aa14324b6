// Logging and progress reports, sent through the host to the client.

package mcp

import "fmt"

// Level is a log message's severity, as in syslog and MCP.
type Level uint8

// The levels, from the least to the most severe.
const (
	Debug Level = iota
	Info
	Notice
	Warning
	Error
	Critical
	Alert
	Emergency
)

// Logf writes a message, formatted as by fmt.Sprintf, to the server's log
// and to the client as notifications/message (logger PLUGIN/TOOL). Never
// log secrets.
func Logf(level Level, format string, args ...any) {
	hostLog(level, fmt.Sprintf(format, args...))
}

// Progress reports how far the call has got: progress should grow with
// each report (the host drops reports that do not); total is the value it
// reaches when done, or 0 if unknown; message says what is happening, or
// is empty. A client that sent a progress token sees them.
func Progress(progress, total float64, message string) {
	hostProgress(progress, total, message)
}
