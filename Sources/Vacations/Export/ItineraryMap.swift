import Foundation

/// The itinerary map of the HTML album: coordinates projected with Web Mercator and fitted,
/// with a margin, to a fixed SVG view box; no tiles, nothing loaded.
///
/// ```swift
/// var bounds = MapBounds()
/// bounds.include(Coordinate(latitude: 38.7, longitude: -9.1))
/// let frame = MapFrame(bounds: bounds)
/// frame.point(lisbon)              // (x, y) in the view box
/// ```
struct MapBounds: Sendable, Equatable {
    private(set) var minimumX = Double.infinity, maximumX = -Double.infinity
    private(set) var minimumY = Double.infinity, maximumY = -Double.infinity

    init() {}

    var isEmpty: Bool { minimumX > maximumX }

    mutating func include(_ coordinate: Coordinate) {
        let (x, y) = MapFrame.project(coordinate)
        minimumX = min(minimumX, x)
        maximumX = max(maximumX, x)
        minimumY = min(minimumY, y)
        maximumY = max(maximumY, y)
    }
}

/// Places projected points in the view box: the bounds scaled uniformly (the map keeps its
/// shape) to the largest size that fits inside the margin, centred.
struct MapFrame: Sendable {
    static let width = 960.0
    /// The tallest view box; a wide itinerary gets a lower one, no lower than `minimumHeight`.
    static let maximumHeight = 540.0
    static let minimumHeight = 240.0
    static let margin = 36.0
    /// Web Mercator's latitude limit: the projection reaches infinity at the poles.
    static let latitudeLimit = 85.051_128_78

    /// The view box's height for these bounds.
    let height: Double
    private let scale: Double
    private let offsetX: Double
    private let offsetY: Double

    init(bounds: MapBounds) {
        let availableWidth = Self.width - 2 * Self.margin
        guard !bounds.isEmpty else {
            height = Self.minimumHeight
            scale = 1
            offsetX = Self.width / 2
            offsetY = Self.minimumHeight / 2
            return
        }
        let spanX = bounds.maximumX - bounds.minimumX, spanY = bounds.maximumY - bounds.minimumY
        // As tall as the itinerary's shape asks at full width, within the limits.
        let natural = spanX > 0 ? availableWidth * spanY / spanX + 2 * Self.margin : Self.maximumHeight
        height = min(max(natural, Self.minimumHeight), Self.maximumHeight)
        let availableHeight = height - 2 * Self.margin
        // One point (or photos all at one spot) sits in the middle at any scale.
        let fitted = min(spanX > 0 ? availableWidth / spanX : .infinity, spanY > 0 ? availableHeight / spanY : .infinity)
        scale = fitted.isFinite ? fitted : 1
        offsetX = (Self.width - spanX * scale) / 2 - bounds.minimumX * scale
        // SVG's y grows downwards, Mercator's northwards.
        offsetY = (height - spanY * scale) / 2 + bounds.maximumY * scale
    }

    /// Mercator x (radians of longitude) and y.
    static func project(_ coordinate: Coordinate) -> (x: Double, y: Double) {
        let latitude = min(max(coordinate.latitude, -latitudeLimit), latitudeLimit) * .pi / 180
        return (coordinate.longitude * .pi / 180, log(tan(.pi / 4 + latitude / 2)))
    }

    /// The point of `coordinate` in the view box.
    func point(_ coordinate: Coordinate) -> (x: Double, y: Double) {
        let (x, y) = Self.project(coordinate)
        return (offsetX + x * scale, offsetY - y * scale)
    }

    /// `x,y` with one decimal, as SVG attributes and point lists take them.
    func text(_ coordinate: Coordinate) -> (x: String, y: String) {
        let (x, y) = point(coordinate)
        return (Self.oneDecimal(x), Self.oneDecimal(y))
    }

    static func oneDecimal(_ value: Double) -> String {
        let tenths = (value * 10).rounded()
        let whole = Int64(tenths) / 10, fraction = abs(Int64(tenths) % 10)
        return (tenths < 0 && whole == 0 ? "-" : "") + "\(whole).\(fraction)"
    }
}
