package coverage

// Format names a coverage or test report format, as CoverageFacts.Format
// and the `coverage report` output carry it. The evidence registry
// (bot/evidence) tells formats apart and calls the readers; these names
// are the ones it uses.
type Format string

// The formats the readers of this package stamp on what they read.
const (
	FormatGoProfile Format = "goprofile"
	FormatLCOV      Format = "lcov"
	FormatCobertura Format = "cobertura"
	FormatJaCoCo    Format = "jacoco"
	FormatClover    Format = "clover"
	FormatRunJSON   Format = "run-json"
	FormatJUnit     Format = "junit"
)
