package config

import (
	"reflect"
	"strings"
	"testing"
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
