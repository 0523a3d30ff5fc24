package tether

// RunWith is Run with the streams given, for tests.
var RunWith = run
