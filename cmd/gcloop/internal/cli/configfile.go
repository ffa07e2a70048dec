package cli

import (
	"fmt"
	"os"

	"github.com/gcloop/gcloop/decide"
	"github.com/gcloop/gcloop/internal/config"
)

// applyConfigFile layers the loop's section of a configuration file over
// cfg. A missing section leaves cfg as it is.
func applyConfigFile(cfg *decide.Config, path string, loop decide.Loop, id string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("read config %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	file, err := config.Parse(path, f)
	if err != nil {
		return err
	}
	sec := file.Section(id)
	if sec == nil {
		return nil
	}
	if sec.Loop != loop {
		return &decide.ParseError{File: path, Line: sec.Line, Offset: -1,
			Msg: fmt.Sprintf("section %s is a %s loop, not %s", id, sec.Loop, loop)}
	}
	sec.Apply(cfg)
	return nil
}
