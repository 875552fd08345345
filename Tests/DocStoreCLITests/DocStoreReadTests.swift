import CommandLineKit
import DocStoreCLI
import Foundation
import CoreDataFiles
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("docstore info, dump and model read stores and models, and change nothing")
struct DocStoreReadTests {
    static let ebookURI = "x-coredata://6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8/Ebook/p1"
    static let ebookContents = "VGhpcyBJcyBKdXN0IFRvIFNheQoKSSBoYXZlIGVhdGVuCnRoZSBwbHVtcwp0aGF0IHdlcmUgaW4KdGhlIGljZWJveAoKYW5kIHdoaWNoCnlvdSB3"
        + "ZXJlIHByb2JhYmx5CnNhdmluZwpmb3IgYnJlYWtmYXN0CgpGb3JnaXZlIG1lCnRoZXkgd2VyZSBkZWxpY2lvdXMKc28gc3dlZXQKYW5kIHNvIGNvbGQKCi0gV2lsbGlh"
        + "bSBDYXJsb3MgV2lsbGlhbXMK"

    @Test("info describes the BSManagedDocument package: store, UUID, journal mode, model, hashes, entities")
    func infoText() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let run = docstore("info", document.path)
        #expect(run == DocStoreRun(code: 0, output: """
            Store:           \(document.path)/StoreContent/persistentStore
            Document:        \(document.path)
            UUID:            6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8
            Journal mode:    delete
            Model:           inferred from the store, which it matches exactly
            Version hashes:  recorded for 1 entity
            Model cache:     no

            ENTITY  NUMBER  PARENT  ROWS  VERSION HASH
            Ebook        1             1  tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM=

            """, errors: ""))
    }

    @Test("info --json with the store's own model version reports matching schema and hashes")
    func infoJSON() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let run = docstore("info", document.path, "--model", Fixtures.model1, "--json")
        #expect(run == DocStoreRun(code: 0, output: """
            {
              "path": "\(document.path)",
              "store": "\(document.path)/StoreContent/persistentStore",
              "document": "\(document.path)",
              "uuid": "6B9BB6CC-F2A5-49EB-880B-A459EB7AC7F8",
              "storeType": "SQLite",
              "journalMode": "delete",
              "modelCache": false,
              "model": {
                "source": "\(Fixtures.model1)",
                "matchesStore": true,
                "versionHashesMatch": true,
                "modelCacheProblem": null
              },
              "entities": [
                {
                  "name": "Ebook",
                  "number": 1,
                  "parent": null,
                  "table": "ZEBOOK",
                  "rows": 1,
                  "versionHash": "tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM=",
                  "modelVersionHash": "tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM="
                }
              ]
            }

            """, errors: ""))
    }

    @Test("info on the MoneyWell store counts each entity's rows as SQL does, with its subentities' (as a fetch does)")
    func infoMoneyWell() throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.moneyWellStore(in: directory)
        let run = docstore("info", store.path, "--json")
        #expect(run.code == 0 && run.errors == "")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let entities = try #require(json["entities"] as? [[String: Any]])
        #expect(entities.count == 26)
        // Each entity's subentities, at any depth, from the parents `info` reports.
        let parentOf = Dictionary(entities.map { ($0["name"] as? String ?? "", $0["parent"] as? String) }, uniquingKeysWith: { first, _ in first })
        let numberOf = Dictionary(entities.map { ($0["name"] as? String ?? "", $0["number"] as? Int ?? -1) }, uniquingKeysWith: { first, _ in first })
        func hierarchy(of name: String) -> [Int] {
            parentOf.keys.filter { candidate in
                var current: String? = candidate
                for _ in 0...parentOf.count where current != nil {
                    if current == name { return true }
                    current = parentOf[current ?? ""] ?? nil
                }
                return false
            }.compactMap { numberOf[$0] }.sorted()
        }
        var expected: [String: Int] = [:]
        for entity in entities {
            let table = try #require(entity["table"] as? String)
            let numbers = hierarchy(of: try #require(entity["name"] as? String)).map(String.init).joined(separator: ", ")
            let count = try Fixtures.rows("SELECT count(*) FROM \(table) WHERE Z_ENT IN (\(numbers))", in: store).first?.first?.integerValue
            expected[entity["name"] as? String ?? ""] = Int(count ?? -1)
            #expect(entity["rows"] as? Int == Int(count ?? -1))
        }
        #expect(expected["Activity"] == 43 && expected["Event"] == 23 && expected["Transaction"] == 15 && expected["Tag"] == 4)
        #expect((json["model"] as? [String: Any])?["matchesStore"] as? Bool == true)
        #expect(json["journalMode"] as? String == "wal")
        #expect(json["modelCache"] as? Bool == true)
    }

    @Test("dump prints the one Ebook with its title and contents, by inferred model or by its own")
    func dumpEbook() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let expected = """
            [
              {
                "entity": "Ebook",
                "uri": "\(Self.ebookURI)",
                "contents": "\(Self.ebookContents)",
                "title": "This Is Just To Say.txt"
              }
            ]

            """
        #expect(docstore("dump", document.path) == DocStoreRun(code: 0, output: expected, errors: ""))
        #expect(docstore("dump", document.path, "--model", Fixtures.model1, "--json") == DocStoreRun(code: 0, output: expected, errors: ""))
        let store = document.appendingPathComponent("StoreContent/persistentStore").path
        #expect(docstore("dump", store, "--entity", "Ebook") == DocStoreRun(code: 0, output: expected, errors: ""))
    }

    @Test("our own store round-trips: its dump is the same with its model file and with the model inferred from it")
    func dumpOurStore() throws {
        let directory = try TemporaryDirectory()
        let modelFile = try TripModel.write(in: directory)
        let store = directory.path("trips.sqlite")
        try TripModel.makeStore(at: store, model: try ObjectModel(contentsOf: modelFile))
        let uuid = try #require(try Fixtures.rows("SELECT Z_UUID FROM Z_METADATA", in: store).first?.first?.textValue)
        func uri(_ entity: String, _ key: Int) -> String { "\"x-coredata://\(uuid)/\(entity)/p\(key)\"" }
        let expected = """
            [
              {
                "entity": "Person",
                "uri": \(uri("Person", 1)),
                "name": "Ana",
                "trips": [
                  \(uri("Trip", 1))
                ]
              },
              {
                "entity": "Guide",
                "uri": \(uri("Guide", 2)),
                "licence": "PT-1",
                "name": "Rui",
                "trips": [
                  \(uri("Trip", 1))
                ]
              },
              {
                "entity": "Stop",
                "uri": \(uri("Stop", 1)),
                "name": "Alfama",
                "trip": \(uri("Trip", 1))
              },
              {
                "entity": "Stop",
                "uri": \(uri("Stop", 2)),
                "name": "Belém",
                "trip": \(uri("Trip", 1))
              },
              {
                "entity": "Trip",
                "uri": \(uri("Trip", 1)),
                "budget": 1234.5,
                "companions": [
                  \(uri("Person", 1)),
                  \(uri("Guide", 2))
                ],
                "cover": "AAEC/w==",
                "days": 7,
                "identifier": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
                "isDone": true,
                "link": "https://example.org/lisbon",
                "name": "Lisbon \\"old town\\"\\n",
                "rating": 4.5,
                "started": "2023-03-08T20:26:40.250Z",
                "stops": [
                  \(uri("Stop", 1)),
                  \(uri("Stop", 2))
                ]
              }
            ]

            """
        #expect(docstore("dump", store.path, "--model", modelFile.path) == DocStoreRun(code: 0, output: expected, errors: ""))
        #expect(docstore("dump", store.path) == DocStoreRun(code: 0, output: expected, errors: ""))
        let people = docstore("dump", store.path, "--entity", "Person")
        #expect(people.code == 0)
        #expect(try (JSONSerialization.jsonObject(with: Data(people.output.utf8)) as? [[String: Any]])?.compactMap { $0["entity"] as? String }
            == ["Person", "Guide"])
        #expect(docstore("dump", store.path, "--entity", "Stop").output.components(separatedBy: "\"entity\"").count == 3)
    }

    @Test("model shows Model 2 as loaded, in text and in JSON")
    func model() throws {
        let text = docstore("model", Fixtures.modelBundle)
        #expect(text == DocStoreRun(code: 0, output: """
            Model: \(Fixtures.modelBundle)

            Ebook (1), table ZEBOOK, version hash nROPzR25F1KOMeOFD78eeBy+v6Y0Vrweejzy4r1CDdQ=
              PROPERTY    TYPE                           STORED IN
              contents    Binary                         ZCONTENTS
              importDate  Date = "2013-01-26T12:00:00Z"  ZIMPORTDATE
              title       String                         ZTITLE

            """, errors: ""))
        let json = docstore("model", Fixtures.model1, "--json")
        #expect(json == DocStoreRun(code: 0, output: """
            {
              "source": "\(Fixtures.model1)",
              "versionIdentifier": "",
              "inference": null,
              "entities": [
                {
                  "name": "Ebook",
                  "number": 1,
                  "parent": null,
                  "abstract": false,
                  "table": "ZEBOOK",
                  "versionHash": "tI1684PhxGXK7ghKeLxKcsmq0LX+BcBP5ViWHHSLKdM=",
                  "attributes": [
                    {
                      "name": "contents",
                      "type": "Binary",
                      "column": "ZCONTENTS",
                      "optional": false,
                      "indexed": false,
                      "default": null,
                      "transient": false,
                      "derivation": null,
                      "elements": []
                    },
                    {
                      "name": "title",
                      "type": "String",
                      "column": "ZTITLE",
                      "optional": false,
                      "indexed": false,
                      "default": null,
                      "transient": false,
                      "derivation": null,
                      "elements": []
                    }
                  ],
                  "relationships": [],
                  "uniquenessConstraints": [],
                  "fetchIndexes": [],
                  "compoundIndexes": [],
                  "fetchedProperties": []
                }
              ],
              "configurations": [],
              "fetchRequests": [],
              "storeModel": null
            }

            """, errors: ""))
    }

    @Test("model of a store shows the store's own model from Z_MODELCACHE, how it fits, and the MoneyWell join tables")
    func storeModel() throws {
        let directory = try TemporaryDirectory()
        let store = try Fixtures.moneyWellStore(in: directory)
        let run = docstore("model", store.path)
        #expect(run.code == 0 && run.errors == "")
        #expect(run.output.hasPrefix("Model: \(store.path) (the store's own, from Z_MODELCACHE)\n\nAccount (1), table ZACCOUNT, version hash "))
        #expect(run.output.contains("\nEvent (6) : ScheduledTransaction, table ZACTIVITY, version hash "))
        let lines = run.output.split(separator: "\n").map { $0.split(separator: " ").joined(separator: " ") }
        #expect(lines.contains("tags to-many Tag (inverse activities) Z_3TAGS"))
        #expect(lines.contains("tags to-many Tag (inverse bucketTransfers) Z_12TAGS"))
        #expect(lines.contains("splitParent to-one Activity (inverse splits) ZSPLITPARENT + Z3_SPLITPARENT"))
        #expect(lines.contains("includeInCashFlow Boolean = true ZINCLUDEINCASHFLOW"))
        #expect(run.output.hasSuffix("\nThe store's schema is exactly what this model lays out.\n"))
        let json = docstore("model", store.path, "--json")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        #expect(document["inference"] is NSNull)
        let storeModel = try #require(document["storeModel"] as? [String: Any])
        #expect(storeModel["source"] as? String == "modelCache")
        #expect(storeModel["modelCacheProblem"] is NSNull)
        #expect(storeModel["matchesStore"] as? Bool == true)
        #expect((storeModel["schemaDifferences"] as? [Any])?.isEmpty == true)
        #expect((document["entities"] as? [Any])?.count == 26)
    }

    @Test("model of a store without a model cache shows the inferred model and says why it was inferred")
    func inferredModel() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let run = docstore("model", document.path)
        #expect(run.code == 0 && run.errors == "")
        #expect(run.output.hasPrefix("Model: \(document.path) (inferred from the store (the store keeps no model cache (Z_MODELCACHE)))\n\nEbook (1)"))
        let json = docstore("model", document.path, "--json")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
        let inference = try #require(object["inference"] as? [String: Any])
        #expect(inference["matchesStore"] as? Bool == true)
        #expect((object["storeModel"] as? [String: Any])?["source"] as? String == "inferred")
    }

    @Test("reading leaves every store file byte for byte as it was", arguments: ["info", "dump", "model"])
    func readingChangesNothing(command: String) throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let walStore = try Fixtures.moneyWellStore(in: directory)
        let storeFile = document.appendingPathComponent("StoreContent/persistentStore")
        let before = (try Data(contentsOf: storeFile), try Data(contentsOf: walStore))
        #expect(docstore(command, document.path).code == 0)
        #expect(docstore(command, walStore.path).code == 0)
        #expect(try Data(contentsOf: storeFile) == before.0)
        #expect(try Data(contentsOf: walStore) == before.1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: storeFile.deletingLastPathComponent().path) == ["persistentStore"])
    }
}
