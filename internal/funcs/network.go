package funcs

import (
	"fmt"
	"math/big"
	"net"
	"strconv"
	"strings"

	"github.com/apparentlymart/go-cidr/cidr"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/gocty"
)

// parseCIDR is net.ParseCIDR as Terraform has it: Terraform keeps the
// parser of Go before 1.17, which reads IPv4 octets with leading zeros as
// decimal ("010.1.2.0/24" is 10.1.2.0/24) where Go now refuses them.
func parseCIDR(s string) (*net.IPNet, error) {
	if addr, bits, ok := strings.Cut(s, "/"); ok && strings.Count(addr, ".") == 3 && !strings.Contains(addr, ":") {
		octets := strings.Split(addr, ".")
		for i, o := range octets {
			n, err := strconv.ParseUint(o, 10, 8)
			if err != nil || o == "" || o[0] == '+' {
				break
			}
			octets[i] = strconv.FormatUint(n, 10)
		}
		s = strings.Join(octets, ".") + "/" + bits
	}
	_, network, err := net.ParseCIDR(s)
	if err != nil {
		return nil, fmt.Errorf("invalid CIDR expression: %s", err)
	}
	return network, nil
}

var cidrHostFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}, {Name: "hostnum", Type: cty.Number}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var host *big.Int
		if err := gocty.FromCtyValue(args[1], &host); err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(1, err)
		}
		network, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		ip, err := cidr.HostBig(network, host)
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(1, err)
		}
		return cty.StringVal(ip.String()), nil
	},
	RefineResult: refineNotNull,
})

var cidrNetmaskFunc = function.New(&function.Spec{
	Params: []function.Parameter{{Name: "prefix", Type: cty.String}},
	Type:   function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		network, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		if network.IP.To4() == nil {
			return cty.UnknownVal(cty.String), function.NewArgErrorf(0, "IPv6 addresses cannot have a netmask: %s", args[0].AsString())
		}
		return cty.StringVal(net.IP(network.Mask).String()), nil
	},
	RefineResult: refineNotNull,
})

var cidrSubnetFunc = function.New(&function.Spec{
	Params: []function.Parameter{
		{Name: "prefix", Type: cty.String},
		{Name: "newbits", Type: cty.Number},
		{Name: "netnum", Type: cty.Number},
	},
	Type: function.StaticReturnType(cty.String),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var newbits int
		if err := gocty.FromCtyValue(args[1], &newbits); err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(1, err)
		}
		var netnum *big.Int
		if err := gocty.FromCtyValue(args[2], &netnum); err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(2, err)
		}
		network, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.String), function.NewArgError(0, err)
		}
		subnet, err := cidr.SubnetBig(network, newbits, netnum)
		if err != nil {
			return cty.UnknownVal(cty.String), err
		}
		return cty.StringVal(subnet.String()), nil
	},
	RefineResult: refineNotNull,
})

// cidrSubnetsFunc is Terraform's cidrsubnets: consecutive subnets of the
// given prefix, each newbits longer than it, aligned to its own size.
var cidrSubnetsFunc = function.New(&function.Spec{
	Params:   []function.Parameter{{Name: "prefix", Type: cty.String}},
	VarParam: &function.Parameter{Name: "newbits", Type: cty.Number},
	Type:     function.StaticReturnType(cty.List(cty.String)),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		network, err := parseCIDR(args[0].AsString())
		if err != nil {
			return cty.UnknownVal(cty.List(cty.String)), function.NewArgError(0, err)
		}
		if len(args) == 1 {
			return cty.ListValEmpty(cty.String), nil
		}
		base, _ := network.Mask.Size()
		lengths := make([]int, len(args)-1)
		for i, a := range args[1:] {
			if err := gocty.FromCtyValue(a, &lengths[i]); err != nil {
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgError(i+1, err)
			}
		}
		out := make([]cty.Value, len(lengths))
		current, _ := cidr.PreviousSubnet(network, base+lengths[0])
		for i, n := range lengths {
			switch {
			case n < 1:
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "must extend prefix by at least one bit")
			case n > 32:
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "may not extend prefix by more than 32 bits")
			}
			length := base + n
			if max := len(network.IP) * 8; length > max {
				family := "IPv4"
				if max == 128 {
					family = "IPv6"
				}
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "would extend prefix to %d bits, which is too long for an %s address", length, family)
			}
			next, rollover := cidr.NextSubnet(current, length)
			if rollover || !network.Contains(next.IP) {
				return cty.UnknownVal(cty.List(cty.String)), function.NewArgErrorf(i+1, "not enough remaining address space for a subnet with a prefix of %d bits after %s", length, current.String())
			}
			current = next
			out[i] = cty.StringVal(current.String())
		}
		return cty.ListVal(out), nil
	},
	RefineResult: refineNotNull,
})
