package checks

import (
	"encoding/json"
	"fmt"
	"sort"
)

// Status is the outcome of one rule, one object's rules or all the rules
// of a configuration object.
type Status string

const (
	Pass    Status = "pass"
	Fail    Status = "fail"
	Error   Status = "error" // a rule could not be evaluated
	Unknown Status = "unknown"
)

// Kind is what sort of configuration object a result is about, in state
// version 4's spelling.
type Kind string

const (
	Resource Kind = "resource"
	Output   Kind = "output"
	Check    Kind = "check"
	Variable Kind = "var"
)

// Result is the results of one configuration object: a resource, output,
// check block or variable as the configuration declares it, once however
// many instances it has.
type Result struct {
	Kind Kind `json:"object_kind"`
	// ConfigAddr is the object's static address: `module.m.tether_file.f`,
	// `output.o`, `check.c`, `module.m.var.x`.
	ConfigAddr string `json:"config_addr"`
	// Status summarizes every rule of every object.
	Status Status `json:"status"`
	// Objects are the instances, by their own address; nil when they are
	// not known (the object's count was not, or evaluation stopped before
	// it), which is not the same as none.
	Objects []Object `json:"objects"`
}

// Object is the results of one instance.
type Object struct {
	Addr   string `json:"object_addr"`
	Status Status `json:"status"`
	// FailureMessages are the error messages of the rules that failed,
	// sorted.
	FailureMessages []string `json:"failure_messages,omitempty"`
}

// Summarize is the status of a set of rules: error if any errored, else
// fail if any failed, else unknown if any is unknown, else pass (which
// includes no rules at all).
func Summarize(statuses ...Status) Status {
	out := Pass
	for _, s := range statuses {
		switch {
		case s == Error:
			return Error
		case s == Fail:
			out = Fail
		case s == Unknown && out == Pass:
			out = Unknown
		}
	}
	return out
}

// Sort puts results in order of address, and each result's objects too,
// so that equal results encode to equal bytes.
func Sort(rs []Result) {
	sort.Slice(rs, func(i, j int) bool { return rs[i].ConfigAddr < rs[j].ConfigAddr })
	for _, r := range rs {
		sort.Slice(r.Objects, func(i, j int) bool { return r.Objects[i].Addr < r.Objects[j].Addr })
	}
}

// Encode is rs as recorded: state version 4's check_results, sorted, or
// nil for none.
func Encode(rs []Result) ([]byte, error) {
	if len(rs) == 0 {
		return nil, nil
	}
	rs = append([]Result(nil), rs...)
	Sort(rs)
	return json.Marshal(rs)
}

// Decode reads check_results as state version 4 holds them (nil or
// "null" for none), and cleans them (see Clean).
func Decode(b []byte) ([]Result, error) {
	if len(b) == 0 {
		return nil, nil
	}
	var in []Result
	if err := json.Unmarshal(b, &in); err != nil {
		return nil, fmt.Errorf("check results: %v", err)
	}
	return Clean(in)
}

// Clean checks results read from a state file: it leaves out the results
// of kinds this build does not know, as Terraform leaves out kinds newer
// than itself, and refuses a status it does not know or a missing
// address.
func Clean(in []Result) ([]Result, error) {
	var out []Result
	for _, r := range in {
		switch r.Kind {
		case Resource, Output, Check, Variable:
		default:
			continue
		}
		if r.ConfigAddr == "" {
			return nil, fmt.Errorf("check results: a result of kind %q has no config_addr", r.Kind)
		}
		if err := r.Status.valid(); err != nil {
			return nil, fmt.Errorf("check results of %s: %v", r.ConfigAddr, err)
		}
		for _, o := range r.Objects {
			if o.Addr == "" {
				return nil, fmt.Errorf("check results of %s: an object has no object_addr", r.ConfigAddr)
			}
			if err := o.Status.valid(); err != nil {
				return nil, fmt.Errorf("check results of %s: %v", o.Addr, err)
			}
		}
		out = append(out, r)
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

func (s Status) valid() error {
	switch s {
	case Pass, Fail, Error, Unknown:
		return nil
	}
	return fmt.Errorf("unknown status %q (Terraform writes pass, fail, error or unknown)", string(s))
}
