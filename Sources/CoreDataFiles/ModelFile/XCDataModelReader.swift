import Foundation
import ObjectGraph

/// Reads Core Data models as Xcode saves them: a `.xcdatamodeld` bundle of versions, one
/// `.xcdatamodel` folder, or the `contents` XML file inside it.
///
/// The XML is parsed with libxml2 without network access, without loading DTDs and without
/// substituting entities. The result is checked (names, inheritance, destinations, inverses)
/// before it is returned, so a model that comes back is one the object graph can build.
///
/// ```swift
/// let url = URL(fileURLWithPath: "Model.xcdatamodeld")
/// let current = try XCDataModelReader.read(at: url)          // the version .xccurrentversion names
/// for version in try XCDataModelReader.versions(at: url) {   // every version, oldest name first
///     print(version.name, version.isCurrent)
/// }
/// ```
public enum XCDataModelReader {
    /// The current model version of a `.xcdatamodeld`, or the model of a `.xcdatamodel`
    /// folder or of a `contents` file; compiled models (`.mom`, `.momd`) are read by
    /// `CompiledModelReader` into the same values.
    ///
    /// - Throws: `XCDataModelError` when the path holds no model, the XML or archive is
    ///   malformed, or the model contradicts itself (see `validate(_:url:)`).
    public static func read(at url: URL) throws -> XCDataModelFile {
        if CompiledModelReader.isCompiledModel(url) {
            return try CompiledModelReader.read(at: url)
        }
        let contents = try contentsFile(for: url)
        let data: Data
        do {
            data = try Data(contentsOf: contents)
        } catch {
            throw XCDataModelError(.unreadable(reason: Self.reason(error)), url: contents)
        }
        return try parse(data, url: contents)
    }

    /// Parses the XML of a `contents` file held in memory.
    ///
    /// - Parameter url: Only used to say where a problem is.
    /// - Throws: `XCDataModelError`.
    package static func parse(_ data: Data, url: URL? = nil) throws -> XCDataModelFile {
        let root = try XCDataModelXMLDocument.parse(data, url: url)
        var decoder = XCDataModelXMLDecoder(url: url)
        let (model, sourceLines) = try decoder.decode(root)
        try validate(model, url: url, sourceLines: sourceLines)
        return model
    }

    /// Every version of a `.xcdatamodeld`, sorted by name with numbers compared as numbers
    /// ("Model 2" before "Model 10"), the current one marked.
    ///
    /// The current version is the one `.xccurrentversion` names in `_XCCurrentVersionName`;
    /// without that file (or key) it is the last one.
    ///
    /// - Throws: `XCDataModelError` when the folder is missing, holds no versions, or
    ///   `.xccurrentversion` is unreadable or names a version that is not there.
    public static func versions(at modeldURL: URL) throws -> [XCDataModelVersion] {
        guard isDirectory(modeldURL) else {
            if FileManager.default.fileExists(atPath: modeldURL.path) {
                throw XCDataModelError(.notAModel(reason: "a .xcdatamodeld is a folder"), url: modeldURL)
            }
            throw XCDataModelError(.fileNotFound, url: modeldURL)
        }
        let folders = try versionFolders(in: modeldURL)
        guard !folders.isEmpty else {
            throw XCDataModelError(.notAModel(reason: "no .xcdatamodel versions inside"), url: modeldURL)
        }
        let currentName = try currentVersionName(in: modeldURL)
        if let currentName, !folders.contains(where: { $0.lastPathComponent == currentName }) {
            throw XCDataModelError(
                .notAModel(reason: ".xccurrentversion names \"\(currentName)\", which is not in the bundle"),
                url: modeldURL.appendingPathComponent(".xccurrentversion"))
        }
        let current = currentName ?? folders[folders.count - 1].lastPathComponent
        return folders.map { folder in
            XCDataModelVersion(name: folder.deletingPathExtension().lastPathComponent, url: folder,
                               isCurrent: folder.lastPathComponent == current)
        }
    }

    // MARK: - Finding the contents file

    private static func contentsFile(for url: URL) throws -> URL {
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: url.path) else {
            throw XCDataModelError(.fileNotFound, url: url)
        }
        guard isDirectory(url) else { return url }
        let contents = url.appendingPathComponent("contents")
        if fileManager.fileExists(atPath: contents.path), !isDirectory(contents) {
            return contents
        }
        let hasVersions = try !versionFolders(in: url).isEmpty
        if url.pathExtension == "xcdatamodeld" || hasVersions {
            let versions = try versions(at: url)
            guard let current = versions.first(where: \.isCurrent) else {
                throw XCDataModelError(.notAModel(reason: "no current version"), url: url)
            }
            return try contentsFile(for: current.url)
        }
        if fileManager.fileExists(atPath: url.appendingPathComponent("elements").path) {
            throw XCDataModelError(
                .notAModel(reason: "Xcode 3 binary format (elements/layout); open and save it in a newer Xcode"),
                url: url)
        }
        throw XCDataModelError(.notAModel(reason: "a .xcdatamodel folder without a contents file"), url: url)
    }

    private static func versionFolders(in modeldURL: URL) throws -> [URL] {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: modeldURL.path)
        } catch {
            throw XCDataModelError(.unreadable(reason: Self.reason(error)), url: modeldURL)
        }
        return names
            .filter { $0.hasSuffix(".xcdatamodel") && !$0.hasPrefix(".") }
            .sorted { versionOrder($0, $1) }
            .map { modeldURL.appendingPathComponent($0) }
            .filter(isDirectory)
    }

    /// "Model" < "Model 2" < "Model 10": by name without the extension, numbers as numbers.
    private static func versionOrder(_ left: String, _ right: String) -> Bool {
        let leftName = String(left.dropLast(".xcdatamodel".count))
        let rightName = String(right.dropLast(".xcdatamodel".count))
        let order = leftName.compare(rightName, options: [.numeric])
        return order == .orderedSame ? left < right : order == .orderedAscending
    }

    private static func currentVersionName(in modeldURL: URL) throws -> String? {
        let file = modeldURL.appendingPathComponent(".xccurrentversion")
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        let plist: Any
        do {
            let data = try Data(contentsOf: file)
            plist = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        } catch {
            throw XCDataModelError(.unreadable(reason: "not a property list"), url: file)
        }
        guard let dictionary = plist as? [String: Any] else {
            throw XCDataModelError(.unreadable(reason: "not a property list dictionary"), url: file)
        }
        guard let name = dictionary["_XCCurrentVersionName"] else { return nil }
        guard let name = name as? String, !name.isEmpty else {
            throw XCDataModelError(.unreadable(reason: "_XCCurrentVersionName is not a name"), url: file)
        }
        return name.hasSuffix(".xcdatamodel") ? name : name + ".xcdatamodel"
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory)
            && isDirectory.boolValue
    }

    private static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}
