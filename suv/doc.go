// Package suv is the decision logic of SUV (Pratheek B, Cox, Vesely and
// Basu, "SUV: Static Analysis Guided Unified Virtual Memory", MICRO'24) as
// pure functions and one small pool type: no engine, no globals, no clock.
// The simulator feeds it hints and sizes before each kernel launch and
// applies the Actions it returns; this package only decides.
//
// What SUV's compiler passes derive (§V-A, §V-B) arrives as a Hint per
// object and launch: a class, an access density, a working-set size (WSS)
// and, for structures indexed by the host loop's induction variable, the
// per-iteration span. Hints are declared by a workload (the faithful,
// annotation-driven mode) or computed by Oracle from a functional pre-run's
// statistics (an upper bound: SUV itself never profiles).
//
// PlanLaunch is SUV-Mgmt (§V-C): Algorithm 1, run before every launch,
// with Algorithm 2's prefetch and eviction at host-loop boundaries folded
// in, since both run at the launch. It is called once per GPU with that
// GPU's HBM, so it serves any GPU count (the paper evaluates one GPU,
// §VI; the per-GPU use is ours). PlanSC is the SC baseline (Li & Chapman,
// SC'19, as SUV's §III-B and §VI describe it).
// QuotaPool is the reserved HBM of one on-demand (Temporal) or
// access-counter (Unknown) structure, with its own least-recently-migrated
// order, so that such a structure never evicts another.
//
// Invariants every plan keeps (Plan.Verify checks them): the pages pinned
// on HBM, the quotas and the iteration windows together never exceed the
// available HBM, and every prefetch fits its structure's window.
//
// Byte quantities are int64 so that bad negative inputs can be named in an
// error rather than wrapping; ranges are byte offsets inside an object,
// aligned to Config.PageSize, with an end that may stop at the object's
// last byte.
package suv
