// Package apisurface holds the test that lists the module's exported API,
// package by package, and fails when it changes without review: every
// exported name is a promise to every importer, so an addition or a
// removal is a change of its own, made on purpose with
//
//	go test ./internal/apisurface -update
//
// and read in the diff of testdata/api.txt.
package apisurface
