// Package synthetic holds the access patterns written for tests and
// users (private, shared-read, pingpong, prodcons, phases, swap), whose
// pages each GPU touches are known exactly, and ObservUVM's
// counter-capacity microbenchmark (countercap-N).
package synthetic
