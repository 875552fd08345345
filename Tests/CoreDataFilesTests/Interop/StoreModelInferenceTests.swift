import ObjectGraphTestModels
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("A model inferred from a store alone reads every row, and regenerates the store's schema")
struct StoreModelInferenceTests {
    @Test("the MoneyWell store's inferred model regenerates its 98 tables and indexes, so it opens without migrating")
    func moneyWellExact() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let schemaBefore = try AppleStores.schema(of: store)
        let bytesBefore = try Data(contentsOf: store)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        #expect(inferred.schemaDifferences == [])
        #expect(inferred.matchesStoreExactly)
        #expect(inferred.ignored == [])
        #expect(inferred.model.entities.count == 26)
        // The planner finds nothing to do, so even a read-only open with schema checks succeeds.
        let coordinator = try StoreCoordinator(url: store, model: inferred.model, readOnly: true, journalMode: nil)
        #expect(coordinator.storeUUID == "C0E9F4E2-9EA6-426D-B66E-FA93B16E444B")
        #expect(try AppleStores.schema(of: store) == schemaBefore)
        #expect(try Data(contentsOf: store) == bytesBefore)
    }

    @Test("every MoneyWell entity reads with the row counts SQL gives, and every value as stored")
    func moneyWellEveryRow() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store, inferred: inferred))
        var total = 0
        for entity in inferred.model.entities {
            let expected = try AppleStores.scalar("SELECT count(*) FROM \(entity.table) WHERE Z_ENT = \(entity.number)", in: store)
            let objects = try AppleStores.objects(of: entity.name, in: context)
            #expect(Int64(objects.count) == expected?.integerValue, "\(entity.name)")
            total += objects.count
            for object in objects {
                let row = try #require(try AppleStores.rows(
                    "SELECT * FROM \(entity.table) WHERE Z_PK = \(object.objectID.primaryKey)", in: store).first)
                let columns = try AppleStores.rows("SELECT name FROM pragma_table_info('\(entity.table)')", in: store).map { $0[0].textValue ?? "" }
                func stored(_ column: String) -> SQLiteValue { columns.firstIndex(of: column).map { row[$0] } ?? .null }
                for attribute in entity.attributes {
                    let value = try object.storedValue(forKey: attribute.name)
                    let expected = stored(attribute.column ?? "")
                    if attribute.type == .date || attribute.type == .double {
                        #expect(value.realValue == expected.realValue, "\(entity.name).\(attribute.name)")
                    } else {
                        #expect(value == expected, "\(entity.name).\(attribute.name)")
                    }
                }
                for relationship in entity.relationships where !relationship.isToMany {
                    guard case .foreignKey(let column, _) = relationship.storage else { continue }
                    #expect(try object.object(forKey: relationship.name)?.objectID.primaryKey == stored(column).integerValue)
                }
            }
        }
        let rows = try AppleStores.rows("SELECT Z_ENT, count(*) FROM ZACTIVITY GROUP BY Z_ENT", in: store)
        #expect(rows == [[.integer(4), .integer(5)], [.integer(6), .integer(23)], [.integer(7), .integer(15)]])
        #expect(total == 134)
    }

    @Test("subentities share their root's table and are told apart by Z_ENT")
    func hierarchy() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let model = try ObjectModel.inferred(fromStoreAt: store)
        let activityFamily = model.entities.filter { $0.table == "ZACTIVITY" }.map { "\($0.number) \($0.name) ^\($0.parent ?? 0)" }
        #expect(activityFamily == ["3 Activity ^0", "4 FavoriteTransaction ^3", "5 ScheduledTransaction ^3", "6 Event ^5", "7 Transaction ^3"])
        #expect(model.entity(named: "ScheduledTransaction")?.hierarchy == [5, 6])
        let context = ObjectContext(coordinator: try StoreCoordinator(url: store, model: model, readOnly: true, journalMode: nil))
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "Activity")) == 43)
        #expect(try context.count(for: FetchRequest<ManagedObject>(entityName: "ScheduledTransaction")) == 23)
        #expect(try AppleStores.objects(of: "Event", in: context).allSatisfy { $0.entity.name == "Event" })
    }

    @Test("to-one relationships: 33 of MoneyWell's 35 found with their destinations, and no attribute taken for one")
    func moneyWellToOnes() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        let truth = try ObjectModel(contentsOf: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        var trueToOnes: [String: String] = [:]  // "TABLE.COLUMN" → destination
        for entity in truth.entities {
            for relationship in entity.relationships where relationship.declaringEntity == entity.number {
                guard case .foreignKey(let column, _) = relationship.storage else { continue }
                trueToOnes["\(entity.table).\(column)"] = truth.entities[relationship.destination - 1].name
            }
        }
        var found: [String: String] = [:]
        var evidence: [ToOneEvidence: Int] = [:]
        for column in inferred.columns {
            guard case .toOne(let destination, let why) = column.role else { continue }
            found["\(column.table).\(column.column)"] = destination
            evidence[why, default: 0] += 1
        }
        #expect(trueToOnes.count == 35)
        #expect(found.filter { trueToOnes[$0.key] == $0.value }.count == 34)
        #expect(found.keys.filter { trueToOnes[$0] == nil } == [])
        #expect(Set(trueToOnes.keys).subtracting(found.keys) == ["ZLOCATION.ZFAVORITE"])
        #expect(evidence == [.entityColumn: 3, .name: 30, .columnOrder: 1])
        // After ZEVENT, a to-one of BucketTransfer: an attribute cannot sort there.
        #expect(inferred.column(entity: "BucketTransfer", property: "transferSibling")?.role
            == .toOne(destination: "BucketTransfer", evidence: .columnOrder))
        #expect(inferred.column(entity: "FavoriteAlias", property: "favorite")?.role
            == .toOne(destination: "FavoriteTransaction", evidence: .name))
    }

    @Test("names come back in camel case where entity names spell them, and always capitalise to their columns")
    func names() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        for column in inferred.columns where column.role != .entityColumn {
            // A column Core Data numbered because another entity of the table took its name (ZACCOUNT1) names `account`.
            let clashFree = String(column.column.reversed().drop { $0.isNumber }.reversed())
            #expect(["Z" + column.property.uppercased()].contains { $0 == column.column || $0 == clashFree })
        }
        let names = Set(inferred.columns.map { "\($0.entity).\($0.property)" })
        // `ticdsSyncId` as the store's own entity InvestmentSecurityId spells the acronym.
        let expected = ["Account.accountGroup", "Activity.transferAccount", "Event.fillRecurrenceRule", "Account.ticdsSyncId",
                        "Account.dateymd", "Transaction.account", "Account.balanceDateymd", "Activity.transferSibling",
                        "Account.isHidden", "Activity.isFlagged", "Transaction.saleAmount", "Activity.amountString"]
        #expect(expected.filter { !names.contains($0) } == ["Account.dateymd"])
        #expect(names.contains("Activity.dateymd"))
        let joins = inferred.joinTables.map { "\($0.table): \($0.entity).\($0.relationship) <-> \($0.destination).\($0.inverse)" }
        #expect(joins == ["Z_12TAGS: BucketTransfer.tags <-> Tag.bucketTransfers", "Z_3TAGS: Activity.tags <-> Tag.activities"])
    }

    @Test("many-to-many join tables read as pairs of to-many relationships")
    func manyToMany() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.moneyWell, into: directory)
        let inferred = try StoreModelInference.infer(fromStoreAt: store)
        let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store, inferred: inferred))
        let pairs = try AppleStores.rows("SELECT Z_3ACTIVITIES, Z_24TAGS FROM Z_3TAGS ORDER BY 2, 1", in: store)
        var read: [[SQLiteValue]] = []
        for tag in try AppleStores.objects(of: "Tag", in: context) {
            for activity in try tag.objects(forKey: "activities") {
                read.append([.integer(activity.objectID.primaryKey), .integer(tag.objectID.primaryKey)])
                #expect(try activity.objects(forKey: "tags").contains(tag))
            }
        }
        #expect(read == pairs)
        #expect(!pairs.isEmpty)
    }

    @Test("a store we made reads back through an inferred model, constraints and indexes included")
    func ourStores() throws {
        let store = try TestStore()
        let context = store.context()
        let photo = Photo(context: context)
        photo.unique = "42"
        photo.title = "Tram 28"
        let place = Place(context: context)
        place.name = "Lisbon"
        photo.place = place
        try context.save()
        let inferred = try StoreModelInference.infer(fromStoreAt: store.url)
        #expect(inferred.schemaDifferences == [])
        // Our stores carry a record of their model, so the inferred model is the model.
        func signature(_ model: ObjectModel) -> [String] {
            model.entities.map { entity in
                "\(entity.number) \(entity.name)\(entity.isAbstract ? " abstract" : "") ^\(entity.parent ?? 0) "
                    + entity.attributes.map { "\($0.name):\($0.type.rawValue)@\($0.column ?? "-")\($0.declaration.isIndexed ? "+i" : "")" }.joined(separator: ",")
                    + " " + entity.relationships.map { "\($0.name)->\($0.destination)\($0.isToMany ? "*" : "")/\($0.declaration.inverse ?? "-") \($0.storage)" }
                        .joined(separator: ",")
                    + " unique \(entity.uniquenessConstraints)"
            }
        }
        let transients = Set(TestModels.travel.entities.flatMap { $0.attributes.filter(\.declaration.isTransient).map(\.name) })
        #expect(transients.isEmpty)
        #expect(signature(inferred.model) == signature(TestModels.travel))
        #expect(inferred.columns.allSatisfy { column in
            if case .toOne(_, let evidence) = column.role { evidence == .modelRecord } else { true }
        })
        let readBack = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store.url, inferred: inferred))
        let photos = try AppleStores.objects(of: "Photo", in: readBack)
        #expect(try photos.map { try $0.value(forKey: "title", as: String?.self) } == ["Tram 28"])
        #expect(try photos.first?.object(forKey: "place")?.value(forKey: "name", as: String.self) == "Lisbon")
    }

    @Test("a to-one whose name names no entity is found by its keys when one entity alone holds them")
    func toOneByData() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)],
                              relationships: [RelationshipDescription(name: "pets", destination: "Pet", inverse: "owner", isToMany: true)]),
            EntityDescription(name: "Pet", relationships: [RelationshipDescription(name: "owner", destination: "Person", inverse: "pets")]),
        ])
        let store = try TestStore(model: model)
        let context = store.context()
        for index in 0..<3 { try context.insertObject(entityName: "Person").setValue("P\(index)", forKey: "name") }
        try context.save()
        let pet = try context.insertObject(entityName: "Pet")
        try pet.setObject(context.existingObject(with: ObjectID(entityNumber: 1, primaryKey: 3)), forKey: "owner")
        try context.save()
        try AppleStores.removeModelRecord(from: store.url)
        let inferred = try StoreModelInference.infer(fromStoreAt: store.url)
        #expect(inferred.column(entity: "Pet", property: "owner")?.role == .toOne(destination: "Person", evidence: .data))
        #expect(inferred.matchesStoreExactly)
    }

    @Test("a store our layout cannot regenerate still opens read-only, as it is, and reads")
    func inexact() throws {
        let directory = try TemporaryDirectory()
        let store = try AppleStores.copy(AppleStores.bsManagedDocument, into: directory)
        let connection = try Connection(path: store.path, configuration: .init(journalMode: nil))
        try connection.execute("""
            CREATE INDEX Z_Ebook_byTitle ON ZEBOOK (ZTITLE, ZCONTENTS);
            INSERT INTO Z_PRIMARYKEY VALUES (16001, 'CHANGE', 0, 0);
            CREATE TABLE ACHANGE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZCHANGETYPE INTEGER);
            """)
        var inferred = try StoreModelInference.infer(fromStoreAt: store)
        // Core Data's own entity is read from its table; only the unnamed index differs, which reading does not mind.
        #expect(inferred.ignored == [])
        #expect(inferred.coreDataEntities == [CoreDataEntityTable(name: "CHANGE", number: 16001, table: "ACHANGE", columns: [
            .init(column: "ZCHANGETYPE", property: "changetype", type: .integer64)])])
        #expect(inferred.schemaDifferences == ["DROP INDEX \"Z_Ebook_byTitle\""])
        _ = try StoreCoordinator(url: store, model: inferred.model, readOnly: true, journalMode: nil)
        // A column added after the others sorts where Core Data would not put it: the table would be rebuilt.
        try connection.execute("ALTER TABLE ZEBOOK ADD COLUMN ZAUTHOR VARCHAR")
        inferred = try StoreModelInference.infer(fromStoreAt: store)
        #expect(!inferred.matchesStoreExactly)
        #expect(throws: StoreError("the store needs migrating to this model, but it is open read-only")) {
            try StoreCoordinator(url: store, model: inferred.model, readOnly: true, journalMode: nil)
        }
        let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store, inferred: inferred))
        let ebooks = try AppleStores.objects(of: "Ebook", in: context)
        #expect(try ebooks.map { try $0.value(forKey: "title", as: String.self) } == ["This Is Just To Say.txt"])
        #expect(try AppleStores.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'Z_Ebook_byTitle'", in: store) == .integer(1))
    }

    @Test("a database that is not a Core Data store, or whose entity numbers break Core Data's rule, is refused")
    func refusals() throws {
        let directory = try TemporaryDirectory()
        let plain = directory.path("plain.sqlite")
        try Connection(path: plain.path).execute("CREATE TABLE t (x)")
        #expect(throws: StoreError("\(plain.path) is not a Core Data store (no Z_PRIMARYKEY and Z_METADATA tables)")) {
            try StoreModelInference.infer(fromStoreAt: plain)
        }
        let misnumbered = directory.path("misnumbered.sqlite")
        try Connection(path: misnumbered.path).execute("""
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Zebra', 0, 0), (2, 'Ant', 0, 0);
            CREATE TABLE ZZEBRA (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER);
            CREATE TABLE ZANT (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER);
            """)
        #expect(throws: StoreError("the store numbers entity Zebra 1, but Core Data's rule numbers it 2: the store cannot be read by entity number")) {
            try StoreModelInference.infer(fromStoreAt: misnumbered)
        }
    }
    @Test("self-referential many-to-manys read back: followers/following, and a reflexive friends kept both ways")
    func selfReferential() throws {
        let model = try ObjectModel(entities: [
            EntityDescription(name: "Person", attributes: [AttributeDescription(name: "name", type: .string)], relationships: [
                RelationshipDescription(name: "followers", destination: "Person", inverse: "following", isToMany: true),
                RelationshipDescription(name: "following", destination: "Person", inverse: "followers", isToMany: true),
                RelationshipDescription(name: "friends", destination: "Person", inverse: "friends", isToMany: true),
            ]),
        ])
        #expect(model.joinTables.map { "\($0.name) (\($0.sourceColumn), \($0.destinationColumn))" }
                == ["Z_1FOLLOWERS (Z_1FOLLOWING, Z_1FOLLOWERS)", "Z_1FRIENDS (Z_1FRIENDS, REFLEXIVE)"])
        let store = try TestStore(model: model)
        let context = store.context()
        let people = try ["Ana", "Rui", "Eva"].map { name in
            let person = try context.insertObject(entityName: "Person")
            try person.setValue(name, forKey: "name")
            return person
        }
        try people[0].setObjects([people[1], people[2]], forKey: "followers")
        try people[0].addObject(people[1], forKey: "friends")
        try context.save()
        // A reflexive pair is kept both ways, as Core Data keeps it; its table has no second index.
        #expect(try store.rows("SELECT Z_1FRIENDS, REFLEXIVE FROM Z_1FRIENDS ORDER BY 1") == [[.integer(1), .integer(2)], [.integer(2), .integer(1)]])
        #expect(try store.rows("SELECT count(*) FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Z_1FRIENDS' AND sql IS NOT NULL") == [[.integer(0)]])
        try store.sql { try $0.execute("CREATE TABLE Z_1THINGS (A INTEGER, B INTEGER)") }
        try AppleStores.removeModelRecord(from: store.url)
        let inferred = try StoreModelInference.infer(fromStoreAt: store.url)
        #expect(inferred.joinTables.map { "\($0.table): \($0.entity).\($0.relationship) <-> \($0.destination).\($0.inverse)" }
                == ["Z_1FOLLOWERS: Person.followers <-> Person.following", "Z_1FRIENDS: Person.friends <-> Person.friends"])
        #expect(inferred.joinTables.last?.isReflexive == true)
        // A join table that cannot be read is listed, not read as empty relationships.
        #expect(inferred.ignored == ["table Z_1THINGS"])
        let reader = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: store.url, inferred: inferred))
        let ana = try reader.existingObject(with: ObjectID(entityNumber: 1, primaryKey: 1))
        #expect(try ana.objects(forKey: "followers").map(\.objectID.primaryKey) == [2, 3])
        #expect(try ana.objects(forKey: "friends").map(\.objectID.primaryKey) == [2])
        let rui = try reader.existingObject(with: ObjectID(entityNumber: 1, primaryKey: 2))
        #expect(try rui.objects(forKey: "following").map(\.objectID.primaryKey) == [1])
        #expect(try rui.objects(forKey: "friends").map(\.objectID.primaryKey) == [1])
    }
}
