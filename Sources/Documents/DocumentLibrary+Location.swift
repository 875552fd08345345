import Foundation

extension DocumentLibrary {
    /// Where the library is (ARCHITECTURE.md §3): `option` (`--library DIR`), else `$VACATION_LIBRARY`,
    /// else `$XDG_DATA_HOME/vacation`, else `~/.local/share/vacation`.
    ///
    /// Relative paths are taken from `currentDirectory`; a relative `XDG_DATA_HOME` is ignored,
    /// as the XDG specification asks; a leading `~/` means the home folder. Empty values count
    /// as unset.
    ///
    /// ```swift
    /// let url = DocumentLibrary.location(option: arguments.library,
    ///                                    environment: ProcessInfo.processInfo.environment)
    /// ```
    public static func location(option: String?, environment: [String: String],
                                currentDirectory: String = FileManager.default.currentDirectoryPath,
                                variable: String = "VACATION_LIBRARY", folderName: String = "vacation") -> URL {
        let home = nonEmpty(environment["HOME"]) ?? FileManager.default.homeDirectoryForCurrentUser.path
        func absolute(_ path: String) -> URL {
            var path = path
            if path == "~" { path = home } else if path.hasPrefix("~/") { path = home + path.dropFirst(1) }
            // A path already in standard form is its own standardisation: no URL parse for it.
            let joined = path.hasPrefix("/") ? path : currentDirectory + "/" + path
            if isStandardPath(joined) { return URL(fileURLWithPath: joined, isDirectory: true) }
            let url = path.hasPrefix("/") ? URL(fileURLWithPath: path, isDirectory: true)
                : URL(fileURLWithPath: currentDirectory, isDirectory: true).appendingPathComponent(path, isDirectory: true)
            return url.standardizedFileURL
        }
        if let option = nonEmpty(option) { return absolute(option) }
        if let library = nonEmpty(environment[variable]) { return absolute(library) }
        if let dataHome = nonEmpty(environment["XDG_DATA_HOME"]), dataHome.hasPrefix("/") {
            return absolute(dataHome).appendingPathComponent(folderName, isDirectory: true)
        }
        return absolute(home).appendingPathComponent(".local/share", isDirectory: true)
            .appendingPathComponent(folderName, isDirectory: true)
    }

    /// `url.standardizedFileURL.path`, without Foundation's URL work when the path is already
    /// standard (`isStandardPath`), as nearly every library path is.
    static func standardizedPath(of url: URL) -> String {
        let path = url.path
        return isStandardPath(path) ? path : url.standardizedFileURL.path
    }

    /// True when `path` is one that Foundation's path standardisation (`standardizedFileURL`)
    /// gives back unchanged: absolute, no empty, `.` or `..` component, no trailing slash, and
    /// none of the automount prefixes Foundation strips (`/private/`, `/var/automount/`).
    /// Anything else takes Foundation's way, exactly as before.
    static func isStandardPath(_ path: String) -> Bool {
        let bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") else { return false }
        if bytes.count == 1 { return true }
        guard bytes.last != UInt8(ascii: "/"), !bytes.starts(with: "/private".utf8),
              !bytes.starts(with: "/var/automount".utf8) else {
            return false
        }
        var componentStart = 1
        for index in 1...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: "/") {
            let component = bytes[componentStart..<index]
            if component.isEmpty || component.elementsEqual([UInt8(ascii: ".")])
                || component.elementsEqual([UInt8(ascii: "."), UInt8(ascii: ".")]) {
                return false
            }
            componentStart = index + 1
        }
        return true
    }

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
