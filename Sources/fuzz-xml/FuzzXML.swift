// libFuzzer entry point for Flickr REST XML feeds; the check is FuzzTarget.xml in FuzzChecks.
// Build and run with Scripts/fuzz.sh xml. In a normal build this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.xml.fuzz(data, size)
}
