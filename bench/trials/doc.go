// Command trials measures crash safety: it applies (or destroys) a few
// hundred resources that take a while, kills tether with SIGKILL at a
// random moment, runs the same command again, and checks what a user
// relies on: state loads, every file on disk is in state and every file
// in state is on disk, nothing is recorded twice, and the next plan has
// nothing to do.
//
//	go run ./bench/trials -n 200 -write /tmp/trials.md
//
// -write writes one Markdown section (rewritten after every trial);
// bench/TRIALS.md collects the sections of the recorded series.
//
// Each trial runs in a folder of its own. A kill leaves the state locked
// by a process that no longer exists, as a crash does; the recovery then
// runs `tether state unlock` (which breaks only a dead holder's lock) and
// the command again, as a user would. With -pg the state is kept in
// PostgreSQL through a backend "pg" block, one schema per trial, on a
// throwaway cluster the trials start (fsync on) and stop; -kinds then also
// takes migrate (init -migrate-state from local state, killed) and restart
// (PostgreSQL stopped at once and started again during up). With -s3 it is
// kept through a backend "s3" block (one key per trial, Terraform's lock
// file and DynamoDB lock) in gofakes3 and internal/dynamofake, run in the
// trials' own process so that they outlive every tether killed. With
// -gcs it is kept through a backend "gcs" block (one prefix per trial,
// Terraform's lock file) in fake-gcs-server, run the same way.
//
// Two kinds interrupt up otherwise and allow no `state unlock` in the
// recovery, a plain `up --yes` (recover.go): route (SIGTERM while
// -resources tether_routes are added to a tether_router already up; then
// every route in state once and on the router once, confirmed) and
// diskfull (.tether on a 1 MiB tmpfs filled during up, then freed; needs
// root, skipped otherwise). They run apart from the other kinds.
package main
