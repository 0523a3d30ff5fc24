// Package redact takes secrets out of text that Tether did not write: a
// provider's diagnostics, the strings in what it returns, the lines of its
// log. A secret is found as it is (in any letter case), hex- and
// base64-encoded, as a common digest (MD5, SHA-1, SHA-256, SHA-512 in hex
// or base64), and in part: any run of at least a third of one of those
// forms, and never fewer than six characters, is replaced too, so that an
// echo cut short, split across lines or half masked gives nothing useful
// away. Each occurrence is replaced by the label registered with the
// secret, such as "(reference env DB_PASSWORD)" or "(sensitive value)".
//
// Secrets shorter than four characters are not looked for: they would
// match ordinary words, and no encoding or digest of one hides it.
package redact
