import CommandLineKit

// docstore writes JSON with the vacation CLI's ordered writer; these keep its own number style.
extension JSONValue {
    /// A floating-point number as Swift prints it (`1.0`, `0.1`); null when not finite.
    static func double(_ value: Double) -> JSONValue {
        value.isFinite ? .decimal("\(value)") : .null
    }

    /// A string (a function value, where `.string` would be ambiguous).
    static func text(_ value: String) -> JSONValue { .string(value) }

    /// Pretty-printed, continuing a line indented by `indent` levels.
    func rendered(indent: Int) -> String {
        var text = ""
        write(to: &text, indent: indent)
        return text
    }
}
