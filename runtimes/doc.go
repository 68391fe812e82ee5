// Package runtimes holds the driver's oversubscription runtimes that live
// outside package uvm, one package each: Early-Adaptor
// (runtimes/earlyadaptor), UVMSmart's adaptive runtime (runtimes/uvmsmart),
// ObservUVM (runtimes/observuvm), SUV-Mgmt with its SC baseline
// (runtimes/suv), and Griffin's DPC, approximated (runtimes/griffin). Each
// adapts its pure core (the package of the same name at the module root) to
// uvm.Runtime and registers itself by name with uvm.RegisterRuntime when
// imported, as database/sql drivers do; package platform imports them all. A
// new runtime is one such package: embed uvm.Stages, override the stages it
// acts in, register its constructor.
package runtimes
