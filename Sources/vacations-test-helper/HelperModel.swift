import ObjectGraph

// The documents tests' model (Tests/DocumentsTests/Support/DocumentTestModel.swift declares
// the same entities; keep the two in step, so that both open the same stores without migrating).

final class Entry: ManagedObject {
    @Attribute var batch: Int64 = 0
    @Attribute var text: String = ""
}

final class Counter: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Attribute var value: Int64 = 0
}

enum HelperModel {
    static func make() throws -> ObjectModel {
        try ObjectModel(Entry.self, Counter.self, versionIdentifier: "1")
    }
}
