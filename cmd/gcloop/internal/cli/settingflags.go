package cli

import (
	"flag"
	"fmt"

	"github.com/gcloop/gcloop/bot/config"
)

// settingFlags defines on fs the flag of every loop setting that has one
// (its name, type and help as the setting declares them, no default: the
// default is the file's, else the loop's), and returns a function that
// gives, once fs is parsed, the settings the flags given set.
func settingFlags(fs *flag.FlagSet) func() config.Overrides {
	setters := map[string]func(*config.Values){}
	for _, st := range config.All() {
		if st.Flag == "" {
			continue
		}
		switch f := st.Field(&config.Values{}).(type) {
		case **int:
			setters[st.Name] = defineFlag(fs, fs.IntVar, st)
		case **float64:
			setters[st.Name] = defineFlag(fs, fs.Float64Var, st)
		case **string:
			setters[st.Name] = defineFlag(fs, fs.StringVar, st)
		default:
			panic(fmt.Sprintf("cli: no flag for setting %s of type %T", st.Name, f))
		}
	}
	return func() config.Overrides {
		var ov config.Overrides
		fs.Visit(func(f *flag.Flag) {
			if set := setters[f.Name]; set != nil {
				set(&ov)
			}
		})
		return ov
	}
}

// defineFlag defines the flag of st with define (fs.IntVar, …) and returns
// what puts its value into a setting's field.
func defineFlag[T any](fs *flag.FlagSet, define func(*T, string, T, string), st *config.Setting) func(*config.Values) {
	p := new(T)
	var zero T
	define(p, st.Name, zero, st.Flag)
	return func(v *config.Values) { *st.Field(v).(**T) = p }
}
