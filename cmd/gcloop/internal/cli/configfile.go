package cli

import (
	"fmt"
	"os"

	"github.com/gcloop/gcloop/bot/config"
)

// readConfigFile reads and parses a configuration file.
func readConfigFile(path string) (*config.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", path, unwrapPathError(err))
	}
	defer f.Close()
	return config.Parse(path, f)
}
