package config

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/gcloop/gcloop/decide"
)

// The table of settings is well formed: one setting per field of Values,
// unique names and keys, an input's description given, and every type's
// limits set.
func TestSettingsTable(t *testing.T) {
	t.Parallel()
	var v Values
	fields := map[uintptr]string{}
	names, keys := map[string]bool{}, map[string]bool{}
	for _, st := range All() {
		if names[st.Name] {
			t.Errorf("setting %s declared twice", st.Name)
		}
		names[st.Name] = true
		if st.Key != "" && keys[st.Key] {
			t.Errorf("key %s declared twice", st.Key)
		}
		keys[st.Key] = true
		if st.Key == "" && !st.Input {
			t.Errorf("setting %s is neither a key of the file nor an input", st.Name)
		}
		if strings.ContainsAny(st.Name, "_. ") || strings.ContainsAny(st.Key, "- ") {
			t.Errorf("setting %s: names are hyphenated, keys are snake_case (key %q)", st.Name, st.Key)
		}
		if st.Input != (st.Doc != "") {
			t.Errorf("setting %s: an input needs its description, and only an input has one", st.Name)
		}
		if st.Flag != "" && !st.Input {
			t.Errorf("setting %s: a flag that is no input of the action", st.Name)
		}
		if Lookup(st.Name) != st {
			t.Errorf("Lookup(%q) does not find it", st.Name)
		}
		f := st.Field(&v)
		p := reflect.ValueOf(f).Pointer()
		if other, ok := fields[p]; ok {
			t.Errorf("settings %s and %s share a field", st.Name, other)
		}
		fields[p] = st.Name
		switch f.(type) {
		case **int, **float64, *map[string]float64:
			if st.Min > st.Max || st.Max == 0 {
				t.Errorf("setting %s: range %g–%g", st.Name, st.Min, st.Max)
			}
		case *[]string:
			if st.Items < 1 || st.Check == nil {
				t.Errorf("setting %s: a list needs its item cap and check", st.Name)
			}
		case **string:
			if st.Enum == nil && st.Norm == nil {
				t.Errorf("setting %s: a string needs its choices or its Norm", st.Name)
			}
		case **bool:
		default:
			t.Errorf("setting %s: unsupported type %T", st.Name, f)
		}
		if st.Default != nil {
			if st.Knob || st.out == nil || reflect.TypeOf(st.out(&Settings{})).Elem() != reflect.TypeOf(st.Default) {
				t.Errorf("setting %s: default %#v does not fit (knob %t)", st.Name, st.Default, st.Knob)
			}
		}
		if (st.out == nil) != (st.Name == "layers") {
			t.Errorf("setting %s: Resolve has no place for it", st.Name)
		}
	}
	if n := reflect.TypeOf(v).NumField(); n != len(fields) {
		t.Errorf("Values has %d fields, the table declares %d settings: declare each field once", n, len(fields))
	}
	if Lookup("no-such-setting") != nil {
		t.Error("Lookup found a setting that is not declared")
	}
}

// Every setting with a key is read from the file, under its group when it
// has one, by the section of a kind it applies to.
func TestEveryDeclaredKeyIsRead(t *testing.T) {
	t.Parallel()
	for _, st := range All() {
		if st.Key == "" {
			continue
		}
		t.Run(st.Key, func(t *testing.T) {
			t.Parallel()
			var val string
			switch st.Field(&Values{}).(type) {
			case **int, **float64:
				val = fmt.Sprint(st.Max)
			case **bool:
				val = "false"
			case *[]string:
				val = "[]"
			case *map[string]float64:
				val = "{L2: 50}"
			case **string:
				val = "next.yml"
				if st.Enum != nil {
					val = st.Enum[len(st.Enum)-1]
				}
			}
			kind := decide.Review
			if st.Kinds != nil {
				kind = st.Kinds[0]
			}
			in := fmt.Sprintf("%s:\n  %s: %s\n", kind, st.Key, val)
			if group, key, ok := strings.Cut(st.Key, "."); ok {
				in = fmt.Sprintf("%s:\n  %s:\n    %s: %s\n", kind, group, key, val)
			}
			f, err := Parse("gcloop.yml", strings.NewReader(in))
			if err != nil {
				t.Fatalf("%s\n%v", in, err)
			}
			sec := f.Section(string(kind))
			if reflect.ValueOf(st.Field(&sec.Values)).Elem().IsNil() {
				t.Errorf("%s\nleft %s unset: %+v", in, st.Name, sec.Values)
			}
		})
	}
}

// For every setting, the file's value wins over the default and the
// input's over the file's.
func TestEverySettingLayers(t *testing.T) {
	t.Parallel()
	for _, st := range All() {
		if st.Key == "" || st.out == nil {
			continue // the layer is no key; layers gives the target
		}
		t.Run(st.Name, func(t *testing.T) {
			t.Parallel()
			var fileVal, inVal string
			var want func(any) any
			switch st.Field(&Values{}).(type) {
			case **int, **float64:
				fileVal, inVal = fmt.Sprint(st.Min), fmt.Sprint(st.Max)
			case **bool:
				fileVal, inVal = "false", "true"
			case *[]string:
				fileVal, inVal = "[a]", "b"
			case **string:
				fileVal, inVal = "a.yml", "b.yml"
				if st.Enum != nil {
					fileVal, inVal = st.Enum[0], st.Enum[1]
				}
			}
			want = func(out any) any { return reflect.ValueOf(out).Elem().Interface() }
			kind := decide.Review
			if st.Kinds != nil {
				kind = st.Kinds[0]
			}
			in := fmt.Sprintf("%s:\n  %s: %s\n", kind, st.Key, fileVal)
			if group, key, ok := strings.Cut(st.Key, "."); ok {
				in = fmt.Sprintf("%s:\n  %s:\n    %s: %s\n", kind, group, key, fileVal)
			}
			f := mustParse(t, in)
			fromFile, err := Resolve(kind, "", f, Overrides{})
			if err != nil {
				t.Fatal(err)
			}
			var ov Overrides
			setText(t, st.Field(&ov), inVal)
			fromInput, err := Resolve(kind, "", f, ov)
			if err != nil {
				t.Fatal(err)
			}
			got := fmt.Sprint(deref(want(st.out(&fromFile))))
			if got != strings.Trim(fileVal, "[]") {
				t.Errorf("from the file %q: resolved %s", fileVal, got)
			}
			got = fmt.Sprint(deref(want(st.out(&fromInput))))
			if got != inVal {
				t.Errorf("from the input %q over the file: resolved %s", inVal, got)
			}
		})
	}
}

// setText sets a setting's field from text, as a test input.
func setText(t *testing.T, field any, s string) {
	t.Helper()
	switch f := field.(type) {
	case **int:
		var n int
		fmt.Sscan(s, &n)
		*f = &n
	case **float64:
		var x float64
		fmt.Sscan(s, &x)
		*f = &x
	case **bool:
		b := s == "true"
		*f = &b
	case **string:
		*f = &s
	case *[]string:
		*f = []string{s}
	default:
		t.Fatalf("no text for %T", field)
	}
}

// deref renders a resolved value: a pointer's target, a list's one item.
func deref(v any) any {
	switch x := v.(type) {
	case *float64:
		return *x
	case []string:
		return strings.Join(x, ",")
	}
	return v
}
