/// Plain-text columns aligned by display width, for terminals and pipes alike.
///
///     var table = TextTable(columns: [
///         .init("TAG"),
///         .init("PHOTOS", alignment: .right),
///     ])
///     table.addRow(["東京", "12"])
///     table.addRow(["beach", "3"])
///     print(table.rendered())
///     // TAG    PHOTOS
///     // 東京       12
///     // beach       3
///
/// Columns are separated by two spaces and no line ends with a space. A column with a
/// `maximumWidth` cuts longer cells to fit, ending them with "…". Control characters in
/// cells (newlines, tabs, escapes) become spaces, so each row stays one line and no cell
/// can move the cursor.
package struct TextTable: Sendable, Equatable {
    package enum Alignment: Sendable, Equatable {
        case left
        /// For numbers.
        case right
    }

    package struct Column: Sendable, Equatable {
        package var title: String
        package var alignment: Alignment
        /// Cells wider than this are truncated with "…"; `nil` for no limit.
        package var maximumWidth: Int?

        package init(_ title: String, alignment: Alignment = .left, maximumWidth: Int? = nil) {
            self.title = title
            self.alignment = alignment
            self.maximumWidth = maximumWidth
        }
    }

    package var columns: [Column]
    package var showsHeader: Bool
    package private(set) var rows: [[String]] = []
    /// Text between two columns.
    package var separator = "  "

    package init(columns: [Column], showsHeader: Bool = true) {
        self.columns = columns
        self.showsHeader = showsHeader
    }

    /// Adds a row; missing cells are empty and cells beyond the last column are dropped.
    package mutating func addRow(_ cells: [String]) {
        rows.append(cells)
    }

    /// The table as lines joined by "\n", with no newline after the last.
    package func rendered() -> String {
        guard !columns.isEmpty else { return "" }
        var lines: [[String]] = showsHeader ? [columns.map(\.title)] : []
        lines += rows
        let cells = lines.map { row in
            columns.indices.map { index in
                fit(index < row.count ? row[index] : "", to: columns[index].maximumWidth)
            }
        }
        var widths = [Int](repeating: 0, count: columns.count)
        for row in cells {
            for (index, cell) in row.enumerated() {
                widths[index] = max(widths[index], cell.width)
            }
        }
        return cells.map { row in
            var line = ""
            for (index, cell) in row.enumerated() {
                if index > 0 { line += separator }
                let padding = String(repeating: " ", count: widths[index] - cell.width)
                switch columns[index].alignment {
                case .left: line += cell.text + padding
                case .right: line += padding + cell.text
                }
            }
            return Self.trimmingTrailingSpaces(line)
        }.joined(separator: "\n")
    }

    struct Cell {
        var text: String
        var width: Int
    }

    func fit(_ raw: String, to maximumWidth: Int?) -> Cell {
        let text = Self.sanitized(raw)
        let width = DisplayWidth.of(text)
        guard let maximumWidth, width > maximumWidth else { return Cell(text: text, width: width) }
        return Self.truncated(text, to: maximumWidth)
    }

    /// Cuts `text` to at most `maximumWidth` columns, whole grapheme clusters only, with
    /// "…" in the last column.
    static func truncated(_ text: String, to maximumWidth: Int) -> Cell {
        guard maximumWidth > 0 else { return Cell(text: "", width: 0) }
        let ellipsis = "…"
        var kept = ""
        var width = 0
        for character in text {
            let characterWidth = DisplayWidth.of(character)
            if width + characterWidth + 1 > maximumWidth { break }
            kept.append(character)
            width += characterWidth
        }
        return Cell(text: kept + ellipsis, width: width + 1)
    }

    package static func sanitized(_ text: String) -> String {
        // Printable ASCII holds no control character: no scalar's properties to look up.
        if DisplayWidth.printableASCIIWidth(text) != nil { return text }
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(isControl(scalar) ? " " : scalar)
        }
        return String(scalars)
    }

    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control
            || scalar.value == 0x2028 || scalar.value == 0x2029
    }

    static func trimmingTrailingSpaces(_ line: String) -> String {
        var end = line.endIndex
        while end > line.startIndex, line[line.index(before: end)] == " " {
            end = line.index(before: end)
        }
        return String(line[..<end])
    }
}
