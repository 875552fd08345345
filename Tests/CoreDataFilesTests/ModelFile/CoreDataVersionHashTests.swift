import Foundation
import Testing
@testable import CoreDataFiles
@testable import ObjectGraph

@Suite("Core Data entity version hashes")
struct CoreDataVersionHashTests {
    /// `NSStoreModelVersionHashes` of MoneyWell's `Test.moneywell` store (`Z_METADATA.Z_PLIST`),
    /// written by Apple's Core Data (NSPersistenceFrameworkVersion 977).
    static let moneyWellStoreHashes: [String: String] = [
        "Account": "61a160debea0fea75d97b08445e4b117dced60d328f597e0f7a38cbbd48dcda0",
        "AccountGroup": "75fbf653c007c9b879b6d0d74c17b68326ad7206e2b4478fc0beaa80ab902377",
        "Activity": "b3519987c3e9bcf2b052af50265da5b6e308456b227165cc2544d7151504fb46",
        "Attachment": "f9637e0ba0d7a07accdc2883791fd0e0a77e514658c456e4ad0f2d67b95a7468",
        "Bucket": "a0c69e083c0c6d45cf0c617e0e525687346fe33be0cb5a0a15ae5dacda1010a1",
        "BucketGroup": "b1b3a4e81852cc096208d8ac45527bad3952525de81534344cb47fac32a84517",
        "BucketStartingBalance": "aebc1609b66f7b5138460c44276247f98b2e8706d94148d4723d4cce5be74575",
        "BucketTransfer": "b4fc5a3acf81f2a3c1e06a6337daa30490275e27ddae97846c30321e9e5d0275",
        "Event": "157935a03fc75f851a82e8636f3c8704e7a2b6aac6797ab01c05f58defff4fc7",
        "FavoriteAlias": "c6da2348862610906688ce373b87bd04e4f0d8b15a9ef0725ca112be58995cab",
        "FavoriteTransaction": "f502cc369de4e3accc7dae04cf8f01e3a5f4f13d7e3bc37c211db3696e266185",
        "InvestmentHolding": "61abb27ebd835661f53183fa65d8626b6b649761277cc60cf247f92f020dbf16",
        "InvestmentSecurity": "c78dbc731610c6ccdd7d5ad7d904c240e7f8004fa30c2f86f406512bd4c56cfd",
        "InvestmentSecurityId": "fecb63699fed3675e25b418957c3214559e61b052f58bbcf866cdd2c9433c3f0",
        "Location": "35385a6a599e0046ccd7ef56ca782468f328e804e22c4c1f15266d318b7fe207",
        "OnlineConnection": "1ab7fa0c990f108cd48a2a6ab9c09d981ce9bb9e4636d8da3d182965b5888e11",
        "RecurrenceRule": "62de7dfec8f8af7e512318b484a582c499a5e0bbaeb66de8de53c7379f126d75",
        "ScheduledTransaction": "57c3a247d75aac3bac3402346bc347146b05c2acb5e5f3e7cca0fe38b85a730f",
        "Settings": "1e8ae915b42aa9bffe53ea274f67d64f44dc2b986746b6b34c6b3a7524ebd4ab",
        "SmartBucket": "fcabf973fd83af9874f05fb76072a6475b878e423e92e0d61eca2a339ac64c4b",
        "SpendingPlan": "943035aa7b9e0eef0b7652050e366e92c2fdde778c0ce05bbe5de664fa0c1387",
        "Statement": "d9fa40d2a71d6e26b1e09c6c51dd685f747ca7839101c6df2437084eb68173a1",
        "TICDSSyncChange": "dd9853bb9b2445ccd6f7bc3f59b6673ce55d7b6b11bca199c164acdcfeea88b2",
        "TICDSSyncChangeSet": "4148f46c5d747348162e8f9cee9785e54bec8843d35a141bf1219de3d08d1e1b",
        "Tag": "c98d58d4ebd305fdce478e8fb91e404f939d0a96ee4cf569cb497ca0949ba66a",
        "Transaction": "78343ddd5a707af7e4720c30f374b48613972bc9843c54eb4e6ac5a69dffcd23",
    ]

    private static func ebookModel() throws -> XCDataModelFile {
        try XCDataModelReader.read(at: CoreDataFixtures.url("bsmanageddocument/Model.xcdatamodeld/Model 1.xcdatamodel"))
    }

    private static func hex(_ data: Data) -> String {
        SHA256.hex(data)
    }

    // MARK: - Against stores written by Apple's Core Data

    @Test("computes Apple's version hash of BSManagedDocument's Ebook from Model 1")
    func ebook() throws {
        let model = try Self.ebookModel()
        let hash = try CoreDataVersionHash.entityHash(named: "Ebook", in: model)
        #expect(Self.hex(hash) == "b48d7af383e1c465caee084a78bc4a72c9aad0b5fe05c04fe558961c748b29d3")
        #expect(try CoreDataVersionHash.entityHashes(in: model).mapValues(Self.hex)
            == ["Ebook": "b48d7af383e1c465caee084a78bc4a72c9aad0b5fe05c04fe558961c748b29d3"])
    }

    @Test("reproduces all 26 NSStoreModelVersionHashes of the MoneyWell store")
    func moneyWellHashes() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        let hashes = try CoreDataVersionHash.entityHashes(in: model).mapValues(Self.hex)
        #expect(hashes.count == 26)
        for (name, expected) in Self.moneyWellStoreHashes.sorted(by: { $0.key < $1.key }) {
            #expect(hashes[name] == expected, "\(name)")
        }
    }

    @Test("reproduces the MoneyWell store's NSStoreModelVersionHashesDigest (SHA-512)")
    func moneyWellDigest() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        let digest = CoreDataVersionHash.hashesDigest(try CoreDataVersionHash.entityHashes(in: model))
        #expect(digest.base64EncodedString()
            == "rCcfPwYC3wbRd87Ww+op6anzedWgouMhSk1QHQ2mSRfpt80ihRWog9REmtAnaCMDssfqhF7LQwI7Zc1ludAJAQ==")
    }

    // MARK: - What the hash sees and what it does not

    @Test("class name, user info, defaults, renaming identifiers, indexes and delete rules leave the hash alone")
    func ignoredParts() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let original = try CoreDataVersionHash.entityHashes(in: model)
        var changed = model
        for index in changed.entities.indices {
            changed.entities[index].representedClassName = "Other"
            changed.entities[index].userInfo = ["k": "v"]
            changed.entities[index].renamingIdentifier = "Old"
            changed.entities[index].indexes = []
            changed.entities[index].compoundIndexes = []
            changed.entities[index].fetchedProperties = []
            changed.entities[index].attributes.reverse()
            for attribute in changed.entities[index].attributes.indices {
                changed.entities[index].attributes[attribute].defaultValueString = "42"
                changed.entities[index].attributes[attribute].renamingIdentifier = "old"
                changed.entities[index].attributes[attribute].isIndexed.toggle()
                changed.entities[index].attributes[attribute].usesScalarValueType.toggle()
                changed.entities[index].attributes[attribute].valueTransformerName = "T"
            }
            for relationship in changed.entities[index].relationships.indices {
                changed.entities[index].relationships[relationship].deletionRule = "Cascade"
            }
        }
        #expect(try CoreDataVersionHash.entityHashes(in: changed) == original)
    }

    @Test("adding or changing a transient property leaves the hash alone")
    func transientIgnored() throws {
        var model = try Self.ebookModel()
        let original = try CoreDataVersionHash.entityHash(named: "Ebook", in: model)
        model.entities[0].attributes.append(XCAttribute(name: "cache", attributeType: "String", isTransient: true))
        #expect(try CoreDataVersionHash.entityHash(named: "Ebook", in: model) == original)
    }

    @Test("optionality, type, modifiers, external storage and constraints each change the hash")
    func hashedParts() throws {
        let base = try Self.ebookModel()
        let original = try CoreDataVersionHash.entityHash(named: "Ebook", in: base)
        let changes: [(String, (inout XCEntity) -> Void)] = [
            ("optional", { $0.attributes[0].isOptional = true }),
            ("type", { $0.attributes[1].attributeType = "URI" }),
            ("property modifier", { $0.attributes[1].versionHashModifier = "1" }),
            ("entity modifier", { $0.versionHashModifier = "1" }),
            ("external storage", { $0.attributes[0].allowsExternalBinaryDataStorage = true }),
            // Each of these two flags appends the same byte 1, so on one attribute they collide;
            // that is the framework's layout, so the test sets them on different attributes.
            ("preserve after deletion", { $0.attributes[1].preservesValueInHistoryOnDeletion = true }),
            ("abstract", { $0.isAbstract = true }),
            ("constraint", { $0.uniquenessConstraints = [["title"]] }),
            ("new attribute", { $0.attributes.append(XCAttribute(name: "isbn", attributeType: "String")) }),
            ("rename", { $0.attributes[1].name = "name" }),
        ]
        var seen: Set<Data> = [original]
        for (label, change) in changes {
            var model = base
            change(&model.entities[0])
            let hash = try CoreDataVersionHash.entityHash(named: "Ebook", in: model)
            #expect(seen.insert(hash).inserted, "\(label) should give a new hash")
        }
    }

    @Test("a relationship's counts, order and inverse change its hash; a self-inverse leaves its name out")
    func relationshipParts() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let photo = try #require(model.entity(named: "Photo"))
        let tags = try #require(photo.relationship(named: "tags"))
        let original = CoreDataVersionHash.relationshipHash(tags, of: photo, in: model)
        var unordered = tags
        unordered.isOrdered = false
        var bounded = tags
        bounded.maxCount = 3
        var required = tags
        required.minCount = 1
        var noInverse = tags
        noInverse.inverseName = nil
        let variants = [unordered, bounded, required, noInverse].map {
            CoreDataVersionHash.relationshipHash($0, of: photo, in: model)
        }
        #expect(Set(variants + [original]).count == 5)

        // Photo.similar is its own inverse: naming it or not gives the same hash.
        let similar = try #require(photo.relationship(named: "similar"))
        var similarWithoutInverse = similar
        similarWithoutInverse.inverseName = nil
        #expect(CoreDataVersionHash.relationshipHash(similar, of: photo, in: model)
            == CoreDataVersionHash.relationshipHash(similarWithoutInverse, of: photo, in: model))
        // Inherited by Video it stays left out, as for MoneyWell's transferSibling.
        let video = try #require(model.entity(named: "Video"))
        #expect(CoreDataVersionHash.relationshipHash(similar, of: video, in: model)
            == CoreDataVersionHash.relationshipHash(similarWithoutInverse, of: video, in: model))
    }

    @Test("a subentity's hash depends on its parent's")
    func parentChangesChild() throws {
        let model = try XCDataModelReader.read(at: CoreDataFixtures.url("vacations/Everything.xcdatamodel"))
        let video = try CoreDataVersionHash.entityHash(named: "Video", in: model)
        var changed = model
        let itemIndex = try #require(changed.entities.firstIndex { $0.name == "Item" })
        changed.entities[itemIndex].versionHashModifier = "x"
        #expect(try CoreDataVersionHash.entityHash(named: "Video", in: changed) != video)
        #expect(try CoreDataVersionHash.entityHash(named: "Tag", in: changed)
            == CoreDataVersionHash.entityHash(named: "Tag", in: model))
    }

    @Test("property hash: name, then flags as a little-endian 16-bit word, then the modifier")
    func propertyHashLayout() {
        let expected = SHA256.hash(Array("title".utf8) + [0x03, 0x00] + Array("v2".utf8))
        #expect(CoreDataVersionHash.propertyHash(name: "title", isOptional: true, isTransient: true,
                                                 versionHashModifier: "v2") == Data(expected))
        let readOnly = SHA256.hash(Array("x".utf8) + [0x04, 0x00])
        #expect(CoreDataVersionHash.propertyHash(name: "x", isOptional: false, isTransient: false,
                                                 isReadOnly: true, versionHashModifier: nil) == Data(readOnly))
    }

    // MARK: - Errors

    @Test("an unknown entity, a missing parent, a cycle or an unknown type is an error, not a hash")
    func errors() throws {
        let model = try Self.ebookModel()
        let unknown = try #require(throws: XCDataModelError.self) {
            try CoreDataVersionHash.entityHash(named: "Nope", in: model)
        }
        #expect(unknown.kind == .unknownReference(kind: "version hash", name: "Nope", owner: "model"))

        let orphan = XCDataModelFile(entities: [XCEntity(name: "A", parentEntity: "B")])
        #expect(throws: XCDataModelError(.missingParentEntity(entity: "A", parent: "B"))) {
            try CoreDataVersionHash.entityHashes(in: orphan)
        }
        let cycle = XCDataModelFile(entities: [XCEntity(name: "A", parentEntity: "B"),
                                               XCEntity(name: "B", parentEntity: "A")])
        #expect(throws: XCDataModelError(.inheritanceCycle(["A", "B", "A"]))) {
            try CoreDataVersionHash.entityHashes(in: cycle)
        }
        let badType = XCDataModelFile(entities: [
            XCEntity(name: "A", attributes: [XCAttribute(name: "a", attributeType: "Text")]),
        ])
        #expect(throws: XCDataModelError(.unknownAttributeType(entity: "A", attribute: "a", type: "Text"))) {
            try CoreDataVersionHash.entityHashes(in: badType)
        }
        let missingComposite = XCDataModelFile(entities: [
            XCEntity(name: "A", attributes: [XCAttribute(name: "a", attributeType: "Composite", compositeName: "Gone")]),
        ])
        #expect(throws: XCDataModelError(.unknownReference(kind: "composite attribute \"a\"", name: "Gone", owner: "A"))) {
            try CoreDataVersionHash.entityHashes(in: missingComposite)
        }
    }
}
