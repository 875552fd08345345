import Foundation
import SQLiteDB
import TestSupport
import Vacations

/// `--scale`'s `toggle ID`: one photo unvisited and visited again, each a whole `vacation toggle
/// ID --feed FEED` process (the feed a page holding only that photo, as the feed `toggle` reads
/// to visit), beside the same two changes made by the `sqlite3` shell with hand-written SQL on a
/// copy of the store. The store's own triggers keep the search index on both sides; the shell
/// writes no persistent history and no undo record, which `vacation toggle` does (two of each
/// per pair), so the ratio leans the shell's way.
extension BenchRunner {
    func measureScaleToggle(vacation: String, library: String, shellPath: String, store: String,
                            generator: FlickrFeedGenerator) throws {
        let photos = generator.photos
        let index = photos / 2 + 1
        let feed = path("scale-toggle.xml")
        try generator.writeXML(to: feed, indices: index..<(index + 1))
        guard let draft = try FeedImporter.drafts(ids: [generator.id(index)], in: .file(feed), rules: DraftRules()).first else {
            throw BenchError("scale toggle: the one-photo feed lacks photo \(generator.id(index))")
        }
        let copy = path("scale-shell-toggle.sqlite").path
        Self.removeStore(copy)
        _ = try runProcess(shellPath, [store, ".backup '\(copy)'"])
        defer { Self.removeStore(copy) }
        let entities = try runProcess(shellPath, ["-readonly", copy, "SELECT group_concat(Z_NAME || '=' || Z_ENT, ' ') FROM "
                                                  + "(SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Photo', 'Place', 'Tag') ORDER BY Z_NAME)"])
        guard entities.trimmingCharacters(in: .whitespacesAndNewlines) == "Photo=2 Place=3 Tag=4" else {
            throw BenchError("scale toggle: the store's entities are not the vacations model's (\(entities))")
        }
        let scripts = ScaleToggleScripts(draft: draft)
        let arguments = ["--library", library, "--vacation", "big", "--json", "toggle", draft.id, "--feed", feed.path]
        let times = try alternate("scale toggle ID", runs: options.runs, { side, round in
            progress("scale toggle ID round \(round) of \(options.runs) (\(round == 0 ? "warm-up, " : "")\(side == .ours ? "vacation" : "sqlite3"))")
            var outcomes: [String] = []
            let pair = try timedChild {
                if side == .ours {
                    for _ in 0..<2 {
                        let output = try runProcess(vacation, arguments)
                        let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any]
                        outcomes.append(object?["outcome"] as? String ?? output)
                    }
                } else {
                    _ = try runProcess(shellPath, [copy, scripts.unvisit])
                    _ = try runProcess(shellPath, [copy, scripts.visit])
                    outcomes = ["unvisited", "visited"]
                }
            }
            guard outcomes == ["unvisited", "visited"] else {
                throw BenchError("scale toggle: vacation toggled \(outcomes.joined(separator: ", ")), not unvisited then visited")
            }
            // A figure per toggle: the pair's mean.
            lastCPUMilliseconds /= 2
            return pair / 2
        }, afterRound: { _ in
            let ours = try runProcess(shellPath, ["-readonly", store, scripts.summary])
            let shell = try runProcess(shellPath, ["-readonly", copy, scripts.summary])
            guard ours == shell else {
                throw BenchError("scale toggle: the stores differ after a round: vacation \(ours.prefix(300)), sqlite3 \(shell.prefix(300))")
            }
        })
        try? FileManager.default.removeItem(at: feed)
        record("scale toggle ID", times, goal: "< 100 ms, ≤ 2.0×", photos: photos) { figure in
            guard case let .time(ours, _) = figure.kind else { return false }
            return ours < 100 && figure.ratio <= 2.0
        }
    }
}

/// The `sqlite3` shell's side of a toggle: what `vacation unvisit` and `visit` do to the rows,
/// as a person would script it with the photo's values written in, each script one
/// transaction, at the synchronous level the framework writes with.
struct ScaleToggleScripts {
    let unvisit: String
    let visit: String
    /// Counts and the photo's own values, compared between the two stores after every round.
    let summary: String

    init(draft: PhotoDraft) {
        let photo = Self.literal(draft.id)
        let ofPhoto = "(SELECT Z_PK FROM ZPHOTO WHERE ZUNIQUE = \(photo))"
        let itsTags = "(SELECT Z_4TAGS FROM Z_2TAGS WHERE Z_2PHOTOS = \(ofPhoto))"
        let others = "FROM ZPHOTO p WHERE p.ZPLACE = ZPLACE.Z_PK AND p.ZUNIQUE <> \(photo)"
        let itsPlace = "(SELECT ZPLACE FROM ZPHOTO WHERE ZUNIQUE = \(photo))"
        unvisit = """
            PRAGMA synchronous = NORMAL;
            BEGIN IMMEDIATE;
            UPDATE ZPLACE SET ZFIRSTVISITED = (SELECT min(coalesce(p.ZDATETAKEN, p.ZVISITED)) \(others)), Z_OPT = Z_OPT + 1
              WHERE Z_PK = \(itsPlace) AND EXISTS (SELECT 1 \(others));
            DELETE FROM ZPLACE WHERE Z_PK = \(itsPlace) AND NOT EXISTS (SELECT 1 \(others));
            DELETE FROM ZTAG WHERE ZCOUNT <= 1 AND Z_PK IN \(itsTags);
            UPDATE ZTAG SET ZCOUNT = ZCOUNT - 1, Z_OPT = Z_OPT + 1 WHERE Z_PK IN \(itsTags);
            DELETE FROM Z_2TAGS WHERE Z_2PHOTOS = \(ofPhoto);
            DELETE FROM ZPHOTO WHERE ZUNIQUE = \(photo);
            COMMIT;
            """
        // Core Data's dates are seconds since 2001-01-01 UTC (Julian day 2451910.5).
        let now = "((julianday('now') - 2451910.5) * 86400.0)"
        let moment = draft.dateTaken.map { Self.literal($0.timeIntervalSinceReferenceDate) } ?? now
        var lines = ["PRAGMA synchronous = NORMAL;", "BEGIN IMMEDIATE;"]
        var placeKey = "NULL"
        if let name = draft.placeName {
            let place = Self.literal(name)
            let placeID = Self.literal(draft.placeID)
            let absent = "NOT EXISTS (SELECT 1 FROM ZPLACE WHERE ZNAME = \(place))"
            lines += [
                "UPDATE ZPLACE SET ZFIRSTVISITED = CASE WHEN ZFIRSTVISITED IS NULL OR \(moment) < ZFIRSTVISITED THEN \(moment) "
                    + "ELSE ZFIRSTVISITED END, ZPLACEID = coalesce(ZPLACEID, \(placeID)), Z_OPT = Z_OPT + 1 WHERE ZNAME = \(place);",
                "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 3 AND \(absent);",
                "INSERT INTO ZPLACE (Z_PK, Z_ENT, Z_OPT, ZFIRSTVISITED, ZNAME, ZPLACEID) SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 3), "
                    + "3, 1, \(moment), \(place), \(placeID) WHERE \(absent);",
            ]
            placeKey = "(SELECT Z_PK FROM ZPLACE WHERE ZNAME = \(place))"
        }
        let values = [Self.literal(draft.dateTaken?.timeIntervalSinceReferenceDate), Self.literal(draft.dateUploaded?.timeIntervalSinceReferenceDate),
                      Self.literal(draft.latitude), Self.literal(draft.longitude), Self.literal(draft.imageURL), Self.literal(draft.media),
                      Self.literal(draft.owner), Self.literal(draft.subtitle), Self.literal(draft.thumbnailURL), Self.literal(draft.title)]
        lines += [
            "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 2;",
            "INSERT INTO ZPHOTO (Z_PK, Z_ENT, Z_OPT, \(BaselineImporter.photoColumns), ZVISITED, ZUNIQUE) VALUES ("
                + "(SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 2), 2, 1, \(placeKey), \(values.joined(separator: ", ")), \(now), \(photo));",
        ]
        let names = draft.tags.map(Self.literal).joined(separator: ", ")
        if !draft.tags.isEmpty {
            lines.append("UPDATE ZTAG SET ZCOUNT = ZCOUNT + 1, Z_OPT = Z_OPT + 1 WHERE ZNAME IN (\(names));")
            for name in draft.tags.map(Self.literal) {
                let absent = "NOT EXISTS (SELECT 1 FROM ZTAG WHERE ZNAME = \(name))"
                lines += [
                    "UPDATE Z_PRIMARYKEY SET Z_MAX = Z_MAX + 1 WHERE Z_ENT = 4 AND \(absent);",
                    "INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZCOUNT, ZNAME) SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = 4), 4, 1, 1, \(name) "
                        + "WHERE \(absent);",
                ]
            }
            lines.append("INSERT INTO Z_2TAGS (Z_2PHOTOS, Z_4TAGS) SELECT \(ofPhoto), Z_PK FROM ZTAG WHERE ZNAME IN (\(names));")
        }
        lines.append("COMMIT;")
        visit = lines.joined(separator: "\n")
        summary = """
            SELECT (SELECT count(*) FROM ZPHOTO), (SELECT count(*) FROM ZTAG), (SELECT count(*) FROM Z_2TAGS),
              (SELECT count(*) FROM ZPLACE), (SELECT total(ZCOUNT) FROM ZTAG),
              (SELECT (SELECT group_concat(ZNAME, ' ') FROM (SELECT t.ZNAME FROM Z_2TAGS j JOIN ZTAG t ON t.Z_PK = j.Z_4TAGS
                  WHERE j.Z_2PHOTOS = p.Z_PK ORDER BY t.ZNAME)) || ' | ' || quote(p.ZTITLE) || ' | ' || quote(p.ZDATETAKEN) || ' | '
                  || quote(pl.ZNAME) || ' | ' || quote(pl.ZFIRSTVISITED) || ' | ' || quote(pl.ZPLACEID)
                FROM ZPHOTO p LEFT JOIN ZPLACE pl ON pl.Z_PK = p.ZPLACE WHERE p.ZUNIQUE = \(photo));
            """
    }

    /// An SQL literal (`SQLiteValue`'s text): text quoted with its quotes doubled, NULL for nothing.
    static func literal(_ text: String?) -> String { (text.map(SQLiteValue.text) ?? .null).description }

    /// A real as SQL text that reads back to the same bits (Swift prints the shortest such).
    static func literal(_ value: Double?) -> String { (value.map(SQLiteValue.real) ?? .null).description }
}
