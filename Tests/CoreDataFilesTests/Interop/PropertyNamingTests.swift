@testable import CoreDataFiles
@testable import ObjectGraph
import Testing

@Suite("Column names become property names: camel case where entity names spell them")
struct PropertyNamingTests {
    static let naming = PropertyNaming(entityNames: [
        "Account", "AccountGroup", "Activity", "BucketTransfer", "InvestmentSecurityId", "RecurrenceRule", "TICDSSyncChange", "Tag",
    ])

    @Test("each column base gets its name, which capitalises back to it", arguments: [
        ("ACCOUNT", "account"),
        ("ACCOUNT2", "account2"),
        ("ACCOUNTGROUP", "accountGroup"),
        ("TRANSFERACCOUNT", "transferAccount"),
        ("FILLRECURRENCERULE", "fillRecurrenceRule"),
        ("INVESTMENTSECURITYID", "investmentSecurityId"),
        ("BUCKETTRANSFERS", "bucketTransfers"),
        ("ACTIVITIES", "activities"),
        ("TICDSSYNCID", "ticdsSyncID"),  // Cocoa spells the acronyms ID, URL, UUID in capitals at a name's end
        ("TICDSSYNCCHANGE", "ticdsSyncChange"),
        ("DATEYMD", "dateymd"),
        ("ISHIDDEN", "ishidden"),
        ("TAGS", "tags"),
        ("STAGE", "stage"),
        ("ACCOUNTSTAGS", "accountsTags"),  // a plural stands before another known word
        ("ACCOUNTSTATE", "accountState"),  // … but not before an unknown one: the S may begin it
        ("X", "x"),
        ("123", "123"),
        ("NAMÉ", "NAMÉ"),
    ])
    func names(base: String, expected: String) {
        let name = Self.naming.propertyName(forColumnBase: base)
        #expect(name == expected)
        #expect(name.uppercased() == base)
    }

    @Test("entity names split into words at case changes and acronyms")
    func words() {
        #expect(PropertyNaming.splitWords("TICDSSyncChange") == ["TICDS", "Sync", "Change"])
        #expect(PropertyNaming.splitWords("InvestmentSecurityId") == ["Investment", "Security", "Id"])
        #expect(PropertyNaming.splitWords("URL2Thing") == ["URL2", "Thing"])
        #expect(PropertyNaming.lowercasingFirstWord("TICDSSyncChange") == "ticdsSyncChange")
        #expect(PropertyNaming.lowercasingFirstWord("URL") == "url")
        #expect(PropertyNaming.lowercasingFirstWord("Account") == "account")
    }
}
