import Foundation
import ObjectGraph
import SQLiteDB

// A model with every delete rule: a shelf cascades to its books, a book's labels are
// nullified, and a book with loans cannot be deleted (deny).
final class Shelf: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Relationship(inverse: "shelf", deleteRule: .cascade) var books: Set<Book>
}

final class Book: ManagedObject {
    @Attribute(unique: true) var title: String = ""
    @Attribute var pages: Int32 = 0
    @Relationship(inverse: "books") var shelf: Shelf?
    @Relationship(inverse: "books", deleteRule: .nullify) var labels: Set<Label>
    @Relationship(inverse: "book", deleteRule: .deny) var loans: Set<Loan>
}

final class Label: ManagedObject {
    @Attribute(unique: true) var name: String = ""
    @Relationship(inverse: "labels", deleteRule: .nullify) var books: Set<Book>
}

final class Loan: ManagedObject {
    @Attribute var reader: String = ""
    @Relationship(inverse: "loans") var book: Book?
}

/// The shelves store: its model, its starting content, and reading it back with plain SQL.
enum ShelvesStore {
    static let model: ObjectModel = {
        do {
            return try ObjectModel(Shelf.self, Book.self, Label.self, Loan.self)
        } catch {
            preconditionFailure("the shelves model: \(error)")
        }
    }()

    static func url(in folder: URL) -> URL { folder.appendingPathComponent("shelves.sqlite") }

    /// Shelves A–D with 30 books each, 10 labels (2 or 3 a book), loans on every 7th book of
    /// shelves B–D.
    static func create(in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let coordinator = try StoreCoordinator(url: url(in: folder), model: model)
        let context = ObjectContext(coordinator: coordinator)
        let labels = (0..<10).map { index in
            let label = Label(context: context)
            label.name = "label \(index)"
            return label
        }
        for (shelfIndex, shelfName) in ["A", "B", "C", "D"].enumerated() {
            let shelf = Shelf(context: context)
            shelf.name = shelfName
            for index in 0..<30 {
                let number = shelfIndex * 30 + index
                let book = Book(context: context)
                book.title = "Book \(shelfName)\(String(format: "%02d", index))"
                book.pages = Int32(100 + number)
                book.shelf = shelf
                book.labels = Set((0..<(2 + number % 2)).map { labels[(number + $0 * 3) % labels.count] })
                if shelfIndex > 0 && index % 7 == 0 {
                    let loan = Loan(context: context)
                    loan.reader = "Reader \(number)"
                    loan.book = book
                }
            }
        }
        try context.save()
    }

    private static func columns() throws -> (links: String, bookColumn: String, labelColumn: String, shelfColumn: String, loanBook: String) {
        guard let book = model.entity(named: "Book"), let loan = model.entity(named: "Loan"),
              case .joinTable(let links, let bookColumn, let labelColumn)? = book.relationship(named: "labels")?.storage,
              case .foreignKey(let shelfColumn, _)? = book.relationship(named: "shelf")?.storage,
              case .foreignKey(let loanBook, _)? = loan.relationship(named: "book")?.storage else {
            throw RunFailure("the shelves model lacks its relationships")
        }
        return (links, bookColumn, labelColumn, shelfColumn, loanBook)
    }

    private static func connection(_ folder: URL) throws -> Connection {
        try Connection(path: url(in: folder).path, configuration: .init(readOnly: true, create: false, journalMode: nil, synchronous: nil))
    }

    /// Every shelf, book (shelf, labels) and loan, in order.
    static func fingerprint(_ folder: URL) throws -> String {
        let connection = try connection(folder)
        let names = try columns()
        var lines = try connection.rows("SELECT ZNAME FROM ZSHELF ORDER BY 1") { "shelf \($0.string(at: 0) ?? "-")" }
        lines += try connection.rows(
            "SELECT b.ZTITLE, b.ZPAGES, s.ZNAME, (SELECT group_concat(name, ',') FROM (SELECT l.ZNAME AS name FROM \(names.links) j "
                + "JOIN ZLABEL l ON l.Z_PK = j.\(names.labelColumn) WHERE j.\(names.bookColumn) = b.Z_PK ORDER BY 1)) "
                + "FROM ZBOOK b LEFT JOIN ZSHELF s ON s.Z_PK = b.\(names.shelfColumn) ORDER BY 1") { row in
            "book \(row.string(at: 0) ?? "-") \(row.int64(at: 1)) on \(row.string(at: 2) ?? "-") labelled \(row.string(at: 3) ?? "")"
        }
        lines += try connection.rows("SELECT l.ZREADER, b.ZTITLE FROM ZLOAN l LEFT JOIN ZBOOK b ON b.Z_PK = l.\(names.loanBook) ORDER BY 1") {
            "loan \($0.string(at: 0) ?? "-") of \($0.string(at: 1) ?? "-")"
        }
        return lines.joined(separator: "\n")
    }

    /// SQLite's integrity check, then nothing pointing at nothing and keys handed out soundly.
    static func problems(_ folder: URL) throws -> [String] {
        let connection = try connection(folder)
        let names = try columns()
        var problems = try connection.integrityCheck().filter { $0 != "ok" }.map { "integrity check: \($0)" }
        let queries: [(String, String)] = [
            ("SELECT count(*) FROM ZBOOK WHERE \(names.shelfColumn) IS NULL OR \(names.shelfColumn) NOT IN (SELECT Z_PK FROM ZSHELF)",
             "books without their shelf"),
            ("SELECT count(*) FROM ZLOAN WHERE \(names.loanBook) IS NULL OR \(names.loanBook) NOT IN (SELECT Z_PK FROM ZBOOK)",
             "loans of books that do not exist"),
            ("SELECT count(*) FROM \(names.links) WHERE \(names.bookColumn) NOT IN (SELECT Z_PK FROM ZBOOK) "
                + "OR \(names.labelColumn) NOT IN (SELECT Z_PK FROM ZLABEL)", "label links joining nothing"),
            ("SELECT count(*) FROM Z_PRIMARYKEY k WHERE k.Z_MAX < coalesce((SELECT max(Z_PK) FROM ZBOOK WHERE k.Z_NAME = 'Book'), 0) "
                + "OR k.Z_MAX < coalesce((SELECT max(Z_PK) FROM ZLOAN WHERE k.Z_NAME = 'Loan'), 0)", "keys handed out twice"),
        ]
        for (sql, problem) in queries {
            let count = try connection.scalar(sql)?.integerValue ?? 0
            if count != 0 { problems.append("\(count) \(problem)") }
        }
        return problems
    }

    /// A failure that reached the caller as an error of a kind a failing disk explains, with a
    /// one-line message.
    static func isClean(_ error: Error) -> Bool {
        let text = "\(error)"
        guard !text.isEmpty, !text.contains("\n") else { return false }
        return error is SQLiteError || error is ObjectLoadError || error is StoreError
    }

    static func outcome(_ body: () throws -> String) -> FaultRunResult {
        do {
            return .succeeded(output: try body())
        } catch {
            return .failed(message: "\(error)", clean: isClean(error))
        }
    }
}

/// A graph operation: prepares the shelves store; nothing stays open after a run.
protocol ShelvesFaultOperation: FaultOperation {}

extension ShelvesFaultOperation {
    func prepare(in folder: URL) throws { try ShelvesStore.create(in: folder) }
    func release(_ folder: URL) -> [String] { [] }
    func inspect(_ folder: URL) throws -> FaultInspection {
        FaultInspection(fingerprint: try ShelvesStore.fingerprint(folder), problems: try ShelvesStore.problems(folder))
    }
}

/// A save with delete rules: shelf A goes with its 30 books (cascade), their label links go
/// (nullify); then a book with loans is refused (deny), however its loans are read.
struct DeleteRulesFaultOperation: ShelvesFaultOperation {
    let name = "delete-rules"

    func run(in folder: URL) -> FaultRunResult {
        ShelvesStore.outcome {
            let context = ObjectContext(coordinator: try StoreCoordinator(url: ShelvesStore.url(in: folder), model: ShelvesStore.model))
            guard let shelf = try context.fetch(FetchRequest<Shelf>(predicate: "name == %@", "A")).first else {
                throw RunFailure("no shelf A")
            }
            context.delete(shelf)
            try context.save()
            guard let loaned = try context.fetch(FetchRequest<Book>(predicate: "loans.@count > 0",
                                                                    sortedBy: [ObjectSortDescriptor("title")], limit: 1)).first else {
                throw RunFailure("no book with loans")
            }
            let title = loaned.title
            context.delete(loaned)
            do {
                try context.save()
                return "deny let \(title) go"
            } catch let error as ValidationError where error.rule == .deny {
                context.rollback()
                try context.throwIfLoadFailed()
                return "shelf A deleted with its books; \(title) kept by deny"
            }
        }
    }
}

/// Fetches with faulting: objects with their to-one targets fired in batches and their to-many
/// relationships loaded; objects made from IDs and loaded a batch at a time when touched; and
/// batched results. Whatever succeeds must read exactly what the clean run read.
struct FetchFaultOperation: ShelvesFaultOperation {
    let name = "fetch"

    func run(in folder: URL) -> FaultRunResult {
        ShelvesStore.outcome {
            let coordinator = try StoreCoordinator(url: ShelvesStore.url(in: folder), model: ShelvesStore.model)
            let byTitle = [ObjectSortDescriptor("title")]
            var lines: [String] = []
            let context = ObjectContext(coordinator: coordinator)
            for book in try context.fetch(FetchRequest<Book>(sortedBy: byTitle)) {
                lines.append("\(book.title) \(book.pages) on \(book.shelf?.name ?? "-") labelled "
                             + "\(book.labels.map(\.name).sorted().joined(separator: ",")) lent to \(book.loans.map(\.reader).sorted())")
            }
            try context.throwIfLoadFailed()
            let faulting = ObjectContext(coordinator: coordinator)
            for id in try faulting.fetchObjectIDs(FetchRequest<Book>(sortedBy: byTitle)) {
                guard let book = faulting.object(with: id) as? Book else { throw RunFailure("\(id) is not a book") }
                lines.append("\(book.title) \(book.pages)")
            }
            try faulting.throwIfLoadFailed()
            let batched = try ObjectContext(coordinator: coordinator).fetch(FetchRequest<Book>(sortedBy: byTitle), batchSize: 25)
            for index in batched.indices { lines.append(try batched.object(at: index).title) }
            return lines.joined(separator: "\n")
        }
    }
}

/// A results controller over the books, in sections by shelf, refreshed after another
/// context's save is merged: a title changed, a book moved to another shelf, a book deleted.
/// A refresh that fails must be reported (and retried here), never leave the sections silently
/// stale.
struct ResultsControllerFaultOperation: ShelvesFaultOperation {
    let name = "results-controller"

    func run(in folder: URL) -> FaultRunResult {
        ShelvesStore.outcome {
            let coordinator = try StoreCoordinator(url: ShelvesStore.url(in: folder), model: ShelvesStore.model)
            let view = ObjectContext(coordinator: coordinator)
            view.automaticallyMergesChanges = true
            let controller = try FetchedResultsController(
                request: FetchRequest<Book>(sortedBy: [ObjectSortDescriptor("shelf.name"), ObjectSortDescriptor("title")]),
                context: view, sectionKeyPath: "shelf.name")
            var reportedChanges = 0
            var reportedErrors = 0
            controller.onChange = { _ in reportedChanges += 1 }
            controller.onError = { _ in reportedErrors += 1 }
            try controller.performFetch()

            let writer = ObjectContext(coordinator: coordinator)
            let books = try writer.fetch(FetchRequest<Book>(predicate: "title IN %@", ["Book B03", "Book C05", "Book D02"],
                                                            sortedBy: [ObjectSortDescriptor("title")]))
            guard books.count == 3, let shelfA = try writer.fetch(FetchRequest<Shelf>(predicate: "name == %@", "A")).first else {
                throw RunFailure("the books or shelf to change are missing")
            }
            books[0].title = "Book B03, second edition"
            books[1].shelf = shelfA
            writer.delete(books[2])
            try writer.save()

            view.mergePendingChanges()
            if controller.lastError != nil {
                guard reportedErrors > 0 else { throw RunFailure("a refresh failed without telling onError") }
                try controller.refresh()
            }
            guard reportedChanges > 0 else { throw RunFailure("the controller reported no change") }
            return controller.sections.map { section in
                "\(section.name): " + section.objects.map(\.title).joined(separator: ", ")
            }.joined(separator: "\n")
        }
    }
}
