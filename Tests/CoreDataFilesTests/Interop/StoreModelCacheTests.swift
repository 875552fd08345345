import Foundation
import SQLiteDB
import Testing
import TestSupport
@testable import CoreDataFiles
@testable import ObjectGraph

@Suite("A store's own model: Z_MODELCACHE decoded, checked against the store's hashes, and read with")
struct StoreModelCacheTests {
    typealias Fixtures = CompiledModelFixtures

    @Test("the cache of every Apple store decodes, and its version hashes equal the hashes the store recorded",
          arguments: CompiledModelFixtures.storesWithCache)
    func cacheMatchesStore(store: CompiledModelFixtures.AppleStore) throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(store, into: directory)
        let cache = try #require(try StoreModelCache.read(fromStoreAt: url))
        #expect(cache.model.entities.count == store.entityCount)
        #expect(cache.storeVersionHashes == (try Fixtures.recordedHashes(of: url)))
        #expect(cache.versionHashes == cache.storeVersionHashes)
        #expect(cache.matchesStore && cache.entitiesDifferingFromStore.isEmpty)
        let storeModel = try StoreModel.load(fromStoreAt: url)
        #expect(storeModel.source == .modelCache)
        #expect(storeModel.modelCacheProblem == nil)
        #expect(storeModel.model.versionHashes == cache.storeVersionHashes)
        #expect(try StoreModelCache.model(ofStoreAt: url)?.versionHashes == cache.storeVersionHashes)
    }

    @Test("MoneyWell's cache is the model its derived XML was written from, with the defaults and limits the XML left out")
    func moneyWellCache() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.storesWithCache[0], into: directory)
        let cache = try #require(try StoreModelCache.read(fromStoreAt: url))
        let derived = try XCDataModelReader.read(at: CoreDataFixtures.url("moneywell/MoneyWell.xcdatamodel"))
        #expect(cache.model.entities.map(\.name) == derived.entities.map(\.name).sorted(by: CompiledModelDecoder.precedes))
        for entity in derived.entities {
            let cached = try #require(cache.model.entity(named: entity.name))
            #expect(cached.parentEntity == entity.parentEntity && cached.isAbstract == entity.isAbstract
                    && cached.representedClassName == entity.representedClassName, "\(entity.name)")
            #expect(cached.relationships == entity.relationships.sorted { CompiledModelDecoder.precedes($0.name, $1.name) }, "\(entity.name)")
            for attribute in entity.attributes {
                let found = try #require(cached.attribute(named: attribute.name), "\(entity.name).\(attribute.name)")
                #expect([found.attributeType, "\(found.isOptional)", "\(found.isTransient)", "\(found.isIndexed)"]
                        == [attribute.attributeType, "\(attribute.isOptional)", "\(attribute.isTransient)", "\(attribute.isIndexed)"],
                        "\(entity.name).\(attribute.name)")
            }
            #expect(cached.attributes.count == entity.attributes.count, "\(entity.name)")
        }
        let account = try #require(cache.model.entity(named: "Account"))
        #expect(account.attribute(named: "creditLimit")?.defaultValueString == "0.0")
        #expect(account.attribute(named: "creditLimit")?.minValueString == "0")
        #expect(account.attribute(named: "type")?.defaultValueString == "0")
        #expect(account.attribute(named: "includeInCashFlow")?.attributeType == "Boolean")
    }

    @Test("Photos' cache: 53 entities, booleans and UUID strings as declared, ordered many-to-many, fetch indexes with expressions")
    func photosCache() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.storesWithCache[8], into: directory)
        let model = try #require(try StoreModelCache.read(fromStoreAt: url)).model
        let albumList = try #require(model.entity(named: "AlbumList"))
        #expect(albumList.relationship(named: "albums") == XCRelationship(
            name: "albums", destinationEntity: "GenericAlbum", inverseName: "albumLists", inverseEntity: "GenericAlbum",
            isToMany: true, isOrdered: true, isOptional: true, maxCount: 0))
        let asset = try #require(model.entity(named: "GenericAsset"))
        #expect(asset.attribute(named: "uuid")?.preservesValueInHistoryOnDeletion == true)
        #expect(asset.attribute(named: "hidden") == XCAttribute(name: "hidden", attributeType: "Boolean", defaultValueString: "NO"))
        // The cache repeats GenericAsset's properties in Asset; they are GenericAsset's.
        #expect(model.entity(named: "Asset")?.attribute(named: "hidden") == nil)
        let compound = try #require(asset.indexes.first { $0.name == "compoundIndex" })
        #expect(compound.elements == [XCIndexElement(property: "kind"), XCIndexElement(property: nil, expression: "entity")])
        #expect(model.entity(named: "Memory")?.indexes.first { $0.name == "compoundIndex" }?.elements.map(\.isAscending) == [false, false])
        #expect(model.entity(named: "Asset")?.parentEntity == "GenericAsset")
    }

    @Test("SampleModel2's cache, built in code: a derived attribute whose expression hashes as Core Data hashed it, fetched properties, configurations")
    func codeBuiltModel() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.storesWithCache[3], into: directory)
        let cache = try #require(try StoreModelCache.read(fromStoreAt: url))
        let book = try #require(cache.model.entity(named: "Book"))
        #expect(book.attribute(named: "pagesCount")?.isDerived == true)
        #expect(book.attribute(named: "pagesCount")?.derivationExpression == "count:(pages)")
        #expect(cache.versionHashes["Book"] == cache.storeVersionHashes["Book"])
        #expect(cache.model.entity(named: "Author")?.relationship(named: "books")?.maxCount == Int(UInt32.max))
        let author = try #require(cache.model.entity(named: "Author"))
        #expect(author.fetchedProperties.map(\.name) == ["favFeedbacks", "feedbacks"])
        #expect(author.fetchedProperties.first?.userInfo == ["search": "great"])
        #expect(author.fetchedProperties.last?.fetchRequest?.predicateString == "authorAlias == $FETCH_SOURCE.alias")
        #expect(cache.model.configurations.map(\.name) == ["SampleConfigurationV2Part1", "SampleConfigurationV2Part2"])
        #expect(cache.model.configurations.last?.entityNames == ["Feedback"])
        #expect(cache.model.entity(named: "Writer")?.isAbstract == true)
        #expect(cache.model.entity(named: "Author")?.representedClassName == "AuthorV2")
    }

    @Test("a store migrated by a tool that left the cache behind is read with a model inferred from its tables, saying why")
    func staleCache() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.storesWithCache[4], into: directory)
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let plist = try #require(try connection.scalar("SELECT Z_PLIST FROM Z_METADATA")?.blobValue)
        var metadata = try #require(try PropertyListSerialization.propertyList(from: plist, options: [], format: nil) as? [String: Any])
        metadata["NSStoreModelVersionHashes"] = ["User": Data(repeating: 7, count: 32)]
        try connection.execute("UPDATE Z_METADATA SET Z_PLIST = ?",
                               [.blob(try PropertyListSerialization.data(fromPropertyList: metadata, format: .binary, options: 0))])
        let cache = try #require(try StoreModelCache.read(fromStoreAt: url))
        #expect(!cache.matchesStore && cache.entitiesDifferingFromStore == ["User"])
        #expect(try StoreModelCache.model(ofStoreAt: url) == nil)
        let storeModel = try StoreModel.load(fromStoreAt: url)
        #expect(storeModel.source == .inferred)
        #expect(storeModel.modelCacheProblem == "the model in Z_MODELCACHE is not the one the store was last written with "
            + "(version hashes differ for User); the store was probably migrated by a tool that left the cache behind")
        #expect(storeModel.inferred != nil)
    }

    @Test("a store without a cache, and one whose cache is damaged, fall back to inference and say why")
    func noOrDamagedCache() throws {
        let directory = try TemporaryDirectory()
        let ebook = try AppleStores.copy(AppleStores.bsManagedDocument, into: directory)
        #expect(try StoreModelCache.read(fromStoreAt: ebook) == nil)
        let plain = try StoreModel.load(fromStoreAt: ebook)
        #expect(plain.source == .inferred && plain.modelCacheProblem == "the store keeps no model cache (Z_MODELCACHE)")

        let url = try Fixtures.copy(Fixtures.storesWithCache[4], into: directory)
        let connection = try Connection(path: url.path, configuration: .init(journalMode: nil))
        let blob = try #require(try connection.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.blobValue)
        try connection.execute("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [.blob(blob.prefix(blob.count / 2))])
        #expect(throws: XCDataModelError.self) { try StoreModelCache.read(fromStoreAt: url) }
        let damaged = try StoreModel.load(fromStoreAt: url)
        #expect(damaged.source == .inferred)
        #expect(damaged.modelCacheProblem?.hasPrefix("its Z_MODELCACHE cannot be read: Core Data model error: malformed compiled model: Z_MODELCACHE does not inflate: ") == true)
    }

    @Test("reading a store with its own model gives the declared names and types, not the inferred ones")
    func readsWithDeclaredTypes() throws {
        let directory = try TemporaryDirectory()
        let url = try Fixtures.copy(Fixtures.storesWithCache[1], into: directory)
        let storeModel = try StoreModel.load(fromStoreAt: url)
        let context = ObjectContext(coordinator: try StoreCoordinator(readingStoreAt: url, storeModel: storeModel))
        let person = try #require(try AppleStores.objects(of: "Person", in: context).first)
        #expect(person.entity.attributes.map(\.name) == ["firstName", "id", "isDriving", "lastName", "updatedAt"])
        #expect(person.entity.attribute(named: "id")?.type == .uuid)
        #expect(try person.storedValue(forKey: "firstName") == .text("Victoria"))
        let car = try #require(try AppleStores.objects(of: "ExpensiveSportCar", in: context).first)
        #expect(car.entity.attribute(named: "isLimitedEdition")?.type == .boolean)
        #expect(car.entity.relationship(named: "owner")?.isToMany == false)
        #expect(storeModel.model.entity(named: "Person")?.relationship(named: "cars")?.isToMany == true)
    }
}
