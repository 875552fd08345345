import Foundation

/// The domain's rules for one register write from a change file (untrusted input): what it
/// names must be able to exist, and its value must be one the vacation could hold, spelled
/// canonically. An album's predicate is checked against the vacation when the file is applied.
package enum SyncValidation {
    /// A device id: a UUID in lower case.
    package static func isDeviceID(_ text: String) -> Bool {
        guard text.utf8.count == 36, let uuid = UUID(uuidString: text) else { return false }
        return uuid.uuidString.lowercased() == text
    }

    /// Why `write` cannot be applied, or nil when it can.
    package static func problem(with write: SyncWrite) -> String? {
        let register = write.register
        let value = write.value
        let what = "\(register.entity.rawValue) '\(register.key)'"
        guard isDeviceID(write.clock.device) else { return "its device '\(write.clock.device)' is not a device id" }
        guard (1...ChangeFile.largestCounter).contains(write.clock.counter) else {
            return "its counter \(write.clock.counter) is out of range"
        }
        guard SyncFields.fields(of: register.entity).contains(register.field) else {
            return "\(what) has no field '\(register.field)'"
        }
        switch register.entity {
        case .photo:
            guard FlickrNames.canonicalID(register.key) == register.key else { return "'\(register.key)' is not a Flickr photo id" }
        case .place:
            guard isPlaceName(register.key) else { return "'\(register.key)' is not a place name" }
        case .album:
            guard (try? VacationAlbums.checkedName(register.key)) == register.key else {
                // Why `try?`: any reason the name is refused is the same refusal here.
                return "'\(register.key)' is not an album name"
            }
        }
        switch (register.entity, register.field) {
        case (.photo, SyncFields.present), (.album, SyncFields.present):
            guard value == SyncValues.yes || value == SyncValues.no else { return "\(what)'s present must be true or false" }
        case (.photo, SyncFields.tags):
            guard let value else { return "\(what)'s tags cannot be null" }
            let names = SyncValues.tags(value)
            guard SyncValues.text(tags: Set(names)) == value, names.allSatisfy(isTagName) else {
                return "\(what)'s tags '\(value)' are not tag names, sorted, each once"
            }
        case (.photo, SyncFields.place):
            if let value, !isPlaceName(value) { return "\(what)'s place '\(value)' is not a place name" }
        case (.photo, "latitude"), (.photo, "longitude"):
            guard let value else { break }
            let limit = register.field == "latitude" ? 90.0 : 180.0
            guard SyncValues.isCanonicalNumber(value), let number = Double(value), abs(number) <= limit else {
                return "\(what)'s \(register.field) '\(value)' is not a number from -\(Int(limit)) to \(Int(limit))"
            }
        case (.photo, _) where SyncFields.photoDates.contains(register.field), (.album, SyncFields.created):
            if let value, !SyncValues.isCanonicalNumber(value) { return "\(what)'s \(register.field) '\(value)' is not a date" }
        case (.album, SyncFields.predicate):
            if value == nil { return "\(what)'s predicate cannot be null" }
        default:
            break
        }
        return nil
    }

    /// A tag name as the importer makes them: one folded token, no machine tag, NFC.
    package static func isTagName(_ name: String) -> Bool {
        FlickrNames.tags([name]) == [name] && FlickrNames.composed(name) == name
    }

    /// A place name as the importer makes them: trimmed, inner whitespace one space, NFC.
    package static func isPlaceName(_ name: String) -> Bool {
        FlickrNames.placeName(name).map(FlickrNames.composed) == name
    }
}
