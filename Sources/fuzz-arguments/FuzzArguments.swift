// libFuzzer entry point for `vacation` command lines; the check is FuzzTarget.arguments in FuzzChecks.
// Build and run with Scripts/fuzz.sh arguments. In a normal build this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzArguments(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.arguments.fuzz(data, size)
}
