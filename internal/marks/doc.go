// Package marks names the cty value marks Tether uses, so that every
// package agrees on what makes a value sensitive.
package marks
