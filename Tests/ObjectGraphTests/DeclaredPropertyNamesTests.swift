import Foundation
@testable import ObjectGraph
import Testing

// A hierarchy whose classes list their properties, and classes that get the lists wrong.
private class NamedMedia: ManagedObject {
    @Attribute var caption: String?
    @Attribute(indexed: true) var taken: Date?
    override class var declaredPropertyNames: [String]? { ["caption", "taken"] }
}

private final class NamedPicture: NamedMedia {
    @Attribute var width: Int64 = 0
    @Relationship(inverse: "pictures") var album: NamedAlbum?
    override class var declaredPropertyNames: [String]? { ["width", "album"] }
}

private final class NamedAlbum: ManagedObject {
    @Attribute(unique: true) var title: String = ""
    @Relationship(inverse: "album", deleteRule: .cascade) var pictures: Set<NamedPicture>
    override class var declaredPropertyNames: [String]? { ["title", "pictures"] }
}

/// Lists one name too few.
private final class ShortList: ManagedObject {
    @Attribute var first: String?
    @Attribute var second: String?
    override class var declaredPropertyNames: [String]? { ["first"] }
}

/// Lists its names in another order than it declares them.
private final class SwappedList: ManagedObject {
    @Attribute var first: String?
    @Attribute var second: String?
    override class var declaredPropertyNames: [String]? { ["second", "first"] }
}

/// Gives no list of its own, so it inherits its superclass's.
private final class InheritedList: NamedMedia {
    @Attribute var height: Int64 = 0
}

@Suite("Property names a class declares stand in for reflection")
struct DeclaredPropertyNamesTests {
    private func expectSameModel(_ classes: [ManagedObject.Type]) throws {
        let declared = try ObjectModel(classes: classes)
        let reflected = try ObjectModel(classes: classes, byReflection: true)
        #expect(declared.versionHashes == reflected.versionHashes)
        #expect(declared.entities.map(\.name) == reflected.entities.map(\.name))
        for (ours, theirs) in zip(declared.entities, reflected.entities) {
            #expect(ours.attributes.map(\.declaration) == theirs.attributes.map(\.declaration))
            #expect(ours.relationships.map(\.declaration) == theirs.relationships.map(\.declaration))
            #expect(ours.parent == theirs.parent)
            #expect(ours.wrapperTargets.map { "\($0)" } == theirs.wrapperTargets.map { "\($0)" })
        }
    }

    @Test("a hierarchy with its names declared builds the model reflection builds, wrappers and all")
    func hierarchy() throws {
        try expectSameModel([NamedAlbum.self, NamedMedia.self, NamedPicture.self])
        #expect(ObjectModel.declaredPropertyNameMismatches(NamedAlbum.self, NamedMedia.self, NamedPicture.self) == [])
        let model = try ObjectModel(NamedAlbum.self, NamedPicture.self)
        let picture = try #require(model.entity(named: "NamedPicture"))
        #expect(picture.attributes.map(\.name) == ["caption", "taken", "width"])
        #expect(picture.relationships.map(\.name) == ["album"])
    }

    @Test("a list with too few names is a model error naming the class")
    func shortList() {
        #expect(throws: ModelError.self) { try ObjectModel(ShortList.self) }
        do {
            _ = try ObjectModel(ShortList.self)
        } catch {
            #expect("\(error)".contains("ShortList"))
        }
        #expect(ObjectModel.declaredPropertyNameMismatches(ShortList.self).count == 1)
    }

    @Test("names in another order than declared are found by the check")
    func swappedList() {
        #expect(ObjectModel.declaredPropertyNameMismatches(SwappedList.self)
                == [#"SwappedList: declaredPropertyNames ["second", "first"], reflection reads ["first", "second"]"#])
    }

    @Test("a class that inherits its superclass's list is read by reflection")
    func inheritedList() throws {
        try expectSameModel([NamedMedia.self, InheritedList.self])
        let model = try ObjectModel(NamedMedia.self, InheritedList.self)
        #expect(model.entity(named: "InheritedList")?.attributes.map(\.name) == ["caption", "taken", "height"])
        #expect(ObjectModel.declaredPropertyNameMismatches(InheritedList.self).count == 1)
    }
}
