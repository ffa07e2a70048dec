package action

import (
	"fmt"
	"strings"

	"github.com/gcloop/gcloop/bot/config"
	"github.com/gcloop/gcloop/decide"
)

// gatherSettings reads the input of every loop setting that is one, in the
// table's order, as its type says: an integer, a number, true or false, a
// list (newlines or commas) or a string. An empty input is not given. Only
// what is wrong whatever the loop is refused here (an integer out of the
// setting's range, an unknown layer); the rest is checked by
// config.Resolve once the loop is known, and so are the decide.Config knobs.
func gatherSettings(get func(string) string, ov *config.Overrides, bad func(string, string, ...any)) {
	for _, st := range config.All() {
		if !st.Input {
			continue
		}
		s := get(st.Name)
		if s == "" {
			continue
		}
		switch f := st.Field(ov).(type) {
		case **int:
			*f = intInput(get, st.Name, bad)
			if n := *f; n != nil && !st.Knob && (float64(*n) < st.Min || float64(*n) > st.Max) {
				bad(st.Name, "%d: want %g–%g", *n, st.Min, st.Max)
			}
		case **float64:
			*f = floatInput(get, st.Name, bad)
		case **bool:
			v := boolInput(get, st.Name, false, bad)
			*f = &v
		case *[]string:
			*f = splitList(s)
		case **string:
			*f = &s
		default:
			panic(fmt.Sprintf("action: no input syntax for setting %s of type %T", st.Name, f))
		}
	}
	if ov.Layer != nil {
		l := strings.ToUpper(*ov.Layer)
		if _, err := decide.LayerTarget(l); err != nil {
			bad("layer", "%v", err)
		}
		ov.Layer = &l
	}
}
