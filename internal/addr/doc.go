// Package addr parses and formats the addresses of resource instances,
// such as `module.net["eu"].tether_file.conf[0]`: the module instance path,
// the resource (with its data. prefix for data sources) and the instance
// key. The static form, with every key removed, names the declaration.
package addr
