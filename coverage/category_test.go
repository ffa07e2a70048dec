package coverage

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// Messages marked "run" were captured from real runs here (the JUnit
// fixtures under testdata/junit, or one-off runs of go test, Jest 29,
// Vitest 3, pytest 7.2 and tsc 5); the others follow the tools' documented
// output.
func TestCategorize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, msg, want string
	}{
		// Go
		{"go testing got/want (run)", "calc_test.go:13: Sub(5, 3): got 3 want 2", CategoryAssertion},
		{"go testing = want", "calc_test.go:6: Add(2, 3) = 6, want 5", CategoryAssertion},
		{"testify Not equal", "Error Trace:\tcalc_test.go:12\n\tError:      \tNot equal: \n\t            \texpected: 5\n\t            \tactual  : 6\n\tTest:       \tTestAdd", CategoryAssertion},
		{"testify Should be true", "Error Trace:\tx_test.go:9\n\tError:      \tShould be true", CategoryAssertion},
		{"go nil pointer panic (run)", "panic: runtime error: invalid memory address or nil pointer dereference [recovered, repanicked]\n[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x52e323]", CategoryNull},
		{"go nil map write", "panic: assignment to entry in nil map", CategoryNull},
		{"go missing module (run)", "a_test.go:7:2: no required module provides package example.com/nothere; to add it:", CategoryImport},
		{"go cannot find package (GOPATH mode)", `cannot find package "github.com/x/y" in any of:`, CategoryImport},
		{"go undefined identifier (run)", "./a_test.go:5:32: undefined: Undefined", CategoryImport},
		{"go context deadline (run)", "a_test.go:10: context deadline exceeded", CategoryTiming},
		{"go test timeout (run)", "panic: test timed out after 1s\n\trunning tests:\n\t\tTestZ (1s)", CategoryTiming},
		{"go deadlock", "fatal error: all goroutines are asleep - deadlock!", CategoryTiming},
		{"gomock unexpected call", "Unexpected call to *mocks.MockStore.Get([42]) at store_test.go:30 because: there are no expected calls of the method \"Get\" for that receiver", CategoryMock},
		{"gomock missing calls", "missing call(s) to *mocks.MockStore.Put(is equal to 1) store_test.go:22\n    controller.go:269: aborting test due to missing calls", CategoryMock},
		{"testify mock expectations", "FAIL:\tSave(string)\n\t\tat: [store_test.go:14]\n    mock.go:344: FAIL: 0 out of 1 expectation(s) were met.", CategoryMock},
		{"go interface conversion panic (run)", "panic: interface conversion: interface {} is string, not int [recovered, repanicked]", CategoryType},
		{"go cannot use (run)", "./a_test.go:5:58: cannot use 5 (untyped int constant) as string value in variable declaration", CategoryType},

		// Jest and Vitest
		{"jest toBe (run)", "Error: expect(received).toBe(expected) // Object.is equality\n\nExpected: 6\nReceived: 7", CategoryAssertion},
		{"jest toEqual (run)", "expect(received).toEqual(expected) // deep equality", CategoryAssertion},
		{"vitest toBe (run)", "AssertionError: expected 7 to be 6 // Object.is equality", CategoryAssertion},
		{"jest missing module (run)", "Cannot find module './nope' from 'm.jest.test.js'", CategoryImport},
		{"vitest unresolved import", `Error: Failed to resolve import "./nope" from "src/a.test.ts". Does the file exist?`, CategoryImport},
		{"jest undefined property (run)", "TypeError: Cannot read properties of undefined (reading 'name')", CategoryNull},
		{"jest null property (run)", "TypeError: Cannot read properties of null (reading 'x')", CategoryNull},
		{"older node undefined property", "TypeError: Cannot read property 'length' of undefined", CategoryNull},
		{"jest timeout (run)", "Error: thrown: \"Exceeded timeout of 100 ms for a test.\nAdd a timeout value to this test to increase the timeout, if this is a long-running test.\"", CategoryTiming},
		{"jest default timeout", "thrown: \"Exceeded timeout of 5000 ms for a test.", CategoryTiming},
		{"vitest timeout (run)", "Error: Test timed out in 100ms.\nIf this is a long-running test, pass a timeout value as the last argument", CategoryTiming},
		{"vitest default timeout", "Error: Test timed out in 5000ms.", CategoryTiming},
		{"mocha timeout", "Error: Timeout of 2000ms exceeded. For async tests and hooks, ensure \"done()\" is called", CategoryTiming},
		{"jest.fn not called (run)", "Error: expect(jest.fn()).toHaveBeenCalled()\n\nExpected number of calls: >= 1\nReceived number of calls:    0", CategoryMock},
		{"jest.fn called with (run)", "expect(jest.fn()).toHaveBeenCalledWith(...expected)\nExpected: 2\nReceived: 1", CategoryMock},
		{"vitest spy not called (run)", `AssertionError: expected "spy" to be called at least once`, CategoryMock},
		{"sinon spy", "AssertionError: expected spy to have been called exactly once, but it was called twice", CategoryMock},
		{"not a function (run)", "TypeError: o.run is not a function", CategoryType},
		{"not a constructor", "TypeError: Foo is not a constructor", CategoryType},
		{"reference error (run)", "ReferenceError: foo is not defined", CategoryImport},

		// pytest
		{"pytest assert (run)", "assert 2 == 3\n +  where 2 = add(1, 1)", CategoryAssertion},
		{"pytest list assert (run)", "assert [1, 2] == [1, 3]\n  At index 1 diff: 2 != 3", CategoryAssertion},
		{"pytest AssertionError", "AssertionError: values differ", CategoryAssertion},
		{"pytest ModuleNotFoundError (run)", "ModuleNotFoundError: No module named 'nothere_mod'", CategoryImport},
		{"pytest ImportError (run)", "ImportError: cannot import name 'nothere_name' from 'os' (/usr/lib/python3.11/os.py)", CategoryImport},
		{"pytest NoneType attribute (run)", "AttributeError: 'NoneType' object has no attribute 'size'", CategoryNull},
		{"pytest NoneType subscript (run)", "TypeError: 'NoneType' object is not subscriptable", CategoryNull},
		{"pytest TypeError (run)", `TypeError: can only concatenate str (not "int") to str`, CategoryType},
		{"pytest AttributeError on a value", "AttributeError: 'int' object has no attribute 'append'", CategoryType},
		{"python 3.11 TimeoutError (run)", "TimeoutError", CategoryTiming},
		{"asyncio.TimeoutError", "asyncio.exceptions.TimeoutError", CategoryTiming},
		{"pytest-timeout", "Failed: Timeout >5.0s", CategoryTiming},
		{"unittest.mock called once (run)", "AssertionError: Expected 'mock' to have been called once. Called 0 times.", CategoryMock},
		{"unittest.mock to be called once", "AssertionError: Expected 'send' to be called once. Called 2 times.", CategoryMock},
		{"unittest.mock not called (run)", "AssertionError: Expected 'send' to not have been called. Called 1 times.\nCalls: [call()].", CategoryMock},
		{"unittest.mock called with (run)", "AssertionError: expected call not found.\nExpected: save(2)\nActual: save(1)", CategoryMock},
		{"pytest fixture error (run)", `failed on setup with "RuntimeError: fixture could not connect"`, CategoryOther},

		// JUnit / Java
		{"JUnit 5 assertEquals (run)", "org.opentest4j.AssertionFailedError: expected: <1> but was: <2>", CategoryAssertion},
		{"JUnit 4 assertEquals", "java.lang.AssertionError: expected:<1> but was:<2>", CategoryAssertion},
		{"AssertJ", "java.lang.AssertionError: \nExpecting actual:\n  2\nto be equal to:\n  1\nbut was not.", CategoryAssertion},
		{"NullPointerException (run)", `java.lang.NullPointerException: Cannot invoke "java.lang.Integer.intValue()" because "divisor" is null`, CategoryNull},
		{"ClassNotFoundException", "java.lang.ClassNotFoundException: com.example.Missing", CategoryImport},
		{"NoClassDefFoundError", "java.lang.NoClassDefFoundError: com/example/Missing", CategoryImport},
		{"Mockito wanted but not invoked (run)", "org.mockito.exceptions.verification.WantedButNotInvoked: \nWanted but not invoked:\nlistener.onResult(3);", CategoryMock},
		{"Mockito strict stubs", "org.mockito.exceptions.misusing.UnnecessaryStubbingException: \nUnnecessary stubbings detected.", CategoryMock},
		{"ClassCastException", "java.lang.ClassCastException: class java.lang.String cannot be cast to class java.lang.Integer", CategoryType},
		{"JUnit 5 @Timeout (run)", "java.util.concurrent.TimeoutException: testAlwaysTimesOut() timed out after 100 milliseconds", CategoryTiming},
		{"JUnit 5 assertTimeout", "org.opentest4j.AssertionFailedError: execution exceeded timeout of 10 ms by 52 ms", CategoryTiming},

		// TypeScript
		{"TS2339 (run)", "t.ts(3,15): error TS2339: Property 'b' does not exist on type '{ a: number; }'.", CategoryType},
		{"TS2307 (run)", "t.ts(1,22): error TS2307: Cannot find module './missing' or its corresponding type declarations.", CategoryImport},
		{"TS2345 (run)", "t.ts(5,3): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.", CategoryType},
		{"TS2322 (run)", "t.ts(6,5): error TS2322: Type 'number' is not assignable to type 'string'.", CategoryType},
		{"TS18048", "error TS18048: 'user' is possibly 'undefined'.", CategoryNull},

		// nothing to go on
		{"an empty message", "", CategoryOther},
		{"a plain error", "Error: boom", CategoryOther},
		{"a Java runtime exception", "java.lang.IllegalStateException: not started", CategoryOther},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Categorize(tc.msg)); diff != "" {
				t.Errorf("Categorize(%q) (-want +got):\n%s", tc.msg, diff)
			}
		})
	}
}

func TestCategorizePrecedence(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, msg, want string
	}{
		{"a missing import wins over the nil dereference it causes", "ModuleNotFoundError: No module named 'x'\nAttributeError: 'NoneType' object has no attribute 'y'", CategoryImport},
		{"a timeout wins over a failed expectation", "expect(received).toBe(expected)\nExceeded timeout of 5000 ms for a test.", CategoryTiming},
		{"an undefined property TypeError is a null reference", "TypeError: Cannot read properties of undefined (reading 'x')", CategoryNull},
		{"a mock reported through AssertionError is a mock issue", "AssertionError: Expected 'x' to be called once. Called 0 times.", CategoryMock},
		{"a TypeError wins over an assertion", "TypeError: x is not iterable\nAssertionError", CategoryType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tc.want, Categorize(tc.msg)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestCategoriesListsEveryRule(t *testing.T) {
	t.Parallel()
	var got []string
	for _, r := range catRules {
		got = append(got, r.category)
	}
	got = append(got, CategoryOther)
	if diff := cmp.Diff(Categories, got); diff != "" {
		t.Errorf("(-Categories +rules):\n%s", diff)
	}
}

func FuzzCategorize(f *testing.F) {
	for _, s := range []string{
		"", "got 1 want 2", "panic: runtime error: invalid memory address or nil pointer dereference",
		"TypeError: Cannot read properties of undefined (reading 'a')", "Exceeded timeout of 5000 ms",
		"ModuleNotFoundError: No module named 'x'", "expect(jest.fn()).toHaveBeenCalled()",
		"error TS2339: Property 'b' does not exist on type", "undefined: x", strings.Repeat("a", 20000) + "TimeoutError",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		c := Categorize(msg)
		if !slices.Contains(Categories, c) {
			t.Fatalf("Categorize(%q) = %q, not a category", msg, c)
		}
		if again := Categorize(msg); again != c {
			t.Fatalf("Categorize(%q) = %q, then %q", msg, c, again)
		}
	})
}
