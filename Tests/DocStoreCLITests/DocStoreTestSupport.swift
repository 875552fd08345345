import CommandLineKit
import DocStoreCLI
import Foundation
import ObjectGraph
import SQLiteDB
import TestSupport

/// What one `docstore` run gave.
struct DocStoreRun: Equatable {
    var code: Int32
    var output: String
    var errors: String
}

/// Runs `docstore` in-process with captured streams.
func docstore(_ arguments: String..., environment: [String: String] = [:]) -> DocStoreRun {
    var output = ""
    var errors = ""
    let code = DocStore.run(arguments, environment: environment, output: &output, errors: &errors)
    return DocStoreRun(code: code, output: output, errors: errors)
}

/// The Core Data fixtures of the ObjectGraph tests, read where they lie (never written).
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("CoreDataFilesTests/Fixtures/coredata")

    static func path(_ relative: String) -> String { root.appendingPathComponent(relative).path }

    static let modelBundle = path("bsmanageddocument/Model.xcdatamodeld")
    static let model1 = path("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel")
    static let model2 = path("bsmanageddocument/Model.xcdatamodeld/Model 2.xcdatamodel")

    /// A copy of the BSManagedDocument package, `<directory>/version1MRC.bstest`.
    static func ebookDocument(in directory: TemporaryDirectory) throws -> URL {
        let destination = directory.path("version1MRC.bstest")
        try FileManager.default.copyItem(at: root.appendingPathComponent("bsmanageddocument/version1MRC.bstest"), to: destination)
        return destination
    }

    /// A copy of the MoneyWell store file, `<directory>/Test.sqlite`.
    static func moneyWellStore(in directory: TemporaryDirectory) throws -> URL {
        let destination = directory.path("Test.sqlite")
        try FileManager.default.copyItem(at: root.appendingPathComponent("moneywell/Test.moneywell/StoreContent/persistentStore"),
                                         to: destination)
        return destination
    }

    static func rows(_ query: String, in store: URL) throws -> [[SQLiteValue]] {
        let connection = try Connection(path: store.path, configuration: .init(readOnly: true, journalMode: nil, synchronous: nil))
        let statement = try connection.prepare(query)
        var rows: [[SQLiteValue]] = []
        try statement.forEachRow { row in rows.append((0..<row.columnCount).map { row.value(at: $0) }) }
        return rows
    }
}

/// A trip model written as Xcode writes models: every kind of attribute, a to-one, a one-to-many,
/// a many-to-many and inheritance.
enum TripModel {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
            <entity name="Guide" parentEntity="Person">
                <attribute name="licence" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Person">
                <attribute name="name" attributeType="String"/>
                <relationship name="trips" optional="YES" toMany="YES" destinationEntity="Trip" inverseName="companions" inverseEntity="Trip"/>
            </entity>
            <entity name="Stop">
                <attribute name="name" attributeType="String"/>
                <relationship name="trip" optional="YES" maxCount="1" destinationEntity="Trip" inverseName="stops" inverseEntity="Trip"/>
            </entity>
            <entity name="Trip">
                <attribute name="budget" optional="YES" attributeType="Decimal"/>
                <attribute name="cover" optional="YES" attributeType="Binary"/>
                <attribute name="days" optional="YES" attributeType="Integer 16"/>
                <attribute name="identifier" optional="YES" attributeType="UUID"/>
                <attribute name="isDone" attributeType="Boolean" defaultValueString="NO"/>
                <attribute name="link" optional="YES" attributeType="URI"/>
                <attribute name="name" attributeType="String"/>
                <attribute name="rating" optional="YES" attributeType="Double"/>
                <attribute name="started" optional="YES" attributeType="Date"/>
                <relationship name="companions" optional="YES" toMany="YES" destinationEntity="Person" inverseName="trips" inverseEntity="Person"/>
                <relationship name="stops" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Stop" inverseName="trip" inverseEntity="Stop"/>
            </entity>
        </model>
        """

    /// Writes `Trip.xcdatamodel/contents` into `directory`.
    static func write(in directory: TemporaryDirectory) throws -> URL {
        let folder = directory.path("Trip.xcdatamodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(contents.utf8).write(to: folder.appendingPathComponent("contents"))
        return folder
    }

    /// A store made with the model, one object saved at a time so that keys are known:
    /// Person p1 Ana, Guide p2 Rui, Stop p1 Alfama and p2 Belém, Trip p1 Lisbon.
    static func makeStore(at url: URL, model: ObjectModel) throws {
        let coordinator = try StoreCoordinator(url: url, model: model)
        let context = ObjectContext(coordinator: coordinator)
        func insert(_ entity: String, _ values: [String: SQLiteValue]) throws -> ManagedObject {
            let object = try context.insertObject(entityName: entity)
            for (key, value) in values { try object.setStoredValue(value, forKey: key) }
            try context.save()
            return object
        }
        let ana = try insert("Person", ["name": .text("Ana")])
        let rui = try insert("Guide", ["name": .text("Rui"), "licence": .text("PT-1")])
        let alfama = try insert("Stop", ["name": .text("Alfama")])
        let belem = try insert("Stop", ["name": .text("Belém")])
        let trip = try insert("Trip", [
            "name": .text("Lisbon \"old town\"\n"), "budget": .text("1234.5"), "cover": .blob(Data([0, 1, 2, 255])),
            "days": .integer(7), "identifier": .text("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), "isDone": .integer(1),
            "link": .text("https://example.org/lisbon"), "rating": .real(4.5), "started": .real(700000000.25),
        ])
        try trip.setObjects([alfama, belem], forKey: "stops")
        try trip.setObjects([ana, rui], forKey: "companions")
        try context.save()
    }
}
