package server

import (
	"io"
	"log/slog"
)

// NewLogger is the bot's structured log: one JSON object per line on w.
func NewLogger(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: level}))
}
