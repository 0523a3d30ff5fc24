// Package docs runs the shell blocks of the README and docs/*.md
// (TestDocs, TestDocsBlocks) and checks their doctest directives and
// links, so that what the pages tell a user keeps working.
package docs
