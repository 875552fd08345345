import CSQLite

/// One traced statement execution.
public struct TraceEvent: Sendable, Equatable {
    /// The SQL as prepared, with `?` placeholders.
    package var sql: String
    /// The SQL with bound values substituted (what ran).
    package var expandedSQL: String
}

final class TraceBox {
    let handler: (TraceEvent) -> Void
    init(handler: @escaping (TraceEvent) -> Void) { self.handler = handler }
}

extension Connection {
    /// Calls `handler` for every statement this connection starts; nil turns tracing off.
    ///
    /// ```swift
    /// var seen: [String] = []
    /// connection.trace { seen.append($0.sql) }
    /// ```
    package func trace(_ handler: ((TraceEvent) -> Void)?) {
        guard let handler else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            traceBox = nil
            return
        }
        let box = TraceBox(handler: handler)
        traceBox = box
        sqlite3_trace_v2(handle, UInt32(SQLITE_TRACE_STMT), { _, context, statement, _ in
            guard let context, let statement else { return 0 }
            let box = Unmanaged<TraceBox>.fromOpaque(context).takeUnretainedValue()
            let pointer = OpaquePointer(statement)
            let sql = sqlite3_sql(pointer).map { String(cString: $0) } ?? ""
            var expanded = sql
            if let raw = sqlite3_expanded_sql(pointer) {
                expanded = String(cString: raw)
                sqlite3_free(raw)
            }
            box.handler(TraceEvent(sql: sql, expandedSQL: expanded))
            return 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}
