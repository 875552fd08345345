import Foundation

/// Reads compiled Core Data models: a `.mom` file (the keyed archive of an
/// `NSManagedObjectModel` that Xcode's model compiler writes) or a `.momd` folder (one `.mom` per
/// version, and `VersionInfo.plist` naming the current one and each version's entity hashes).
///
/// The result is the same `XCDataModelFile` the XML reader gives for the model's source, checked
/// the same way, so a compiled model builds the object graph's model through the one path.
/// `.omo` files (an optimized form some `.momd`s also hold) are not read: the `.mom` beside one
/// holds the same model.
///
/// ```swift
/// let model = try CompiledModelReader.read(at: URL(fileURLWithPath: "SampleModel.momd"))
/// let bundle = try CompiledModelBundle(at: URL(fileURLWithPath: "SampleModel.momd"))
/// bundle.current.recordedVersionHashes   // what Xcode's compiler computed, by entity
/// ```
public enum CompiledModelReader {
    /// The model of a `.mom` file, or the current version of a `.momd` folder.
    ///
    /// - Throws: `XCDataModelError`: `fileNotFound`, `notAModel` (a `.momd` without its current
    ///   version, an `.omo`), `malformedArchive` (not a keyed archive of a model), or what
    ///   `XCDataModelReader.validate` finds.
    public static func read(at url: URL) throws -> XCDataModelFile {
        if isDirectory(url) {
            return try read(at: CompiledModelBundle(at: url).current.url)
        }
        guard FileManager.default.fileExists(atPath: url.path) else { throw XCDataModelError(.fileNotFound, url: url) }
        if url.pathExtension == "omo" {
            throw XCDataModelError(.notAModel(reason: "an optimized compiled model (.omo) is not readable; read the .mom beside it"), url: url)
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw XCDataModelError(.unreadable(reason: (error as NSError).localizedDescription), url: url)
        }
        return try decode(data, url: url)
    }

    /// Decodes a compiled model held in memory: a `.mom` file's bytes, or the decompressed
    /// content of a store's `Z_MODELCACHE`.
    ///
    /// - Parameter url: Only used to say where a problem is.
    /// - Throws: `XCDataModelError`.
    package static func decode(_ data: Data, url: URL? = nil) throws -> XCDataModelFile {
        let archive = try KeyedArchive(data: data, url: url)
        var decoder = CompiledModelDecoder(archive: archive)
        let model = try decoder.decode()
        try XCDataModelReader.validate(model, url: url)
        return model
    }

    /// Whether `url` names a compiled model: a `.mom` or `.omo` file, a `.momd` folder, a folder
    /// holding `VersionInfo.plist`, or a file that starts like a binary property list.
    static func isCompiledModel(_ url: URL) -> Bool {
        if ["mom", "momd", "omo"].contains(url.pathExtension.lowercased()) { return true }
        if isDirectory(url) {
            return FileManager.default.fileExists(atPath: url.appendingPathComponent("VersionInfo.plist").path)
        }
        // Only a choice of reader: a file that cannot be read here fails, with its own error,
        // in the XML reader that the caller tries instead.
        guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
        defer { try? handle.close() }
        // A file that cannot be read is not recognised here; reading it reports why.
        let header = (try? handle.read(upToCount: 8)) ?? Data()
        return BinaryPropertyListReader.isBinaryPropertyList(header)
    }

    static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// A `.momd` folder: its versions and what `VersionInfo.plist` records about them.
public struct CompiledModelBundle: Sendable, Equatable {
    /// One compiled version, a `.mom` in the folder.
    public struct Version: Sendable, Equatable {
        /// The file name without `.mom`, e.g. "SampleModel2".
        public var name: String
        /// The `.mom` file.
        public var url: URL
        var isCurrent: Bool
        /// The entity hashes Xcode's compiler wrote into `NSManagedObjectModel_VersionHashes`;
        /// nil when `VersionInfo.plist` has none for this version.
        public var recordedVersionHashes: [String: Data]?
    }

    /// The `.momd` folder.
    public let url: URL
    /// Every `.mom`, names compared as numbers ("Model 2" before "Model 10"); never empty.
    public let versions: [Version]

    /// The version `NSManagedObjectModel_CurrentVersionName` names.
    public var current: Version {
        versions.first(where: \.isCurrent) ?? versions[versions.count - 1]
    }

    /// Reads the folder and its `VersionInfo.plist`.
    ///
    /// - Throws: `XCDataModelError`: `fileNotFound`; `notAModel` when the folder holds no `.mom`
    ///   or names a current version it does not hold; `unreadable` for a `VersionInfo.plist`
    ///   that is not a property list of the expected form.
    public init(at url: URL) throws {
        guard CompiledModelReader.isDirectory(url) else {
            if FileManager.default.fileExists(atPath: url.path) {
                throw XCDataModelError(.notAModel(reason: "a .momd is a folder"), url: url)
            }
            throw XCDataModelError(.fileNotFound, url: url)
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: url.path)
        } catch {
            throw XCDataModelError(.unreadable(reason: (error as NSError).localizedDescription), url: url)
        }
        let moms = names.filter { $0.hasSuffix(".mom") && !$0.hasPrefix(".") }
            .map { String($0.dropLast(".mom".count)) }
            .sorted { $0.compare($1, options: [.numeric]) == .orderedAscending }
        guard !moms.isEmpty else {
            let reason = names.contains { $0.hasSuffix(".omo") }
                ? "only optimized models (.omo), which are not readable, and no .mom"
                : "no compiled versions (.mom) inside"
            throw XCDataModelError(.notAModel(reason: reason), url: url)
        }
        let info = try Self.versionInfo(in: url)
        let currentName = info.currentName ?? (moms.count == 1 ? moms[0] : nil)
        guard let currentName else {
            throw XCDataModelError(.notAModel(reason: "no VersionInfo.plist naming the current of \(moms.count) versions"), url: url)
        }
        guard moms.contains(currentName) else {
            throw XCDataModelError(.notAModel(reason: "VersionInfo.plist names the current version \"\(currentName)\", which is not in the folder"),
                                   url: url.appendingPathComponent("VersionInfo.plist"))
        }
        self.url = url
        versions = moms.map { name in
            Version(name: name, url: url.appendingPathComponent(name + ".mom"), isCurrent: name == currentName,
                    recordedVersionHashes: info.hashes[name])
        }
    }

    /// `NSManagedObjectModel_CurrentVersionName` and `NSManagedObjectModel_VersionHashes`.
    private static func versionInfo(in url: URL) throws -> (currentName: String?, hashes: [String: [String: Data]]) {
        let file = url.appendingPathComponent("VersionInfo.plist")
        guard FileManager.default.fileExists(atPath: file.path) else { return (nil, [:]) }
        let plist: Any
        do {
            plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: file), options: [], format: nil)
        } catch {
            throw XCDataModelError(.unreadable(reason: "not a property list"), url: file)
        }
        guard let dictionary = plist as? [String: Any] else {
            throw XCDataModelError(.unreadable(reason: "not a property list dictionary"), url: file)
        }
        var currentName: String?
        if let name = dictionary["NSManagedObjectModel_CurrentVersionName"] {
            guard let name = name as? String, !name.isEmpty else {
                throw XCDataModelError(.unreadable(reason: "NSManagedObjectModel_CurrentVersionName is not a name"), url: file)
            }
            currentName = name.hasSuffix(".mom") ? String(name.dropLast(".mom".count)) : name
        }
        var hashes: [String: [String: Data]] = [:]
        if let recorded = dictionary["NSManagedObjectModel_VersionHashes"] {
            guard let versions = recorded as? [String: Any] else {
                throw XCDataModelError(.unreadable(reason: "NSManagedObjectModel_VersionHashes is not a dictionary"), url: file)
            }
            for (version, entities) in versions {
                guard let entities = entities as? [String: Any] else {
                    throw XCDataModelError(.unreadable(reason: "the hashes of version \(version) are not a dictionary"), url: file)
                }
                hashes[version] = try entities.mapValues { value in
                    guard let data = value as? Data else {
                        throw XCDataModelError(.unreadable(reason: "a hash of version \(version) is not data"), url: file)
                    }
                    return data
                }
            }
        }
        return (currentName, hashes)
    }
}
