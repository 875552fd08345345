import Foundation
import SQLiteDB
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

/// Composite attributes (Xcode 15's `<composite>`): each leaf element has a column of its own,
/// `Z<ELEMENT>`, where the composite sorts among its entity's properties; objects read and
/// write elements by path (`attribute1.one`) or the composite whole. Undefined attributes:
/// transients of any value, written by Xcode with no `attributeType`.
@Suite("Composite and Undefined attributes")
struct CompositeAndUndefinedTests {
    static let momXML = "phimage__MomXML/Tests/Model.xcdatamodeld"

    /// A box whose `size` nests a composite, and an attribute whose column an element wants too.
    static let boxes = CoreDataFixtures.model("""
        <entity name="Box">
            <attribute name="depth" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="scratch" optional="YES" transient="YES"/>
            <attribute name="size" optional="YES" attributeType="Composite" composite="Size"/>
        </entity>
        <composite name="Size">
            <attribute name="width" optional="YES" attributeType="Double" defaultValueString="1.5" usesScalarValueType="YES"/>
            <attribute name="inner" optional="YES" attributeType="Composite" composite="Inner"/>
        </composite>
        <composite name="Inner">
            <attribute name="depth" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
            <attribute name="label" optional="YES" attributeType="String"/>
        </composite>
        """)

    @Test("MomXML's Xcode 15 model loads: the composite's elements get columns where it sorts, the empty nested one none")
    func momXMLLayout() throws {
        let file = try XCDataModelReader.read(at: try CoreDataFixtures.more(Self.momXML))
        #expect(file.composites.map(\.name) == ["Composite", "Composite1"])
        #expect(file.entity(named: "Produit")?.attribute(named: "attribute1")?.compositeName == "Composite")
        let model = try ObjectModel(file: file)
        let produit = try #require(model.entity(named: "Produit"))
        #expect(model.columns(ofTable: "ZPRODUIT").map(\.name)
            == ["ZONE", "ZID", "ZPRODUIT_COMMANDE", "ZPRIX", "ZTWO", "ZREFERENCE", "ZATTRIBUTE"])
        #expect(produit.attributes.map(\.name) == ["attribute", "attribute1.one", "attribute1.two", "id", "prix", "reference"])
        #expect(produit.attribute(named: "attribute1.one")?.composite == "attribute1")
        #expect(produit.attribute(named: "attribute1.one")?.declaration.defaultValue == .integer(0))
        #expect(produit.composites.map(\.declaration.elements.count) == [3])
        #expect(produit.composites.first?.declaration.elements.map(\.name) == ["one", "two", "three"])
    }

    @Test("a composite hashes as Core Data's NSCompositeAttributeDescription: its leaf elements' hashes, by name")
    func compositeHash() throws {
        let file = try XCDataModelReader.read(at: try CoreDataFixtures.more(Self.momXML))
        let attribute = try #require(file.entity(named: "Produit")?.attribute(named: "attribute1"))
        func elementHash(_ name: String, _ code: Int32) -> Data {
            var hasher = SHA256()
            hasher.update(CoreDataVersionHash.propertyHash(name: name, isOptional: true, isTransient: false, versionHashModifier: nil))
            let bits = UInt32(bitPattern: code)
            hasher.update([UInt8(truncatingIfNeeded: bits), UInt8(truncatingIfNeeded: bits >> 8), UInt8(truncatingIfNeeded: bits >> 16), UInt8(truncatingIfNeeded: bits >> 24)])
            return Data(hasher.finalize())
        }
        var expected = SHA256()
        expected.update(elementHash("one", 100))
        expected.update(elementHash("two", 700))
        #expect(try CoreDataVersionHash.attributeHash(attribute, entityName: "Produit", in: file) == Data(expected.finalize()))
        #expect(throws: XCDataModelError.self) { try CoreDataVersionHash.attributeHash(attribute, entityName: "Produit") }
    }

    @Test("nested composites flatten to paths; an element whose column is taken gets a number, as Core Data numbers names")
    func nestedLayout() throws {
        let model = try ObjectModel(file: try XCDataModelReader.parse(Self.boxes))
        #expect(model.columns(ofTable: "ZBOX").map(\.name) == ["ZDEPTH", "ZDEPTH1", "ZWIDTH", "ZLABEL"])
        let box = try #require(model.entity(named: "Box"))
        #expect(box.attributes.map { "\($0.name)=\($0.column ?? "-")" }
            == ["depth=ZDEPTH", "scratch=-", "size.width=ZWIDTH", "size.inner.depth=ZDEPTH1", "size.inner.label=ZLABEL"])
        #expect(box.compositePaths == ["size", "size.inner"])
    }

    @Test("elements are written and read by path or whole, saved in their columns, and queried in SQL and in memory")
    func values() throws {
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let model = try ObjectModel(file: try XCDataModelReader.parse(Self.boxes))
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("Boxes.sqlite"), model: model)
            let context = ObjectContext(coordinator: coordinator)
            let small = try context.insertObject(entityName: "Box")
            #expect(try small.compositeValues(forKey: "size") == ["width": .real(1.5), "inner.depth": .null, "inner.label": .null])
            try small.setValue(Int32(7), forKey: "depth")
            try small.setValue(Int32(2), forKey: "size.inner.depth")
            try small.setValue("small", forKey: "size.inner.label")
            let large = try context.insertObject(entityName: "Box")
            try large.setCompositeValues(["width": .real(40), "inner.depth": .integer(30)], forKey: "size")
            #expect(try large.compositeValues(forKey: "size.inner") == ["depth": .integer(30), "label": .null])
            #expect(throws: PropertyAccessError.self) { try large.setCompositeValues(["height": .real(1)], forKey: "size") }
            #expect(throws: PropertyAccessError.self) { try large.compositeValues(forKey: "depth") }
            try context.save()

            let rows = try coordinator.withConnection { connection in
                try connection.rows("SELECT ZDEPTH, ZDEPTH1, ZWIDTH, ZLABEL FROM ZBOX ORDER BY Z_PK") { row in
                    (0..<4).map { row.value(at: $0).description }.joined(separator: " ")
                }
            }
            #expect(rows == ["7 2 1.5 'small'", "NULL 30 40.0 NULL"])

            let reader = ObjectContext(coordinator: coordinator)
            let cases: [(String, [Int32])] = [("size.width > 2", [30]), ("size.inner.label == 'small'", [2]),
                                              ("size.inner.depth < depth", [2]), ("size.inner.depth >= 2", [2, 30])]
            for (format, expected) in cases {
                let found = try reader.fetch(try FetchRequest<ManagedObject>(entityName: "Box", predicate: format))
                    .map { try $0.value(forKey: "size.inner.depth", as: Int32.self) }.sorted()
                #expect(found == expected, "\(format) in SQL")
                let predicate = try ObjectPredicate(format: format)
                let inMemory = try [small, large].filter { try predicate.evaluate(with: $0) }
                    .map { try $0.value(forKey: "size.inner.depth", as: Int32.self) }.sorted()
                #expect(inMemory == expected, "\(format) in memory")
            }
        }
    }

    @Test("composite elements of types Core Data refuses in a composite are refused")
    func refusedElements() {
        for element in [AttributeDescription(name: "any", type: .undefined),
                        AttributeDescription(name: "blob", type: .binary, allowsExternalBinaryDataStorage: true)] {
            let entity = EntityDescription(name: "A", attributes: [AttributeDescription(name: "c", type: .composite, elements: [element])])
            #expect(throws: ModelError.self) { try ObjectModel(entities: [entity]) }
        }
        let notComposite = EntityDescription(name: "A", attributes: [
            AttributeDescription(name: "c", type: .string, elements: [AttributeDescription(name: "x", type: .string)])])
        #expect(throws: ModelError("attribute A.c has elements but is not a composite")) { try ObjectModel(entities: [notComposite]) }
    }

    // MARK: - Undefined

    @Test("an attribute without attributeType is Undefined: a transient holds any value in memory and is never stored")
    func undefinedTransient() throws {
        let file = try XCDataModelReader.parse(Self.boxes)
        #expect(file.entity(named: "Box")?.attribute(named: "scratch")?.attributeType == "Undefined")
        #expect(file.entity(named: "Box")?.attribute(named: "scratch")?.attributeTypeCode == 0)
        let model = try ObjectModel(file: file)
        let scratch = try #require(model.entity(named: "Box")?.attribute(named: "scratch"))
        #expect(scratch.type == .undefined && scratch.column == nil && scratch.declaration.isTransient)
        try CoreDataFixtures.withTemporaryDirectory { directory in
            let coordinator = try StoreCoordinator(url: directory.appendingPathComponent("U.sqlite"), model: model)
            let context = ObjectContext(coordinator: coordinator)
            let box = try context.insertObject(entityName: "Box")
            for value in [SQLiteValue.text("note"), .integer(42), .blob(Data([1, 2])), .real(0.5)] {
                try box.setStoredValue(value, forKey: "scratch")
                #expect(try box.storedValue(forKey: "scratch") == value)
            }
            try context.save()
            let reread = try #require(try ObjectContext(coordinator: coordinator).fetch(FetchRequest<ManagedObject>(entityName: "Box")).first)
            #expect(try reread.storedValue(forKey: "scratch") == .null)
        }
    }

    @Test("a stored (non-transient) Undefined attribute reads and hashes, but no store can hold it")
    func undefinedStored() throws {
        let file = try XCDataModelReader.parse(CoreDataFixtures.model("<entity name=\"A\"><attribute name=\"x\" optional=\"YES\"/></entity>"))
        var hasher = SHA256()
        hasher.update(CoreDataVersionHash.propertyHash(name: "x", isOptional: true, isTransient: false, versionHashModifier: nil))
        hasher.update([0, 0, 0, 0])
        #expect(try CoreDataVersionHash.attributeHash(try #require(file.entity(named: "A")?.attributes.first)) == Data(hasher.finalize()))
        #expect(throws: ModelError("attribute A.x has type Undefined, which a SQLite store cannot hold")) {
            try ObjectModel(file: file)
        }
    }
}
