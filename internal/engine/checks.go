package engine

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/zclconf/go-cty/cty"

	"github.com/tetherhq/tether/internal/addr"
	"github.com/tetherhq/tether/internal/checks"
	"github.com/tetherhq/tether/internal/config"
)

// checkRecord collects a run's check results (see internal/checks) as
// rules are evaluated, during plan and then apply, as Terraform's check
// state does: every configuration object with rules is known from the
// start, its instances once its count, for_each or module instances are
// known, each rule unknown until it is evaluated. The last evaluation of a
// rule wins, so an apply's results are the plan's with what apply decided.
type checkRecord struct {
	mu      sync.Mutex
	configs map[string]*checkConfig // by static address
}

type checkConfig struct {
	kind checks.Kind
	// pre, post and data count the rules of each set: preconditions,
	// postconditions (a check's assertions, a variable's validations),
	// and a check block's data source, whose read is a rule of its own.
	pre, post, data int
	// objects is nil until the instances are known.
	objects map[string]*checkObject
	// unwalked is set on what the apply does not walk: nothing of it is
	// known then.
	unwalked bool
}

// checkObject is the rules of one instance, in the order of the sets.
type checkObject struct {
	status []checks.Status
	msgs   []string
	// planned holds status and msgs as planned, once apply starts.
	planned     []checks.Status
	plannedMsgs []string
}

// beginApply starts the apply's results: as in Terraform, a rule is
// unknown until the apply walk reaches its object, whatever the plan
// found. Where apply evaluates no rule again (a resource instance's
// rules decided at plan), reaching the object restores the plan's
// outcome (see restore).
//
// Objects apply does not walk (walked false: what -target leaves out) are
// not known to it, as in Terraform.
func (r *checkRecord) beginApply(walked func(static string) bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for a, c := range r.configs {
		if !walked(a) {
			c.objects, c.unwalked = nil, true
			continue
		}
		for _, o := range c.objects {
			o.planned, o.plannedMsgs = o.status, o.msgs
			o.status, o.msgs = make([]checks.Status, len(o.planned)), make([]string, len(o.planned))
			for i := range o.status {
				o.status[i] = checks.Unknown
			}
		}
	}
}

// restore gives the rules of a resource instance that are still unknown
// in the apply the outcome the plan found: its preconditions when apply
// reaches it, its postconditions (post) once it applied.
func (r *checkRecord) restore(n *node, object string, post bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.configs[n.addr]
	if c == nil || c.objects[object] == nil || c.objects[object].planned == nil {
		return
	}
	o := c.objects[object]
	from, to := 0, c.pre
	if post {
		from, to = c.pre, c.pre+c.post
	}
	for i := from; i < to; i++ {
		if o.status[i] == checks.Unknown {
			o.status[i], o.msgs[i] = o.planned[i], o.plannedMsgs[i]
		}
	}
}

// newCheckRecord declares the configuration's objects that have rules.
func newCheckRecord(cfg *config.Config) *checkRecord {
	r := &checkRecord{configs: map[string]*checkConfig{}}
	for _, cn := range cfg.Nodes {
		kind, ok := checkKind(cn)
		if !ok || len(cn.Preconditions)+len(cn.Postconditions) == 0 {
			continue
		}
		r.configs[cn.Addr] = &checkConfig{kind: kind, pre: len(cn.Preconditions), post: len(cn.Postconditions)}
	}
	for _, cn := range cfg.Nodes {
		if c := r.configs[cn.Check]; cn.Check != "" && c != nil {
			c.data = 1 // a check block has one data source at most
		}
	}
	return r
}

// checkKind is the kind of results a node has, if any: Terraform records
// none for ephemeral resources' conditions in state.
func checkKind(cn *config.Node) (checks.Kind, bool) {
	switch cn.Kind {
	case config.Resource, config.DataSource:
		return checks.Resource, true
	case config.Output:
		return checks.Output, true
	case config.Check:
		return checks.Check, true
	case config.Variable:
		return checks.Variable, true
	}
	return "", false
}

// instances declares the instances of n that are known, in one module
// instance or (for a resource) by their addresses: n then has known
// instances, possibly none.
func (r *checkRecord) instances(n *node, addrs []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.configs[n.addr]
	if c == nil || c.unwalked {
		return
	}
	if c.objects == nil {
		c.objects = map[string]*checkObject{}
	}
	for _, a := range addrs {
		c.object(a)
	}
}

func (c *checkConfig) object(a string) *checkObject {
	if c.objects == nil {
		c.objects = map[string]*checkObject{}
	}
	o := c.objects[a]
	if o == nil {
		n := c.pre + c.post + c.data
		o = &checkObject{status: make([]checks.Status, n), msgs: make([]string, n)}
		for i := range o.status {
			o.status[i] = checks.Unknown
		}
		c.objects[a] = o
	}
	return o
}

// report records the outcome of rule i of a set (pre or post) of n's
// instance at object.
func (r *checkRecord) report(n *node, object string, pre bool, i int, s checks.Status, msg string) {
	c := r.configs[n.addr] // the map is only read once made
	if c == nil {
		return // an ephemeral resource's conditions are not recorded
	}
	if !pre {
		i += c.pre
	}
	r.set(n.addr, object, i, s, msg)
}

// reportRead records how the read of the data source of a check block
// came out, with Terraform's message for the errors that failed it.
func (r *checkRecord) reportRead(check *node, mi *modInstance, diags hcl.Diagnostics) {
	c := r.configs[check.addr]
	if c == nil || c.data == 0 {
		return
	}
	s, msg := checks.Pass, ""
	if diags.HasErrors() {
		s, msg = checks.Fail, errorText(diags)
	}
	r.set(check.addr, objectAddr(check, mi), c.pre+c.post, s, msg)
}

// errorText is diagnostics' errors as Terraform writes them in one
// message: "summary: detail", or a list of them.
func errorText(diags hcl.Diagnostics) string {
	var lines []string
	for _, d := range diags.Errs() {
		var line string
		if hd, ok := d.(*hcl.Diagnostic); ok {
			line = hd.Summary
			if hd.Detail != "" {
				line += ": " + hd.Detail
			}
		} else {
			line = d.Error()
		}
		lines = append(lines, line)
	}
	if len(lines) == 1 {
		return lines[0]
	}
	return fmt.Sprintf("%d problems:\n\n- %s", len(lines), strings.Join(lines, "\n- "))
}

func (r *checkRecord) set(static, object string, i int, s checks.Status, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := r.configs[static]
	if c == nil || c.unwalked {
		return
	}
	o := c.object(object)
	if i >= len(o.status) {
		return
	}
	o.status[i], o.msgs[i] = s, ""
	if s == checks.Fail {
		o.msgs[i] = msg
	}
}

// results are the check results as recorded in state, nil when the
// configuration has no rules.
func (r *checkRecord) results() []checks.Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []checks.Result
	for a, c := range r.configs {
		res := checks.Result{Kind: c.kind, ConfigAddr: a, Status: checks.Unknown}
		if c.objects != nil {
			// Known to have no instances: pass, with objects null in
			// state as Terraform writes it.
			var all []checks.Status
			for oa, o := range c.objects {
				obj := checks.Object{Addr: oa, Status: checks.Summarize(o.status...)}
				for _, m := range o.msgs {
					if m != "" {
						obj.FailureMessages = append(obj.FailureMessages, m)
					}
				}
				sort.Strings(obj.FailureMessages)
				res.Objects = append(res.Objects, obj)
				all = append(all, o.status...)
			}
			res.Status = checks.Summarize(all...)
		}
		out = append(out, res)
	}
	checks.Sort(out)
	return out
}

// objectAddr is the address of n's instance in a module instance, for an
// output, check or variable.
func objectAddr(n *node, mi *modInstance) string {
	prefix := map[config.Kind]string{config.Output: "output.", config.Check: "check.", config.Variable: "var."}[n.cfg.Kind]
	return addr.Join(mi.str, prefix+n.cfg.Name)
}

// isPre reports whether conds are n's preconditions rather than its
// postconditions (assertions, validations): the engine passes one or the
// other slice as the configuration holds it.
func isPre(n *node, conds []config.Condition) bool {
	return len(conds) > 0 && len(n.cfg.Preconditions) > 0 && &conds[0] == &n.cfg.Preconditions[0]
}

// evalCondition evaluates one rule and says how it came out: an error
// when it could not be evaluated, unknown when it is not known yet.
func evalCondition(c config.Condition, scope config.Scope, inst config.Instance, self cty.Value) (checks.Status, string, hcl.Diagnostics) {
	ok, msg, diags := c.Eval(scope, inst, self)
	switch {
	case diags.HasErrors():
		return checks.Error, "", diags
	case !ok.IsKnown():
		return checks.Unknown, "", diags
	case ok.True():
		return checks.Pass, "", diags
	}
	return checks.Fail, msg, diags
}
