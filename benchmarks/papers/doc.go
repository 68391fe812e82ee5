// Package papers holds the workloads that come with a paper rather than
// from a benchmark suite: btree, the bulk lookups of Awad et al.'s GPU
// B-tree ("Engineering a High-Performance GPU B-Tree", PPoPP 2019), as
// ObservUVM and SUV run it; bicgstab, SUV's own dense BiCGStab; and
// uvmsmart-ra, the RA of UVMSmart (IPDPS 2020) that UVMMU (DATE 2023)
// runs.
package papers
