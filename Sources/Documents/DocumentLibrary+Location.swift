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

    private static func nonEmpty(_ value: String?) -> String? {
        guard let value, !value.isEmpty else { return nil }
        return value
    }
}
