import Foundation
import SQLiteDB

/// MagicalRecord's finders, typed: the everyday one-liners over fetch requests.
///
/// ```swift
/// let tag = try context.findOrCreate(Tag.self, by: "name", value: "sea")
/// let recent = try context.findAll(Photo.self, sortedBy: "dateTaken", ascending: false)
/// let lisbon = try context.findFirst(Photo.self, where: "place.name == %@", "Lisbon")
/// ```
extension ObjectContext {
    /// The first object matching the predicate (in `sortedBy` order when given), or nil.
    public func findFirst<T: ManagedObject>(_ type: T.Type, where format: String? = nil, _ arguments: any PredicateArgument...,
                                            sortedBy key: String? = nil, ascending: Bool = true) throws -> T? {
        let predicate = try format.map { try ObjectPredicate(format: $0, arguments: arguments) }
        return try fetch(FetchRequest<T>(predicate: predicate, sortedBy: key.map { [ObjectSortDescriptor($0, ascending: ascending)] } ?? [],
                                         limit: 1)).first
    }

    /// The object whose `attribute` equals `value`, inserted with that value when there is none.
    public func findOrCreate<T: ManagedObject>(_ type: T.Type, by attribute: String, value: some PredicateArgument) throws -> T {
        let predicate = ObjectPredicate.key(attribute, .equalTo, value)
        if let found = try fetch(FetchRequest<T>(predicate: predicate, limit: 1)).first { return found }
        let object = T(context: self)
        try object.setStoredValue(Self.finderStoredValue(value.predicateValue), forKey: attribute)
        return object
    }

    /// Every object matching the predicate, sorted by one key.
    public func findAll<T: ManagedObject>(_ type: T.Type, sortedBy key: String? = nil, ascending: Bool = true,
                                          where predicate: ObjectPredicate? = nil) throws -> [T] {
        try fetch(FetchRequest<T>(predicate: predicate, sortedBy: key.map { [ObjectSortDescriptor($0, ascending: ascending)] } ?? []))
    }

    /// How many objects match the predicate.
    public func count<T: ManagedObject>(_ type: T.Type, where predicate: ObjectPredicate? = nil) throws -> Int {
        try count(for: FetchRequest<T>(predicate: predicate))
    }

    /// Deletes (in this context, delete rules applying on save) every object matching the
    /// predicate; returns how many.
    @discardableResult
    public func deleteAll<T: ManagedObject>(_ type: T.Type, where predicate: ObjectPredicate? = nil) throws -> Int {
        let objects = try fetch(FetchRequest<T>(predicate: predicate))
        for object in objects { delete(object) }
        return objects.count
    }

    /// MagicalRecord's `MR_fetchAllGroupedBy:withPredicate:sortedBy:ascending:`: a results
    /// controller with one section per value of `groupKeyPath`, fetched.
    public func fetchAllGrouped<T: ManagedObject>(_ type: T.Type, by groupKeyPath: String, where predicate: ObjectPredicate? = nil,
                                                  sortedBy key: String? = nil, ascending: Bool = true) throws -> FetchedResultsController<T> {
        var descriptors = [ObjectSortDescriptor(groupKeyPath, ascending: ascending)]
        if let key, key != groupKeyPath { descriptors.append(ObjectSortDescriptor(key, ascending: ascending)) }
        let controller = try FetchedResultsController(request: FetchRequest<T>(predicate: predicate, sortedBy: descriptors),
                                                      context: self, sectionKeyPath: groupKeyPath)
        try controller.performFetch()
        return controller
    }

    private static func finderStoredValue(_ value: PredicateValue) -> SQLiteValue {
        switch value {
        case .null, .array, .object: .null
        case .bool(let flag): .integer(flag ? 1 : 0)
        case .int(let integer): .integer(integer)
        case .double(let number): .real(number)
        case .string(let text): .text(text)
        case .date(let date): .real(date.timeIntervalSinceReferenceDate)
        case .data(let data): .blob(data)
        }
    }
}
