// Package plan holds the result of planning: the change proposed for each
// resource instance and output, and the events reported while a plan is
// carried out. It is data only; the engine makes plans and the ui package
// shows them.
package plan
