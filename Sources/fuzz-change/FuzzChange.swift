// libFuzzer entry point for sync's change files; the check is FuzzTarget.change in FuzzChecks.
// Build and run with Scripts/fuzz.sh change. In a normal build this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzChange(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.change.fuzz(data, size)
}
