// Package coverage reads test evidence: coverage reports and test results,
// in the formats real tools write, into the evidence model of package
// decide.
package coverage
