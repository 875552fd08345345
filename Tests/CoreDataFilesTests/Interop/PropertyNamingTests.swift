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
        ("TICDSSYNCID", "ticdsSyncId"),  // an acronym ends a name, spelled as the store spells it (InvestmentSecurityId)
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

    @Test("without the store's own spelling, Cocoa's: ID, URL, UUID in capitals at the end of a name")
    func acronyms() {
        let naming = PropertyNaming(entityNames: ["Book", "Post"], extraWords: ["Count"])
        #expect(naming.propertyName(forColumnBase: "BOOKID") == "bookID")
        #expect(naming.propertyName(forColumnBase: "UNIQUEID") == "uniqueID")
        #expect(naming.propertyName(forColumnBase: "SITEURL") == "siteURL")
        #expect(naming.propertyName(forColumnBase: "POSTUUIDS") == "postUUIDs")
        #expect(naming.propertyName(forColumnBase: "ID") == "id")
        #expect(naming.propertyName(forColumnBase: "PAID") == "paid")  // no unknown run shorter than three letters
        #expect(naming.propertyName(forColumnBase: "PAGESCOUNT") == "pagesCount")
        #expect(naming.propertyName(forColumnBase: "BOOKSCOUNT") == "booksCount")
    }

    @Test("a flag's IS and HAS begin its name; a flag is no identifier; a timestamp's …EDAT is a participle and At")
    func hints() {
        let naming = PropertyNaming(entityNames: ["Book", "Page"])
        #expect(naming.propertyName(forColumnBase: "ISBOOKMARKED", hint: .boolean) == "isBookMarked")
        #expect(naming.propertyName(forColumnBase: "ISVALID", hint: .boolean) == "isValid")
        #expect(naming.propertyName(forColumnBase: "VALID", hint: .boolean) == "valid")
        #expect(naming.propertyName(forColumnBase: "VALID") == "valID")  // without the flag's evidence, an identifier
        #expect(naming.propertyName(forColumnBase: "HASPAGES", hint: .boolean) == "hasPages")
        #expect(naming.propertyName(forColumnBase: "ISLAND") == "island")
        #expect(naming.propertyName(forColumnBase: "UPDATEDAT", hint: .timestamp) == "updatedAt")
        #expect(naming.propertyName(forColumnBase: "PUBLISHEDAT", hint: .timestamp) == "publishedAt")
        #expect(naming.propertyName(forColumnBase: "FORMAT", hint: .timestamp) == "format")
        #expect(naming.propertyName(forColumnBase: "UPDATEDAT") == "updatedat")
    }

    @Test("the store's other columns are words for spelling a column, never its own name")
    func columnWords() {
        let naming = PropertyNaming(entityNames: ["Transaction"], columnWords: ["AMOUNT", "MEMO", "SALEAMOUNT"])
        #expect(naming.propertyName(forColumnBase: "SALEAMOUNT") == "saleAmount")
        #expect(naming.propertyName(forColumnBase: "AMOUNTSTRING") == "amountString")
        #expect(naming.propertyName(forColumnBase: "ORIGINALMEMO") == "originalMemo")
        #expect(naming.propertyName(forColumnBase: "AMOUNT") == "amount")
        // A plural before an unknown word stays ambiguous (MEMOS+COUNT or MEMO+SCOUNT): the S stays with the unknown run…
        #expect(naming.propertyName(forColumnBase: "MEMOSCOUNT") == "memoScount")
        // … until the store shows COUNT as a name of its own.
        let counted = PropertyNaming(entityNames: ["Transaction"], columnWords: ["MEMO", "COUNT"])
        #expect(counted.propertyName(forColumnBase: "MEMOSCOUNT") == "memosCount")
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
