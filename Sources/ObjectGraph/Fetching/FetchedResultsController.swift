import Foundation

/// A position in sectioned results: a section and an item within it.
public struct ResultsIndexPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    package var section: Int
    package var item: Int

    /// The index path of row `item` in section `section`.
    public init(item: Int, section: Int) {
        self.section = section
        self.item = item
    }

    /// Section first, then row: the order a table view shows them in.
    public static func < (lhs: ResultsIndexPath, rhs: ResultsIndexPath) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `[section, item]`.
    public var description: String { "[\(section), \(item)]" }
}

/// What changed in a controller's results, in the order a table view applies a batch update:
/// updates and deletes name positions in the old results; inserts name positions in the new
/// ones; a move goes from an old position to a new one.
///
/// To apply: delete rows and sections (old positions, highest first), insert sections and rows
/// (new positions, lowest first), place moves at their new positions, then reload updated rows.
public struct ResultsChanges: Sendable, Equatable {
    package var deletedSections: [Int] = []
    package var insertedSections: [Int] = []
    package var deletedItems: [ResultsIndexPath] = []
    package var insertedItems: [ResultsIndexPath] = []
    package var movedItems: [(from: ResultsIndexPath, to: ResultsIndexPath)] = []
    package var updatedItems: [ResultsIndexPath] = []

    package var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deletedItems.isEmpty && insertedItems.isEmpty
            && movedItems.isEmpty && updatedItems.isEmpty
    }

    /// Equal when both hold the same section and row changes, moves compared by their index paths.
    public static func == (lhs: ResultsChanges, rhs: ResultsChanges) -> Bool {
        lhs.deletedSections == rhs.deletedSections && lhs.insertedSections == rhs.insertedSections
            && lhs.deletedItems == rhs.deletedItems && lhs.insertedItems == rhs.insertedItems
            && lhs.movedItems.map(\.from) == rhs.movedItems.map(\.from) && lhs.movedItems.map(\.to) == rhs.movedItems.map(\.to)
            && lhs.updatedItems == rhs.updatedItems
    }
}

/// Keeps a fetch's results, in sections, up to date with its context and reports each change
/// by index path (Core Data's `NSFetchedResultsController`, MDMCoreData's table data source).
///
/// ```swift
/// let controller = try FetchedResultsController(
///     request: FetchRequest<Photo>(sortedBy: [ObjectSortDescriptor("place.name"), ObjectSortDescriptor("dateTaken")]),
///     context: context, sectionKeyPath: "place.name")
/// controller.onChange = { changes in tableView.apply(changes) }
/// try controller.performFetch()
/// let first = controller.object(at: ResultsIndexPath(item: 0, section: 0))
/// ```
/// Sections follow the first sort descriptor, which must sort by the section key path.
/// The controller refreshes after every save, merge or rollback of its context; a refresh that
/// fails is reported to `onError` and kept in `lastError`, never taken for empty results.
public final class FetchedResultsController<Result: ManagedObject> {
    /// One section: the section key's value as text ("" for none) and its objects.
    package struct Section {
        package let name: String
        package internal(set) var objects: [Result]
        package var count: Int { objects.count }
    }

    /// The request whose results the controller keeps.
    public let request: FetchRequest<Result>
    /// The context the controller fetches in and follows.
    public let context: ObjectContext
    /// The key path whose value names each object's section; nil for one section.
    public let sectionKeyPath: String?
    package private(set) var sections: [Section] = []
    /// Called with each non-empty change after the results were refreshed.
    public var onChange: ((ResultsChanges) -> Void)?
    /// Called when refreshing after a change of the context fails (the store could not be
    /// read): `sections` keep the last results fetched, `lastError` holds the error, and the
    /// next refresh (the context's next change, or `refresh()`) reports every change since them.
    public var onError: ((Error) -> Void)?
    /// The error of the last refresh, nil once a refresh succeeds.
    public private(set) var lastError: Error?
    private var observation: ObservationToken?
    private var isRefreshing = false
    private var needsRefresh = false

    /// - Throws: `FetchRequestError` when sections are asked for but the first sort descriptor
    ///   does not sort by the section key path.
    public init(request: FetchRequest<Result>, context: ObjectContext, sectionKeyPath: String? = nil) throws {
        if let sectionKeyPath, request.sortDescriptors.first?.keyPath != sectionKeyPath {
            throw FetchRequestError(message: "the first sort descriptor must sort by the section key path \(sectionKeyPath)")
        }
        self.request = request
        self.context = context
        self.sectionKeyPath = sectionKeyPath
    }

    /// Runs the fetch and starts following the context.
    ///
    /// - Throws: what the fetch throws (`ObjectLoadError` for a section name that fails to load).
    public func performFetch() throws {
        do {
            sections = try fetchSections()
            pendingUpdates.removeAll()
            lastError = nil
        } catch {
            lastError = error
            throw error
        }
        if observation == nil {
            observation = context.observeChanges { [weak self] changes in self?.contextDidChange(changes.changeSet) }
        }
    }

    /// Fetches again now and reports the changes since the last results, as after a change of
    /// the context (to retry after a refresh failed).
    ///
    /// - Throws: what the fetch throws; `sections` then stay as they were.
    public func refresh() throws {
        try refreshReportingChanges()
    }

    /// Every object, in order.
    package var fetchedObjects: [Result] { sections.flatMap(\.objects) }

    /// The object at `indexPath` of the last fetch.
    public func object(at indexPath: ResultsIndexPath) -> Result {
        sections[indexPath.section].objects[indexPath.item]
    }

    /// Where `object` is in the last fetch; nil when it is not among the results.
    public func indexPath(for object: Result) -> ResultsIndexPath? {
        for (sectionIndex, section) in sections.enumerated() {
            if let item = section.objects.firstIndex(where: { $0 === object }) {
                return ResultsIndexPath(item: item, section: sectionIndex)
            }
        }
        return nil
    }

    /// The sections' names, in order.
    public var sectionNames: [String] { sections.map(\.name) }

    // MARK: Following the context

    private var pendingUpdates = Set<ObjectID>()

    private func contextDidChange(_ changeSet: ChangeSet) {
        pendingUpdates.formUnion(changeSet.updated)
        // An abridged change set does not say which objects changed: any of them may have.
        if changeSet.isAbridged { pendingUpdates.formUnion(sections.lazy.flatMap(\.objects).map(\.objectID)) }
        do {
            try refreshReportingChanges()
        } catch {
            // Never an empty or silent result: the old sections stay, the pending updates wait
            // for the next refresh, and whoever follows the controller hears of the failure.
            onError?(error)
        }
    }

    private func refreshReportingChanges() throws {
        guard !isRefreshing else {
            needsRefresh = true
            return
        }
        isRefreshing = true
        defer { isRefreshing = false }
        repeat {
            needsRefresh = false
            let old = sections
            let new: [Section]
            do {
                new = try fetchSections()
            } catch {
                lastError = error
                throw error
            }
            lastError = nil
            let updated = Set(old.flatMap(\.objects).filter { pendingUpdates.contains($0.objectID) }.map(ObjectIdentifier.init))
            pendingUpdates.removeAll()
            let changes = Self.changes(from: old, to: new, updated: updated)
            sections = new
            if !changes.isEmpty { onChange?(changes) }
        } while needsRefresh
    }

    /// The fetch, split into sections; a section name that fails to load fails it.
    private func fetchSections() throws -> [Section] {
        try context.reportingLoadFailures { try fetchSectionsRecordingFailures() }
    }

    private func fetchSectionsRecordingFailures() throws -> [Section] {
        // The class's own code runs unspecialized outside this module (the result class is
        // the caller's), where every generic array operation per object (`last`, `append`, a
        // cast) cost more than naming the object's section: the objects are filed into
        // sections by non-generic code (`ResultsSectioner`) as the fetch makes them, and each
        // section's list is cast as a whole.
        var sectioner = ResultsSectioner(keyPath: sectionKeyPath)
        try context.forEachFetchedObject(for: request) { sectioner.add($0) }
        guard sectioner.commonClass == ObjectIdentifier(Result.self) else {
            // Objects of other classes (a request by entity name, subentities): those that are
            // not `Result`s are left out, as `fetch` leaves them out, before sectioning.
            let objects = sectioner.objects.compactMap { downcast($0, to: Result.self) }
            guard let sectionKeyPath else { return [Section(name: "", objects: objects)] }
            var result: [Section] = []
            var start = 0
            for run in ResultsSectioning.runs(of: objects, keyPath: sectionKeyPath) {
                result.append(Section(name: run.name, objects: Array(objects[start..<start + run.count])))
                start += run.count
            }
            return result
        }
        return sectioner.sections().map { Section(name: $0.name, objects: Self.cast($0.objects)) }
    }

    /// `objects` as a list of `Result`, the same list, for objects that are all exactly of
    /// the class `Result`: a list of class references is laid out alike whatever its element
    /// class (the standard library casts such lists the same way where it can check them), and
    /// copying it object by object would meet every object again, out of the processor's
    /// caches, and run unspecialized (see `fetchSectionsRecordingFailures`).
    private static func cast(_ objects: [ManagedObject]) -> [Result] {
        unsafeBitCast(objects, to: [Result].self)
    }

    // MARK: Diffing

    /// The changes that turn `old` into `new`. Rows that keep their section and their order
    /// relative to each other stay (the longest such run); every other common row moves.
    static func changes(from old: [Section], to new: [Section], updated: Set<ObjectIdentifier>) -> ResultsChanges {
        var changes = ResultsChanges()
        let oldNames = old.map(\.name), newNames = new.map(\.name)
        let newNameSet = Set(newNames), oldNameSet = Set(oldNames)
        changes.deletedSections = oldNames.indices.filter { !newNameSet.contains(oldNames[$0]) }
        changes.insertedSections = newNames.indices.filter { !oldNameSet.contains(newNames[$0]) }

        var oldPositions: [ObjectIdentifier: ResultsIndexPath] = [:]
        var oldOrder: [ObjectIdentifier: Int] = [:]
        var counter = 0
        for (sectionIndex, section) in old.enumerated() {
            for (item, object) in section.objects.enumerated() {
                oldPositions[ObjectIdentifier(object)] = ResultsIndexPath(item: item, section: sectionIndex)
                oldOrder[ObjectIdentifier(object)] = counter
                counter += 1
            }
        }
        var newPositions: [ObjectIdentifier: ResultsIndexPath] = [:]
        var common: [(ObjectIdentifier, Int)] = []
        for (sectionIndex, section) in new.enumerated() {
            for (item, object) in section.objects.enumerated() {
                let key = ObjectIdentifier(object)
                newPositions[key] = ResultsIndexPath(item: item, section: sectionIndex)
                if let from = oldPositions[key], old[from.section].name == section.name, let order = oldOrder[key] {
                    common.append((key, order))
                }
            }
        }
        let staying = Set(longestIncreasingRun(common.map(\.1)).map { common[$0].0 })
        for (key, from) in oldPositions {
            guard let to = newPositions[key] else {
                changes.deletedItems.append(from)
                continue
            }
            if staying.contains(key) {
                if updated.contains(key) { changes.updatedItems.append(from) }
            } else {
                changes.movedItems.append((from, to))
            }
        }
        for (key, to) in newPositions where oldPositions[key] == nil { changes.insertedItems.append(to) }
        changes.deletedItems.sort(by: >)
        changes.insertedItems.sort()
        changes.movedItems.sort { $0.to < $1.to }
        changes.updatedItems.sort()
        return changes
    }

    /// Indices of one longest strictly increasing subsequence of `values`.
    static func longestIncreasingRun(_ values: [Int]) -> [Int] {
        var tails: [Int] = []
        var previous = Array(repeating: -1, count: values.count)
        for (index, value) in values.enumerated() {
            var low = 0, high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var result: [Int] = []
        var current = tails.last ?? -1
        while current >= 0 {
            result.append(current)
            current = previous[current]
        }
        return result.reversed()
    }
}
