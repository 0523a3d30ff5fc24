package funcs

import (
	"fmt"
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// timestampFunc is Terraform's timestamp: the time of the call, in UTC,
// in RFC 3339. A plan cannot know when it will be applied, so the value
// is unknown until then.
func timestampFunc(run Run) function.Function {
	return function.New(&function.Spec{
		Type: function.StaticReturnType(cty.String),
		Impl: impure(run, func([]cty.Value) (cty.Value, error) {
			return cty.StringVal(time.Now().UTC().Format(time.RFC3339)), nil
		}),
		RefineResult: refineNotNull,
	})
}

// planTimestampFunc is Terraform's plantimestamp: the time the plan was
// made, the same while planning and applying it.
func planTimestampFunc(run Run) function.Function {
	return function.New(&function.Spec{
		Type: function.StaticReturnType(cty.String),
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			if run.PlanTime.IsZero() {
				return cty.UnknownVal(cty.String), nil
			}
			return cty.StringVal(run.PlanTime.UTC().Format(time.RFC3339)), nil
		},
		RefineResult: refineNotNull,
	})
}

// timeCmpFunc is Terraform's timecmp: -1, 0 or 1 as the first RFC 3339
// timestamp is before, at or after the second, time zones considered.
var timeCmpFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "timestamp_a", Type: cty.String}, {Name: "timestamp_b", Type: cty.String}},
	Type:   function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var ts [2]time.Time
		for i := range ts {
			t, err := parseTimestamp(args[i].AsString())
			if err != nil {
				return cty.UnknownVal(cty.Number), function.NewArgError(i, err)
			}
			ts[i] = t
		}
		return cty.NumberIntVal(int64(ts[0].Compare(ts[1]))), nil
	},
	RefineResult: refineNotNull,
})

// parseTimestamp reads an RFC 3339 timestamp, saying in words which part
// is wrong when it is not one.
func parseTimestamp(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err == nil {
		return t, nil
	}
	pe, ok := err.(*time.ParseError)
	if !ok {
		return time.Time{}, err
	}
	if pe.LayoutElem == "" && pe.ValueElem == "" && pe.Message != "" {
		return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp%s", pe.Message)
	}
	what := map[string]string{
		"2006": "year", "01": "month", "02": "day of month", "15": "hour",
		"04": "minute", "05": "second", "Z07:00": "UTC offset",
	}[pe.LayoutElem]
	switch pe.LayoutElem {
	case "T":
		return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp: missing required time introducer 'T'")
	case ":", "-":
		if pe.ValueElem == "" {
			return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp: end of string where %q is expected", pe.LayoutElem)
		}
		return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp: found %q where %q is expected", pe.ValueElem, pe.LayoutElem)
	}
	if what == "" {
		what = "timestamp segment"
	}
	if pe.ValueElem == "" {
		return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp: end of string before %s", what)
	}
	return time.Time{}, fmt.Errorf("not a valid RFC3339 timestamp: cannot use %q as %s", pe.ValueElem, what)
}
