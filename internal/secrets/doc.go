// Package secrets holds the per-state key that keeps secrets out of state
// in clear text: objects with sensitive values are sealed with AES-GCM, and
// the values references resolved to are remembered only as an HMAC, so a
// change is noticed without the value ever being stored.
//
// The key never lives in the state folder. It comes from TETHER_STATE_KEY
// (64 hex digits) or from a file in the user's configuration folder named
// after the state's id, created on first use with permission 0600.
package secrets
