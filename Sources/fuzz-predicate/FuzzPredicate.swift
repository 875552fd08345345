// libFuzzer entry point for `--where` predicates; the check is FuzzTarget.predicate in FuzzChecks.
// Build and run with Scripts/fuzz.sh predicate. In a normal build this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.predicate.fuzz(data, size)
}
