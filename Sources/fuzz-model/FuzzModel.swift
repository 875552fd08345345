// libFuzzer entry point for compiled models (.mom) and Z_MODELCACHE contents; the check is
// FuzzTarget.model in FuzzChecks. Build and run with Scripts/fuzz.sh model. In a normal build
// this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModel(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.model.fuzz(data, size)
}
