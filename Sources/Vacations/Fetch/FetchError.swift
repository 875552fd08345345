/// Why `vacation fetch` got nothing to import. Each kind has its exit code (ARCHITECTURE.md §4):
/// the service unreachable or failing after retries is 69, Flickr's failure responses and
/// answers that are no feed are 65, a bad setting is 64, a local failure 1.
///
/// Messages never carry the API key: they are built from the method, the page and the host,
/// never from a URL, and the CLI still redacts the key from anything it prints.
package struct FetchError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// No answer, or no usable one, after the retries: timeouts, connection failures,
        /// interrupted transfers, 5xx, 429, or an HTTP error that retrying cannot mend (69).
        case unavailable
        /// Flickr answered, and the answer is a failure response (`stat: fail`) or not a feed of
        /// the kind asked for (65).
        case badResponse
        /// A setting that cannot work: the endpoint, the key, a test knob (64).
        case usage
        /// Nothing to do with Flickr: an answer could not be saved here (1).
        case failed
    }

    package var kind: Kind
    /// One line, without the `Error: ` label.
    package var message: String
    /// Flickr's code, for a failure response.
    var flickrCode: Int?

    package init(_ kind: Kind, _ message: String, flickrCode: Int? = nil) {
        self.kind = kind
        self.message = message
        self.flickrCode = flickrCode
    }

    package var description: String { message }
}
