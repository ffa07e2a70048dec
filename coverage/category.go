package coverage

import (
	"regexp"
	"strings"

	"github.com/gcloop/gcloop/internal/lazyre"
)

// Failure categories of DESIGN §2.5.
const (
	CategoryAssertion = "assertion_mismatch"
	CategoryImport    = "missing_import"
	CategoryNull      = "null_reference"
	CategoryTiming    = "async_timing"
	CategoryMock      = "mock_issue"
	CategoryType      = "type_error"
	CategoryOther     = "other"
)

// Categories lists the failure categories in the order Categorize tries
// them, then CategoryOther.
var Categories = []string{CategoryImport, CategoryTiming, CategoryNull, CategoryMock, CategoryType, CategoryAssertion, CategoryOther}

// catRule is one category with the markers that select it. A marker is
// matched case-sensitively as a substring; exprs are regular expressions,
// each run only when its lower-case literal occurs in the lowered message
// (regular expressions over a long message are slow, and most fail).
type catRule struct {
	category string
	markers  []string
	exprs    []catExpr
}

// catExpr is a regular expression with a literal it cannot match without.
type catExpr struct {
	need string                // lower case
	re   func() *regexp.Regexp // compiled on first use
}

func catRE(need, expr string) catExpr { return catExpr{need, lazyre.New(expr)} }

// catRules are tried in order; the first rule with a matching marker wins.
var catRules = []catRule{
	{CategoryImport, []string{
		"cannot find package", "no required module provides package", "could not import ",
		"Cannot find module", "Cannot find package", "Module not found", "Failed to resolve import",
		"ModuleNotFoundError", "ImportError", "No module named",
		"ClassNotFoundException", "NoClassDefFoundError", "package does not exist", "cannot find symbol",
		"TS2307", "TS2304", "TS2305", "TS2306",
		"ERR_MODULE_NOT_FOUND",
	}, []catExpr{
		catRE("undefined: ", `(^|[\s:])undefined: [\pL_]`),                      // Go compiler
		catRE("is not defined", `(ReferenceError|NameError): .*is not defined`), // JS, Python
	}},
	{CategoryTiming, []string{
		"context deadline exceeded", "test timed out after", "panic: test timed out",
		"Exceeded timeout of", "Test timed out in", "Timeout - Async callback was not invoked",
		"Hook timed out in", "Timed out in waitFor", "deadlock detected", "execution exceeded timeout",
		"asyncio.TimeoutError", "asyncio.exceptions.TimeoutError", "TimeoutError", "Failed: Timeout >",
		"TimeoutException", "timed out after", "all goroutines are asleep", "DeadlineExceeded",
	}, []catExpr{
		catRE("timeout of ", `(?i)\btimeout of \d+ ?ms\b`), // Mocha
	}},
	{CategoryNull, []string{
		"nil pointer dereference", "invalid memory address", "assignment to entry in nil map",
		"Cannot read properties of undefined", "Cannot read properties of null",
		"Cannot set properties of undefined", "Cannot set properties of null",
		"Cannot destructure property", "undefined is not an object", "null is not an object",
		"'NoneType' object", "NullPointerException", "NullReferenceException",
		"Object is possibly 'undefined'", "Object is possibly 'null'", "TS2531", "TS2532", "TS18047", "TS18048",
	}, []catExpr{
		catRE("cannot read property", `Cannot read property '[^']*' of (undefined|null)`), // older V8
	}},
	{CategoryMock, []string{
		"Unexpected call", "missing call(s)", "aborting test due to missing calls", "expectation(s) were met",
		"mock: I don't know what to return", "mock: Unexpected Method Call", "The code you are testing needs to make",
		"expected to have been called", "to have been called", "toHaveBeenCalled", "toHaveBeenLastCalledWith",
		"Expected number of calls", "Expected mock function", "jest.fn()", "to be called",
		"Expected call", "was not called", "expected call not found", "not have been called", "to be awaited", "assert_called", "assert_any_call",
		"Wanted but not invoked", "org.mockito.exceptions", "UnnecessaryStubbingException",
		"Actually, there were zero interactions", "TooManyActualInvocations", "NeverWantedButInvoked",
		"WrongTypeOfReturnValue", "InvalidUseOfMatchersException",
	}, nil},
	{CategoryType, []string{
		"TypeError", "is not a function", "is not a constructor", "is not iterable",
		"ClassCastException", "interface conversion:", "cannot use ", "mismatched types", "invalid operation:",
		"is not assignable to", "does not exist on type", "Argument of type", "TS2339", "TS2345", "TS2322", "TS2551", "TS2554", "TS2769",
		"AttributeError", "incompatible types", "IllegalArgumentException: argument type mismatch",
	}, nil},
	{CategoryAssertion, []string{
		"Error Trace:", "Not equal:", "Should be true", "Should be false", "Should be empty", "Should not be",
		"expect(", "Expected:", "Received:", "toEqual", "toStrictEqual", "toMatch",
		"AssertionError", "AssertionFailedError", "ComparisonFailure", "AssertionFailure", "assert ",
		"but was:", "expected:<", "Expected: ", "did not match", "are not equal",
	}, []catExpr{
		catRE("want", `(?i)\bgot\b.*\bwant\b|\bwant\b.*\bgot\b|=[^\n]*, want\b`),                                             // Go testing
		catRE("expected", `(?i)\bexpected\b.*\b(to (be|equal|deeply equal|have|contain|include|match)|but (got|was|found))`), // chai, Java
		catRE("actual", `(?i)\bexpected\b.*\bactual\b`),
	}},
}

// Categorize returns the DESIGN §2.5 category of a test failure message from
// Go (testing, testify, gomock), Jest/Vitest, pytest, JUnit/Java (JUnit 4/5,
// AssertJ, Mockito) or the TypeScript compiler: one of the Category
// constants.
//
// The categories are tried in this order, the first match winning, because
// one failure often carries several symptoms and the earlier cause is the
// one to fix:
//
//  1. missing_import — a module, package or class that cannot be found
//     (ModuleNotFoundError, "Cannot find module", TS2307, Go "undefined: x")
//     stops everything after it, so it comes first.
//  2. async_timing — a timeout ("Exceeded timeout of 5000 ms", "context
//     deadline exceeded", asyncio.TimeoutError) wins over the nil pointer or
//     failed expectation it leaves behind.
//  3. null_reference — nil/null/undefined/None dereferences. It precedes
//     type_error: "TypeError: Cannot read properties of undefined" and
//     "AttributeError: 'NoneType' object has no attribute" are null
//     references, not type errors.
//  4. mock_issue — a mock called unexpectedly or not at all. It precedes
//     assertion_mismatch because mocks report through assertions
//     ("AssertionError: Expected 'x' to be called once").
//  5. type_error — TypeError, ClassCastException, TS2339/TS2345, Go's
//     "cannot use" and interface conversion panics.
//  6. assertion_mismatch — an expected value differs from the actual one
//     (got/want, testify's "Not equal", expect(received).toBe(expected),
//     AssertionError, "expected: <1> but was: <2>").
//  7. other — anything else, including an empty message.
func Categorize(message string) string {
	if len(message) > catMaxInput {
		message = message[:catMaxInput]
	}
	lower := ""
	for _, r := range catRules {
		for _, m := range r.markers {
			if strings.Contains(message, m) {
				return r.category
			}
		}
		for _, e := range r.exprs {
			if lower == "" {
				lower = strings.ToLower(message)
			}
			if strings.Contains(lower, e.need) && e.re().MatchString(message) {
				return r.category
			}
		}
	}
	return CategoryOther
}

// catMaxInput bounds the text Categorize looks at.
const catMaxInput = 16 << 10
