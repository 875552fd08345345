import CoreDataFiles
import Foundation
import ObjectGraph

/// The model target's check: bytes read as a compiled model (a `.mom`) or, when they do not
/// start like a binary property list, as the raw DEFLATE content of a store's `Z_MODELCACHE`.
/// Either read gives a model the reader has validated, or an `XCDataModelError` whose description
/// is one line: never a crash, a hang or another kind of error. Reading twice gives the same
/// answer; a model that reads has version hashes and builds the object graph's model, or says
/// why not with a `ModelError` or `XCDataModelError`.
enum ModelChecks {
    enum Outcome: Equatable {
        case model(XCDataModelFile)
        case refused(String)
    }

    static func check(_ data: Data) throws(FuzzFinding) {
        let isArchive = data.starts(with: Array("bplist".utf8))
        let first = try outcome(of: data, asCache: !isArchive)
        let second = try outcome(of: data, asCache: !isArchive)
        guard first == second else {
            throw FuzzFinding(.model, "reading the same bytes twice gave \(first) and then \(second)")
        }
        guard case .model(let model) = first else { return }
        do {
            _ = try CoreDataVersionHash.entityHashes(in: model)
            _ = try ObjectModel(file: model)
        } catch let error as XCDataModelError {
            try checkOneLine(error.description, "an XCDataModelError from a model that read")
        } catch let error as ModelError {
            try checkOneLine(error.description, "a ModelError from a model that read")
        } catch {
            throw FuzzFinding(.model, "a model that read failed to build with \(type(of: error)): \(error)")
        }
    }

    private static func outcome(of data: Data, asCache: Bool) throws(FuzzFinding) -> Outcome {
        do {
            return .model(asCache ? try StoreModelCache.decode(data) : try CompiledModelReader.decode(data))
        } catch let error as XCDataModelError {
            try checkOneLine(error.description, "an XCDataModelError")
            return .refused(error.description)
        } catch {
            throw FuzzFinding(.model, "the reader threw something other than an XCDataModelError: \(type(of: error)) \(error)")
        }
    }

    private static func checkOneLine(_ text: String, _ what: String) throws(FuzzFinding) {
        guard !text.isEmpty, !text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw FuzzFinding(.model, "\(what)'s description must be one non-empty line: \(text.debugDescription)")
        }
    }
}
