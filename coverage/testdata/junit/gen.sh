#!/bin/sh
# gen.sh regenerates the JUnit fixtures read by coverage/junit_test.go by
# running the real tools on the tiny projects under src/, and records in
# totals.txt the summary line each tool printed on its console. The test
# asserts that ReadJUnit reproduces those totals.
#
# Needs: go, node 20 + npm (jest 29, jest-junit 16, vitest 3 are installed
# into a scratch directory, never here), python3 with pytest
# (Debian: apt-get install python3-pytest; set PYTHON to pick the
# interpreter), and on PATH:
#   gotestsum v1.12.0        — its go.mod pins golang.org/x/tools v0.19.0,
#                              which no longer builds with Go ≥ 1.25; build it
#                              with a newer x/tools:
#       mkdir /tmp/gts && cd /tmp/gts && go mod init gts &&
#       go get gotest.tools/gotestsum@v1.12.0 golang.org/x/tools@v0.30.0 &&
#       go install gotest.tools/gotestsum
#   go-junit-report v2.1.0   — go install github.com/jstemmer/go-junit-report/v2@v2.1.0
#
# The Surefire fixtures under surefire/ are written by hand (see README.md).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/gcloop-junit # fixed, so that paths inside the reports are stable
rm -rf "$work"
mkdir -p "$work"
totals="$work/totals.txt"
: >"$totals"

# record FIXTURE LINE: the tool's own summary line for a fixture.
record() {
	printf '%s\t%s\n' "$1" "$2" >>"$totals"
}

# --- Go: gotestsum and go-junit-report --------------------------------------
cd "$here/src/go"
gotestsum --junitfile "$here/gotestsum.xml" --format standard-quiet -- -trimpath -count=1 ./... \
	>"$work/gotestsum.txt" 2>&1 || true
record gotestsum.xml "$(grep '^DONE ' "$work/gotestsum.txt")"

go test -v -trimpath -count=1 ./... >"$work/go-test-v.txt" 2>&1 || true
go-junit-report <"$work/go-test-v.txt" >"$here/go-junit-report.xml"
# go-junit-report prints no summary; go test -v prints one line per test.
record go-junit-report.xml "go test -v: $(grep -cE '^ *--- PASS:' "$work/go-test-v.txt") passed, $(grep -cE '^ *--- FAIL:' "$work/go-test-v.txt") failed, $(grep -cE '^ *--- SKIP:' "$work/go-test-v.txt") skipped"

# --- Jest + jest-junit, Vitest ----------------------------------------------
mkdir -p "$work/js"
cp "$here/src/js/package.json" "$here/src/js/"*.js "$work/js/"
cd "$work/js"
npm install --no-audit --no-fund --save-dev jest@29 jest-junit@16 vitest@3 >"$work/npm.txt" 2>&1

JEST_JUNIT_OUTPUT_DIR="$work" JEST_JUNIT_OUTPUT_NAME=jest-junit.xml JEST_JUNIT_ADD_FILE_ATTRIBUTE=true \
	npx jest --ci --testMatch '**/*.jest.test.js' --reporters=default --reporters=jest-junit \
	>"$work/jest.txt" 2>&1 || true
cp "$work/jest-junit.xml" "$here/jest-junit.xml"
record jest-junit.xml "$(grep '^Tests:' "$work/jest.txt")"

NO_COLOR=1 npx vitest run --reporter=default --reporter=junit --outputFile="$work/vitest.xml" math.vitest \
	>"$work/vitest.txt" 2>&1 || true
cp "$work/vitest.xml" "$here/vitest.xml"
record vitest.xml "$(grep -E '^ +Tests ' "$work/vitest.txt" | sed 's/^ *//')"

# --- pytest, both JUnit families ---------------------------------------------
mkdir -p "$work/py"
cp "$here/src/py/test_demo.py" "$work/py/"
cd "$work/py"
for family in xunit1 xunit2; do
	"${PYTHON:-python3}" -m pytest -p no:cacheprovider --tb=short -o junit_family=$family -o junit_suite_name=demo \
		--junitxml="$here/pytest-$family.xml" test_demo.py >"$work/pytest-$family.txt" 2>&1 || true
	record "pytest-$family.xml" "$(tail -n 1 "$work/pytest-$family.txt" | tr -d '=' | sed 's/^ *//;s/ *$//')"
done

# --- hand-written fixtures: their totals are in README.md --------------------
grep -E '^surefire/' "$here/totals.txt" >>"$totals" || true

cp "$totals" "$here/totals.txt"
echo "fixtures and totals written to $here"
