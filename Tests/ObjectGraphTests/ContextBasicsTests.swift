import ObjectGraphTestModels
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("Objects: insert, save, uniquing, faulting, every attribute type")
struct ContextBasicsTests {
    @Test("a saved object has a permanent ID, its row, Z_OPT 1, and Z_MAX moves on")
    func insertAndSave() throws {
        let store = try TestStore()
        let context = store.context()
        let place = Place(context: context)
        place.name = "Lisbon"
        #expect(place.objectID.isTemporary)
        #expect(context.hasChanges)
        try context.save()
        #expect(!context.hasChanges)
        #expect(place.objectID == ObjectID(entityNumber: 7, primaryKey: 1))
        #expect(try store.rows("SELECT Z_PK, Z_ENT, Z_OPT, ZNAME, ZFIRSTVISITED FROM ZPLACE")
                == [[.integer(1), .integer(7), .integer(1), .text("Lisbon"), .null]])
        #expect(try store.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Place'") == [[.integer(1)]])
        place.firstVisited = Date(timeIntervalSinceReferenceDate: 100)
        try context.save()
        // TIMESTAMP has numeric affinity: SQLite keeps a whole number of seconds as an INTEGER.
        #expect(try store.rows("SELECT Z_OPT, ZFIRSTVISITED FROM ZPLACE") == [[.integer(2), .integer(100)]])
        let copy = try store.context().existingObject(with: place.objectID, as: Place.self)
        #expect(copy.firstVisited == Date(timeIntervalSinceReferenceDate: 100))
        copy.firstVisited = Date(timeIntervalSinceReferenceDate: 100)
        #expect(copy.changedValues.isEmpty)
    }

    @Test("every attribute type round-trips with its edge values")
    func roundTrip() throws {
        let store = try TestStore()
        let uuid = UUID()
        let cases: [(Sample) -> Void] = [
            { $0.large = .min; $0.native = .max; $0.small = .min; $0.medium = .max },
            // Decimals keep 15 significant digits: a DECIMAL column has numeric affinity, as in Core Data.
            { $0.double = -1e-300; $0.float = .greatestFiniteMagnitude; $0.decimal = Decimal(string: "1234567890.12345")! },
            { $0.double = .infinity; $0.decimal = Decimal(string: "0.1")! },
            { $0.date = Date(timeIntervalSinceReferenceDate: -3_000_000_000.5); $0.data = Data() },
            { $0.text = "東京 🏖️ e\u{301}"; $0.optionalText = ""; $0.uuid = uuid; $0.url = URL(string: "https://example.com/a?b=c")! },
            { $0.flag = true; $0.data = Data((0...255).map { UInt8($0) }); $0.date = Date(timeIntervalSince1970: 0) },
        ]
        for (index, configure) in cases.enumerated() {
            let context = store.context()
            let sample = Sample(context: context)
            sample.required = "case \(index)"
            configure(sample)
            try context.save()
            let reader = store.context()
            let copy = try reader.existingObject(with: sample.objectID, as: Sample.self)
            #expect(copy.required == "case \(index)")
            #expect(copy.large == sample.large && copy.native == sample.native && copy.small == sample.small && copy.medium == sample.medium)
            #expect(copy.double == sample.double)
            #expect(copy.float == sample.float)
            #expect(copy.decimal == sample.decimal)
            #expect(copy.date == sample.date)
            #expect(copy.data == sample.data)
            #expect(copy.text == sample.text && copy.optionalText == sample.optionalText)
            #expect(copy.uuid == sample.uuid && copy.url == sample.url && copy.flag == sample.flag)
        }
        #expect(try store.rows("SELECT typeof(ZDATA) FROM ZSAMPLE WHERE ZREQUIRED = 'case 3'") == [[.text("blob")]])
        #expect(try store.rows("SELECT length(ZUUID) FROM ZSAMPLE WHERE ZREQUIRED = 'case 4'") == [[.integer(16)]])
    }

    @Test("a string property reads text as stored, and a blob or NULL another writer left as fromStored makes them")
    func stringPropertiesReadAnyStoredValue() throws {
        let store = try TestStore()
        let context = store.context()
        let samples = (0..<5).map { _ -> Sample in
            let sample = Sample(context: context)
            sample.required = "set"
            return sample
        }
        try context.save()
        let keys = samples.map(\.objectID.primaryKey)
        let stored: [(String, String)] = [("'words'", "'words'"), ("42", "-7"), ("2.5", "1e300"), ("x'c3a96b'", "x'ff'"), ("NULL", "NULL")]
        try store.sql { connection in
            for (key, (text, optional)) in zip(keys, stored) {
                try connection.execute("UPDATE ZSAMPLE SET ZTEXT = \(text), ZOPTIONALTEXT = \(optional) WHERE Z_PK = \(key)")
            }
        }
        let fresh = store.context()
        let read = try keys.map { key in
            try fresh.existingObject(with: ObjectID(entityNumber: samples[0].objectID.entityNumber, primaryKey: key), as: Sample.self)
        }
        #expect(read.map(\.text) == ["words", "42", "2.5", "ék", ""])
        // A VARCHAR column keeps numbers as SQLite's text of them; blobs stay blobs.
        #expect(read.map(\.optionalText) == ["words", "-7", "1.0e+300", "\u{FFFD}", nil])
        #expect(try read.map { String.fromStored(try $0.storedValue(forKey: "text")) } == read.map(\.text))
        #expect(try read.map { String?.fromStored(try $0.storedValue(forKey: "optionalText")) } == read.map(\.optionalText))
    }

    @Test("defaults apply to new objects; a required attribute without a value fails the save by name")
    func defaultsAndRequired() throws {
        let store = try TestStore()
        let context = store.context()
        let sample = Sample(context: context)
        #expect(sample.text == "default")
        #expect(sample.optionalText == nil)
        let error = #expect(throws: ValidationError.self) { try context.save() }
        #expect(error?.rule == .required)
        #expect(error?.property == "required")
        #expect(error?.description == "Sample t\(-sample.objectID.primaryKey): required is required")
        #expect(try store.rows("SELECT count(*) FROM ZSAMPLE") == [[.integer(0)]])
        sample.required = "now"
        try context.save()
    }

    @Test("NaN is refused by validation rather than silently stored as NULL")
    func notANumber() throws {
        let store = try TestStore()
        let context = store.context()
        let sample = Sample(context: context)
        sample.required = "x"
        sample.double = .nan
        let error = #expect(throws: ValidationError.self) { try context.save() }
        #expect(error?.rule == .notANumber)
        #expect(error?.property == "double")
    }

    @Test("one instance per row per context; another context has its own")
    func uniquing() throws {
        let store = try TestStore()
        let context = store.context()
        let place = Place(context: context)
        place.name = "Porto"
        try context.save()
        #expect(context.object(with: place.objectID) === place)
        let other = store.context()
        let first = try other.existingObject(with: place.objectID)
        let second = try other.existingObject(with: place.objectID)
        #expect(first === second)
        #expect(first !== place)
    }

    @Test("untouched faults issue no queries; touching one loads it with one query")
    func faulting() throws {
        let store = try TestStore()
        let writer = store.context()
        let place = Place(context: writer)
        place.name = "Kyoto"
        let photo = Photo(context: writer)
        photo.unique = "1"
        photo.place = place
        try writer.save()

        let recorder = SQLTraceRecorder()
        try store.sql { recorder.attach(to: $0) }
        let reader = store.context()
        let fault = try #require(reader.object(with: photo.objectID) as? Photo)
        #expect(fault.isFault)
        #expect(recorder.statements.isEmpty)
        #expect(fault.unique == "1")
        #expect(recorder.selects.count == 1)
        let placeFault = try #require(fault.place)
        #expect(placeFault.isFault)
        #expect(recorder.selects.count == 1)
        #expect(placeFault.name == "Kyoto")
        #expect(recorder.selects.count == 2)
        #expect(placeFault.photos == [fault])
        #expect(recorder.selects.count == 3)
    }

    @Test("a fault whose row was deleted reads as empty instead of crashing")
    func missingRow() throws {
        let store = try TestStore()
        let context = store.context()
        let fault = try #require(context.object(with: ObjectID(entityNumber: 7, primaryKey: 99)) as? Place)
        #expect(fault.name == "")
        #expect(throws: ContextError.self) { try store.context().existingObject(with: ObjectID(entityNumber: 7, primaryKey: 99)) }
    }

    @Test("changedValues and hasChanges track what differs from the saved state")
    func changes() throws {
        let store = try TestStore()
        let context = store.context()
        let place = Place(context: context)
        place.name = "Reykjavík"
        try context.save()
        #expect(place.changedValues.isEmpty)
        place.name = "Reykjavik"
        #expect(place.changedValues == ["name": .text("Reykjavik")])
        #expect(context.hasChanges)
        place.name = "Reykjavík"
        #expect(place.changedValues.isEmpty)
        #expect(!context.hasChanges)
    }

    @Test("objects of a model built from data are read and written by key")
    func dynamicAccess() throws {
        let directory = try TemporaryDirectory()
        let model = try ObjectModel(entities: [EntityDescription(name: "Ebook", attributes: [
            AttributeDescription(name: "title", type: .string), AttributeDescription(name: "pages", type: .integer32)])])
        let coordinator = try StoreCoordinator(url: directory.path("s.sqlite"), model: model)
        let context = ObjectContext(coordinator: coordinator)
        let book = try context.insertObject(entityName: "Ebook")
        try book.setValue("Moby Dick", forKey: "title")
        try book.setStoredValue(.text("635"), forKey: "pages")
        #expect(try book.value(forKey: "pages", as: Int32.self) == 635)
        #expect(throws: PropertyAccessError.self) { try book.setValue(1, forKey: "missing") }
        #expect(throws: PropertyAccessError.self) { try book.setStoredValue(.text("many"), forKey: "pages") }
        #expect(throws: ContextError.self) { try context.insertObject(entityName: "Nope") }
        try context.save()
        #expect(try coordinator.withConnection { try $0.scalar("SELECT ZTITLE || ZPAGES FROM ZEBOOK") } == .text("Moby Dick635"))
    }
}
