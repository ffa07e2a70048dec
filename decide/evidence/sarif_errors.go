// Error-level SARIF results as type errors or lint errors.

package evidence

import "strings"

func (sr *sarifReader) countError(run *sarifRun, ruleID string, isErr bool, n int) {
	if !isErr {
		return
	}
	if sarifIsTypeRule(ruleID) {
		run.errType += n
	} else {
		run.errOther += n
	}
}

// sarifTypeCheckers are tool names whose errors are type errors.
var sarifTypeCheckers = map[string]bool{
	"tsc": true, "typescript": true, "mypy": true, "pyright": true, "pytype": true,
	"flow": true, "pyre": true, "sorbet": true, "typecheck": true, "typechecker": true,
}

// sarifIsTypeChecker reports whether a tool (or checkstyle source) name
// names a type checker: one of its words is tsc, typescript, mypy, pyright,
// pytype, flow, pyre, sorbet or typecheck and none is a linter's
// ("eslint.rules.@typescript-eslint/..." is a linter), or it is a
// TypeScript diagnostic code such as TS2322.
func sarifIsTypeChecker(name string) bool {
	words := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	found := false
	for _, w := range words {
		if strings.Contains(w, "lint") {
			return false
		}
		found = found || sarifTypeCheckers[w]
	}
	if found {
		return true
	}
	return len(words) == 1 && sarifIsTSCode(words[0])
}

// sarifIsTSCode reports whether w is a TypeScript diagnostic code ("ts2322").
func sarifIsTSCode(w string) bool {
	if len(w) < 3 || !strings.HasPrefix(w, "ts") {
		return false
	}
	for _, r := range w[2:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// sarifIsTypeRule reports whether a rule id of a general linter stands for
// a type error (golangci-lint reports compile errors as "typecheck").
func sarifIsTypeRule(id string) bool {
	return strings.EqualFold(id, "typecheck") || sarifIsTSCode(strings.ToLower(id))
}
