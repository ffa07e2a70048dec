package coverage

import (
	"strings"
	"testing"
)

func TestSniff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Format
	}{
		{"a Go profile", "mode: atomic\na.go:1.1,2.2 1 1\n", FormatGoProfile},
		{"a Go profile with a byte order mark", "\xef\xbb\xbfmode: set\n", FormatGoProfile},
		{"an LCOV file starting with TN", "TN:\nSF:a.c\n", FormatLCOV},
		{"an LCOV file starting with SF", "SF:a.c\nDA:1,1\n", FormatLCOV},
		{"gcovr's Cobertura with a DOCTYPE", "<?xml version='1.0'?>\n<!DOCTYPE coverage SYSTEM 'x'>\n<coverage>", FormatCobertura},
		{"coverage.py's Cobertura", "<?xml version=\"1.0\" ?>\n<coverage version=\"6.5\">\n\t<!-- c -->", FormatCobertura},
		{"a JaCoCo report", jacocoHead + "<report name=\"x\">", FormatJaCoCo},
		{"Istanbul's Clover, by its clover attribute", "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<coverage generated=\"1\" clover=\"3.2.0\">", FormatClover},
		{"PHPUnit's Clover, by its project child", "<?xml version=\"1.0\"?>\n<coverage generated=\"1\">\n  <!-- x -->\n  <project timestamp=\"1\">", FormatClover},
		{"a Cobertura root with a projects-like child is Cobertura", "<coverage><projects>", FormatCobertura},
		{"a Cobertura attribute ending in clover is Cobertura", "<coverage noclover=\"1\"><sources>", FormatCobertura},
		{"JUnit testsuites", "<?xml version=\"1.0\"?>\n<!-- gotestsum -->\n<testsuites>", FormatJUnit},
		{"JUnit testsuite", "<testsuite name=\"x\">", FormatJUnit},
		{"a run json", `{"layer": "L1", "pass_rate": 1}`, FormatRunJSON},
		{"other JSON", `{"findings": []}`, ""},
		{"other XML", "<html>", ""},
		{"an unknown mode", "mode: sometimes\n", ""},
		{"prose", "hello\n", ""},
		{"nothing", "", ""},
		{"an unterminated comment", "<!-- ", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := Sniff([]byte(tt.in)); got != tt.want {
				t.Errorf("Sniff = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestReadDispatchesOnContent(t *testing.T) {
	t.Parallel()
	tests := []struct {
		fixture string
		want    Format
	}{
		{"go/set.out", FormatGoProfile},
		{"lcov/c.info", FormatLCOV},
		{"cobertura/gcovr.xml", FormatCobertura},
		{"cobertura/python.xml", FormatCobertura},
		{"jacoco/demo.xml", FormatJaCoCo},
		{"jacoco/gcovr.xml", FormatJaCoCo},
		{"clover/jest.xml", FormatClover},
		{"clover/phpunit.xml", FormatClover},
		{"clover/gcovr.xml", FormatClover},
	}
	for _, tt := range tests {
		t.Run(tt.fixture, func(t *testing.T) {
			t.Parallel()
			e, f, err := ReadFormat("x", strings.NewReader(string(readFixture(t, tt.fixture))))
			if err != nil {
				t.Fatal(err)
			}
			if f != tt.want || e.Coverage == nil || e.Coverage.Format != string(tt.want) || e.Coverage.Total == 0 {
				t.Errorf("format %q, coverage %+v; want %q", f, e.Coverage, tt.want)
			}
		})
	}
	e, err := Read("run-L2.json", strings.NewReader(`{"layer":"L2","coverage":55.5,"tests_passed":1,"tests_failed":0}`))
	if err != nil || e.Coverage == nil || e.Tests == nil || *e.Coverage.Percent != 55.5 {
		t.Errorf("run json: %+v, %v", e, err)
	}
}

func TestReadRefusesUnknownContent(t *testing.T) {
	t.Parallel()
	_, err := Read("notes.txt", strings.NewReader("hello\n"))
	checkParseError(t, err, "notes.txt:1: unknown format")
	_, err = Read("empty", strings.NewReader(""))
	checkParseError(t, err, "empty: byte 0: empty file")
}
