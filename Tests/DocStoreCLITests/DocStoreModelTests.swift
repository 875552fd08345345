import Foundation
import Testing
import TestSupport

/// `docstore model` on models with every part issue 17 names: fetch indexes with their orders,
/// configurations, fetched properties, derived and transient attributes, composites, and
/// to-many relationships without an inverse.
@Suite("docstore model shows everything a model file declares")
struct DocStoreModelTests {
    static let corpus = Fixtures.root.deletingLastPathComponent().appendingPathComponent("coredata-more")

    static func json(_ path: String) throws -> [String: Any] {
        let run = docstore("model", path, "--json")
        #expect(run.code == 0 && run.errors == "", "\(run.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
    }

    static func entity(_ name: String, in document: [String: Any]) throws -> [String: Any] {
        let entities = try #require(document["entities"] as? [[String: Any]])
        return try #require(entities.first { $0["name"] as? String == name })
    }

    static func named(_ name: String, in list: Any?) throws -> [String: Any] {
        try #require((list as? [[String: Any]])?.first { $0["name"] as? String == name })
    }

    @Test("a compound fetch index with its name and orders, and the uniqueness constraints (CoreDataPlus SampleModel2)")
    func fetchIndexes() throws {
        let path = Self.corpus.appendingPathComponent("alemar11__CoreDataPlus/Tests/Resources/SampleModel/SampleModel.xcdatamodeld/SampleModel2.xcdatamodel").path
        let car = try Self.entity("Car", in: try Self.json(path))
        let indexes = try #require(car["fetchIndexes"] as? [[String: Any]])
        #expect(indexes.count == 1)
        #expect(indexes.first?["name"] as? String == "byMakerAndNumberPlate")
        let elements = try #require(indexes.first?["elements"] as? [[String: Any]])
        #expect(elements.map { $0["property"] as? String } == ["maker", "numberPlate"])
        #expect(elements.map { $0["order"] as? String } == ["ascending", "ascending"])
        #expect(elements.map { $0["type"] as? String } == ["Binary", "Binary"])
        #expect(car["uniquenessConstraints"] as? [[String]] == [["numberPlate"]])
        let text = docstore("model", path).output
        #expect(text.contains("\n  fetch index byMakerAndNumberPlate: maker, numberPlate\n"))
    }

    @Test("configurations, a fetched property and transient attributes (CoreStore; mogenerator's templates)")
    func configurationsAndFetchedProperties() throws {
        let coreStore = try Self.json(Self.corpus.appendingPathComponent("JohnEstropia__CoreStore/CoreStoreTests/Model.xcdatamodeld").path)
        let configurations = try #require(coreStore["configurations"] as? [[String: Any]])
        #expect(configurations.map { $0["name"] as? String } == ["Config1", "Config2"])
        #expect(configurations.map { $0["entities"] as? [String] } == [["TestEntity1AAA"], ["TestEntity2"]])
        let mogenerator = Self.corpus.appendingPathComponent("rentzsch__mogenerator/test/test.xcdatamodel").path
        let document = try Self.json(mogenerator)
        let requests = try #require(document["fetchRequests"] as? [[String: Any]])
        #expect(requests.count == 5)
        #expect(try Self.named("byParentName", in: requests)["predicate"] as? String == "parent.parentName == $parentName")
        let parent = try Self.entity("Parent", in: document)
        let transient = try Self.named("myInt16Transient", in: parent["attributes"])
        #expect(transient["transient"] as? Bool == true)
        #expect(transient["column"] is NSNull)
        #expect(try Self.named("myInt16", in: parent["attributes"])["transient"] as? Bool == false)
        let children = try Self.named("children", in: parent["relationships"])
        #expect(children["inverse"] is NSNull)
        #expect(children["toMany"] as? Bool == true)
        #expect(children["inverseColumn"] as? String == "Z8CHILDREN")
        #expect(children["deleteRule"] as? String == "cascade")
        let ordered = try Self.named("orderedChildren", in: parent["relationships"])
        #expect(ordered["ordered"] as? Bool == true && ordered["inverseColumn"] as? String == "ZPARENT")
        let lines = docstore("model", mogenerator).output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("children to-many Child (no inverse) ZHUMAN.Z8CHILDREN"))
        #expect(lines.contains("orderedChildren to-many Child, ordered (inverse parent) (the inverse's key)"))
        #expect(lines.contains("myInt16Transient Integer 16 (transient)"))
    }

    @Test("a composite with its elements' types, defaults and columns, nested composites included (MomXML)")
    func composites() throws {
        let path = Self.corpus.appendingPathComponent("phimage__MomXML/Tests/Model.xcdatamodeld").path
        let produit = try Self.entity("Produit", in: try Self.json(path))
        let composite = try Self.named("attribute1", in: produit["attributes"])
        #expect(composite["type"] as? String == "Composite")
        #expect(composite["column"] is NSNull)
        let elements = try #require(composite["elements"] as? [[String: Any]])
        #expect(elements.map { $0["name"] as? String } == ["one", "two", "three"])
        #expect(elements.map { $0["path"] as? String } == ["attribute1.one", "attribute1.two", "attribute1.three"])
        #expect(elements.map { $0["column"] as? String } == ["ZONE", "ZTWO", nil])
        #expect(elements.first?["default"] as? Int == 0)
        #expect(elements.last?["type"] as? String == "Composite")
        #expect((elements.last?["elements"] as? [Any])?.isEmpty == true)
        let lines = docstore("model", path).output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("attribute1 Composite (its elements)"))
        #expect(lines.contains("attribute1.one Integer 16 = 0 ZONE"))
    }

    @Test("a derived attribute shows its expression; an Undefined transient its type")
    func derivedAndUndefined() throws {
        let directory = try TemporaryDirectory()
        let model = directory.path("Derived.xcdatamodel")
        try FileManager.default.createDirectory(at: model, withIntermediateDirectories: true)
        try Data("""
            <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
            <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                <entity name="Book">
                    <attribute name="cache" optional="YES" transient="YES"/>
                    <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
                    <relationship name="pages" optional="YES" toMany="YES" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
                </entity>
                <entity name="Page">
                    <relationship name="book" optional="YES" maxCount="1" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
                </entity>
            </model>
            """.utf8).write(to: model.appendingPathComponent("contents"))
        let book = try Self.entity("Book", in: try Self.json(model.path))
        let derived = try Self.named("pagesCount", in: book["attributes"])
        #expect(derived["derivation"] as? String == "pages.@count")
        #expect(derived["column"] as? String == "ZPAGESCOUNT")
        let cache = try Self.named("cache", in: book["attributes"])
        #expect(cache["type"] as? String == "Undefined" && cache["transient"] as? Bool == true && cache["column"] is NSNull)
        #expect(docstore("model", model.path).output.contains("pagesCount  Integer 64, derived from pages.@count  ZPAGESCOUNT"))
    }
}
