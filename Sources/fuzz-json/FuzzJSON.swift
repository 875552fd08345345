// libFuzzer entry point for Flickr JSON and JSONP feeds; the check is FuzzTarget.json in FuzzChecks.
// Build and run with Scripts/fuzz.sh json. In a normal build this links and does nothing.
import FuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    FuzzTarget.json.fuzz(data, size)
}
