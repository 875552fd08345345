import Foundation
import Testing
@testable import Vacations

@Suite("The album's map: Web Mercator fitted to the view box with a margin")
struct ItineraryMapTests {
    private func frame(_ coordinates: [Coordinate]) -> MapFrame {
        var bounds = MapBounds()
        for coordinate in coordinates { bounds.include(coordinate) }
        return MapFrame(bounds: bounds)
    }

    @Test("points on the equator span the width between the margins, at the middle of the lowest view box")
    func equator() {
        let west = Coordinate(latitude: 0.0001, longitude: -10), east = Coordinate(latitude: 0.0001, longitude: 10)
        let map = frame([west, east])
        #expect(map.height == MapFrame.minimumHeight)
        #expect(map.text(west) == ("36.0", "120.0"))
        #expect(map.text(east) == ("924.0", "120.0"))
        #expect(map.text(Coordinate(latitude: 0.0001, longitude: 0)) == ("480.0", "120.0"))
    }

    @Test("a north–south itinerary takes the tallest view box and spans its height; north is up")
    func tall() {
        let north = Coordinate(latitude: 60, longitude: 5), south = Coordinate(latitude: -60, longitude: 5.1)
        let map = frame([north, south])
        #expect(map.height == MapFrame.maximumHeight)
        let (_, northY) = map.point(north), (_, southY) = map.point(south)
        #expect(abs(northY - 36) < 1e-9 && abs(southY - 504) < 1e-9)
    }

    @Test("Mercator stretches latitudes: the y of 60° is ln(tan(45° + 30°)); poles are clamped")
    func projection() {
        let (_, y) = MapFrame.project(Coordinate(latitude: 60, longitude: 0))
        #expect(abs(y - log(tan(Double.pi / 4 + Double.pi / 6))) < 1e-12)
        #expect(MapFrame.project(Coordinate(latitude: 90, longitude: 0)).y == MapFrame.project(Coordinate(latitude: 85.05112878, longitude: 0)).y)
        #expect(MapFrame.project(Coordinate(latitude: 10, longitude: 180)).x == .pi)
    }

    @Test("one point, or none, sits in the middle")
    func single() {
        let lisbon = Coordinate(latitude: 38.7, longitude: -9.1)
        let map = frame([lisbon, lisbon])
        #expect(map.text(lisbon) == ("480.0", "\(MapFrame.oneDecimal(map.height / 2))"))
        #expect(MapFrame(bounds: MapBounds()).height == MapFrame.minimumHeight)
        #expect(MapFrame.oneDecimal(-0.04) == "-0.0" || MapFrame.oneDecimal(-0.04) == "0.0")
        #expect(MapFrame.oneDecimal(-12.34) == "-12.3" && MapFrame.oneDecimal(7.25) == "7.3" && MapFrame.oneDecimal(-0.5) == "-0.5")
    }
}
