package funcs

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"github.com/tetherhq/tether/internal/marks"
)

// markParam is the parameter of the functions that read or change a
// value's marks: any value, as it is.
var markParam = []function.Parameter{{Name: "value", Type: cty.DynamicPseudoType, AllowMarked: true, AllowUnknown: true, AllowNull: true, AllowDynamicType: true}}

func sameType(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil }

// sensitiveFunc marks a value so that it is hidden wherever it goes.
var sensitiveFunc = function.New(&function.Spec{
	Params: markParam,
	Type:   sameType,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Mark(marks.Sensitive), nil
	},
})

// nonsensitiveFunc takes the sensitive mark off a value the user says is
// safe to show; other marks stay.
var nonsensitiveFunc = function.New(&function.Spec{
	Params: markParam,
	Type:   sameType,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, m := args[0].Unmark()
		delete(m, marks.Sensitive)
		return v.WithMarks(m), nil
	},
})

// isSensitiveFunc is Terraform's issensitive: whether the value itself is
// marked sensitive. An unknown value that is not marked may turn out to be
// sensitive, so the answer is unknown too.
var isSensitiveFunc = function.New(&function.Spec{
	Params: markParam,
	Type:   function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		switch v := args[0]; {
		case v.HasMark(marks.Sensitive):
			return cty.True, nil
		case !v.IsKnown():
			return cty.UnknownVal(cty.Bool), nil
		}
		return cty.False, nil
	},
})

// ephemeralAsNullFunc is Terraform's ephemeralasnull: the value with every
// ephemeral part replaced by a null of its type, so that the rest may be
// stored.
var ephemeralAsNullFunc = function.New(&function.Spec{
	Params: markParam,
	Type:   sameType,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, pvm := args[0].UnmarkDeepWithPaths()
		var ephemeral []cty.Path
		for _, pm := range pvm {
			if _, ok := pm.Marks[marks.Ephemeral]; ok {
				ephemeral = append(ephemeral, pm.Path)
				delete(pm.Marks, marks.Ephemeral)
			}
		}
		if len(ephemeral) == 0 {
			return args[0], nil
		}
		v, err := cty.Transform(v, func(p cty.Path, x cty.Value) (cty.Value, error) {
			for _, e := range ephemeral {
				if p.Equals(e) {
					return cty.NullVal(x.Type()), nil
				}
			}
			return x, nil
		})
		if err != nil {
			return cty.NilVal, err
		}
		return v.MarkWithPaths(pvm), nil
	},
})
