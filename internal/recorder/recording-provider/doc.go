// Command recording-provider is a Terraform provider plugin that starts the
// real provider named by TETHER_RECORDER_PROVIDER, forwards every call to
// it and logs each one; package recorder describes it and its environment.
// Terraform or Tether starts it, installed under the real provider's name;
// it is not meant to be run by hand.
package main
