import CommandLineKit
@testable import DocStoreCLI
import Foundation
import ObjectGraph
import SQLiteDB
import Testing
import TestSupport

@Suite("docstore errors: one line on stderr, nothing on stdout, the contract's exit codes")
struct DocStoreErrorTests {
    @Test("a missing store, model or entity is 66")
    func missing() throws {
        let directory = try TemporaryDirectory()
        let document = try Fixtures.ebookDocument(in: directory)
        let missing = directory.path("missing.bstest").path
        for command in ["info", "dump"] {
            #expect(docstore(command, missing) == DocStoreRun(code: 66, output: "", errors: "Error: no such file: \(missing)\n"))
        }
        #expect(docstore("migrate", missing, "--model", Fixtures.model2)
            == DocStoreRun(code: 66, output: "", errors: "Error: no such file: \(missing)\n"))
        #expect(docstore("info", document.path, "--model", missing)
            == DocStoreRun(code: 66, output: "", errors: "Error: no such model: \(missing)\n"))
        #expect(docstore("model", missing) == DocStoreRun(code: 66, output: "", errors: "Error: no such model: \(missing)\n"))
        #expect(docstore("dump", document.path, "--entity", "Book") == DocStoreRun(code: 66, output: "", errors: """
            Error: no such entity: Book
            The store's entities: Ebook

            """))
    }

    @Test("what is not a Core Data store or document, or not a model, is 65")
    func badInput() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.path("Empty.bstest")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let text = directory.path("notes.txt")
        try Data("hello".utf8).write(to: text)
        let plain = directory.path("plain.sqlite")
        try Connection(path: plain.path).execute("CREATE TABLE t (x)")
        let brokenModel = directory.path("Broken.xcdatamodel")
        try FileManager.default.createDirectory(at: brokenModel, withIntermediateDirectories: true)
        try Data("<model><entity name=".utf8).write(to: brokenModel.appendingPathComponent("contents"))
        let document = try Fixtures.ebookDocument(in: directory)
        let bare = directory.path("bare.sqlite")
        try Connection(path: bare.path).execute("""
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            """)

        let cases: [([String], String)] = [
            (["info", folder.path], "Error: \(folder.path) is a folder but not a Core Data document (no StoreContent/persistentStore)\n"),
            (["dump", text.path], "Error: \(text.path) is not a Core Data store (not a SQLite database)\n"),
            (["info", plain.path], "Error: \(plain.path) is not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables)\n"),
            (["info", bare.path], "Error: \(bare.path): the store's Z_METADATA table is empty\n"),
            (["model", plain.path], "Error: \(plain.path) is not a Core Data store (no Z_METADATA and Z_PRIMARYKEY tables)\n"),
            (["dump", document.path, "--model", Fixtures.model2], """
                Error: the store at \(document.path) does not match the model \(Fixtures.model2) (it would need 5 migration statements)
                Leave out --model to read it with the store's own model, or run 'docstore migrate' on a copy.

                """),
        ]
        for (arguments, errors) in cases {
            var output = "", captured = ""
            let code = DocStore.run(arguments, environment: [:], output: &output, errors: &captured)
            #expect(code == 65, "\(arguments)")
            #expect(output == "", "\(arguments)")
            #expect(captured == errors, "\(arguments)")
        }
        let model = docstore("model", brokenModel.path)
        #expect(model.code == 65)
        #expect(model.output == "")
        #expect(model.errors.hasPrefix("Error: "))
        #expect(model.errors.hasSuffix("\n") && model.errors.dropLast().contains("\n") == false)
        #expect(model.errors.contains(brokenModel.lastPathComponent))
    }

    @Test("usage mistakes are 64 with swift-argument-parser's text; help and version are 0")
    func usage() {
        #expect(docstore("dupm", "x") == DocStoreRun(code: 64, output: "", errors: """
            Error: Unknown command 'dupm'. Did you mean 'dump'?
            Usage: docstore <subcommand>
              See 'docstore --help' for more information.

            """))
        #expect(docstore("info") == DocStoreRun(code: 64, output: "", errors: """
            Error: Missing expected argument '<path>'
            Help:  <path>  A Core Data document package or store file.
            Usage: docstore info <path> [--model <model>] [--json]
              See 'docstore info --help' for more information.

            """))
        #expect(docstore("dump", "a", "--entity") == DocStoreRun(code: 64, output: "", errors: """
            Error: Missing value for '--entity <entity>'
            Help:  --entity <entity>  Only objects of this entity and its subentities.
            Usage: docstore dump <path> [--model <model>] [--entity <entity>] [--json]
              See 'docstore dump --help' for more information.

            """))
        #expect(docstore("--version") == DocStoreRun(code: 0, output: "0.1.0\n", errors: ""))
        let help = docstore("help", "migrate")
        #expect(help.code == 0 && help.errors == "")
        #expect(help.output == """
            OVERVIEW: Migrate a store lightweight to a newer model, keeping its metadata.

            USAGE: docstore migrate <path> --model <model>

            ARGUMENTS:
              <path>                  A Core Data document package or store file.

            OPTIONS:
              --model <model>         The model to migrate the store to.
              --version               Show the version.
              -h, --help              Show help information.


            """)
        #expect(docstore("dump", "--help", environment: ["COLUMNS": "100"]).output.contains(
            "Prints a JSON array of objects, each with its \"entity\", its \"uri\" (x-coredata://UUID/Entity/pN) and"))
    }
}

@Suite("Errors from the layers below become docstore errors with the contract's codes")
struct DocStoreErrorClassificationTests {
    @Test("each kind of failure gets its code, message and hint", arguments: [
        (SQLiteError(resultCode: 14, message: "unable to open database file") as any Error, Int32(1),
         "Error: cannot open s.sqlite: unable to open database file\n"
            + "A store in WAL mode needs its folder to be writable, even to be read: copy the document somewhere writable."),
        (SQLiteError(resultCode: 26, message: "file is not a database"), 65, "Error: s.sqlite is not a Core Data store (not a SQLite database)"),
        (SQLiteError(resultCode: 5, message: "database is locked"), 1, "Error: s.sqlite: SQLite error 5: database is locked"),
        (ModelError("entity A is declared twice"), 65, "Error: Invalid model: entity A is declared twice"),
        (StoreError("the store's Z_METADATA table is empty"), 65, "Error: s.sqlite: the store's Z_METADATA table is empty"),
    ])
    func classification(error: any Error, code: Int32, text: String) {
        let classified = DocStoreError.from(error, path: "s.sqlite")
        #expect(classified.exitCode == code)
        #expect(classified.description == text)
    }
}
