// Package logging is Tether's debug log, switched on as Terraform's is:
// TF_LOG sets the level (TRACE, DEBUG, INFO, WARN, ERROR; JSON for TRACE
// as JSON lines; OFF or unset for none), TF_LOG_CORE overrides it for
// Tether's own messages, and TF_LOG_PATH appends the log to a file
// instead of standard error. TF_LOG_PROVIDER adds the providers' own
// logs.
//
// Tether logs what it does (the command, the configuration's size, each
// plan's counts, each operation with its address, action, duration and
// outcome), never a value: no variable, attribute, output or reference
// is written, so a log can be attached to a bug report. Providers' logs
// are the providers' own words, and may hold what they were given.
package logging
