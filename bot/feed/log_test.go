package feed

import (
	"encoding/json"
	"io"
	"log/slog"
)

func discard() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
