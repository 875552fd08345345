// swift-tools-version: 6.2
// 6.2: from this tools version on, SwiftPM lets another package depend on these products by
// version although their targets take unsafe flags (`metadataAccessors`, `vacation`'s link);
// under 6.0 only a path or branch dependency could.
import PackageDescription

// A static archive's member is linked only when a symbol of it is used, and Foundation's bridging
// conformances (what `as AnyObject` and property lists need) go with their members: one left out
// turns a Swift value into an opaque box that PropertyListSerialization refuses ("Not A Type").
// These are the bridging conformances no code of `vacation` pulls in by itself; with them the
// binary has every one libFoundation.a defines (ARCHITECTURE.md §6).
let foundationBridging = [
    "$s20FoundationEssentials12DateIntervalVs21_ObjectiveCBridgeable0A0Mc",
    "$s20FoundationEssentials12URLQueryItemVs21_ObjectiveCBridgeable0A0Mc",
    "$s20FoundationEssentials13URLComponentsVs21_ObjectiveCBridgeable0A0Mc",
    "$s20FoundationEssentials14DateComponentsVs21_ObjectiveCBridgeable0A0Mc",
    "$s20FoundationEssentials7DecimalVs21_ObjectiveCBridgeable0A0Mc",
    "$s20FoundationEssentials9IndexPathVs21_ObjectiveCBridgeable0A0Mc",
    "$sShyxGs21_ObjectiveCBridgeable10FoundationMc",
].flatMap { ["-Xlinker", "--undefined=" + $0] }

// Generic types' metadata reached through accessor functions that pass the conformances they
// need, instead of by mangled name: the runtime's decoder of a mangled name checks the generic
// requirements again, and each first "does String conform to Hashable" of a process scans every
// conformance record of the binary (5,738 in `vacation`). `show` 25.4 M → 18.6 M instructions
// (README "Performance"). Every target in `vacation`'s link takes it. An unsafe flag: a package
// that depends on these libraries by version needs SwiftPM 6.2 or later (see the tools version).
let metadataAccessors: [SwiftSetting] = [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]

// Sanitizer builds (Scripts/sanitizers.sh sets VACATIONS_SANITIZER_BUILD) link `vacation` like
// any other executable: under ThreadSanitizer the statically linked Foundation frees memory the
// sanitizer's allocator never handed out, and its runtime stops the process at start
// (sanitizer_allocator_secondary.h CHECK, in `ProcessInfo.environment`).
let sanitizerBuild = Context.environment["VACATIONS_SANITIZER_BUILD"] != nil
// Linking/vacation.order lists the functions everyday commands run (Scripts/symbol-order.py
// writes it from callgrind), which the linker places side by side: a `show` touches fewer pages of
// code, each a page fault (124 → 75 of its 528). Names it no longer finds are skipped.
// StaticLibraries/ holds links to Debian's libsqlite3.a and libstdc++.a, and nothing else: a
// search path the linker tries before its own directories, so that `-lsqlite3` (the module map's)
// and `-lstdc++` (the toolchain's static-stdlib-args.lnk) find the archives rather than the shared
// libraries, and `vacation` loads neither at start (with libgcc_eh, the unwinder, not libgcc_s).
// The toolchain's `--exclude-libs ALL` keeps their symbols out of the binary's dynamic table.
// A link that dangles (another GCC or Debian release) is skipped by the linker: the shared
// library is linked then, as before.
let staticLibraries = Context.packageDirectory + "/StaticLibraries"
let staticVacationCompile: [SwiftSetting] = sanitizerBuild ? []
    : [.unsafeFlags(["-static-stdlib", "-Xfrontend", "-disable-autolink-library", "-Xfrontend", "curl"], .when(platforms: [.linux]))]
let staticVacationLink: [LinkerSetting] = sanitizerBuild ? []
    : [.unsafeFlags(["-static-stdlib", "-use-ld=lld", "-Xlinker", "-no-pie", "-L", staticLibraries, "-Xlinker", "-lgcc_eh",
                     "-Xlinker", "--symbol-ordering-file=" + Context.packageDirectory + "/Linking/vacation.order",
                     "-Xlinker", "--no-warn-symbol-ordering"] + foundationBridging,
                    .when(platforms: [.linux]))]

let package = Package(
    name: "Vacations",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SQLiteDB", targets: ["SQLiteDB"]),
        .library(name: "ObjectGraph", targets: ["ObjectGraph"]),
        .library(name: "CoreDataFiles", targets: ["CoreDataFiles"]),
        .library(name: "Documents", targets: ["Documents"]),
        .library(name: "Vacations", targets: ["Vacations"]),
        .library(name: "CommandLineKit", targets: ["CommandLineKit"]),
        .library(name: "VacationCLI", targets: ["VacationCLI"]),
        .executable(name: "vacation", targets: ["vacation"]),
        .library(name: "DocStoreCLI", targets: ["DocStoreCLI"]),
        .executable(name: "docstore", targets: ["docstore"]),
    ],
    targets: [
        // No pkg-config: its `-L/usr/lib/x86_64-linux-gnu` would come before the search path by
        // which `vacation` links SQLite statically (see `staticVacationLink`); sqlite3.h is in
        // /usr/include, the module map links libsqlite3.
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        // libxml2 (Debian's headers, through the `include/libxml` link) loaded on first use by
        // XMLLoader.c, not linked: only XML feeds and model files need it.
        .target(name: "CLibXML2", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .target(name: "SQLiteDB", dependencies: ["CSQLite", "Locking"], swiftSettings: metadataAccessors),
        // Locked<Value>: shared state behind a pthread mutex, which ThreadSanitizer models (it does not model Mutex).
        .target(name: "Locking", swiftSettings: metadataAccessors),
        // ISO 8601 text for Core Data's timestamps, proleptic Gregorian (the CLIs' JSON and the exports).
        .target(name: "Timestamps", swiftSettings: metadataAccessors),
        // Thread-local storage for ObjectGraph's property-wrapper ordinals (C has it; Swift doesn't).
        .target(name: "CObjectGraphSupport"),
        .target(name: "ObjectGraph", dependencies: ["SQLiteDB", "CObjectGraphSupport", "Locking"], swiftSettings: metadataAccessors),
        // Core Data's file formats beside the core: model files (.xcdatamodel(d), read with
        // libxml2), models and summaries inferred from stores.
        .target(name: "CoreDataFiles", dependencies: ["ObjectGraph", "SQLiteDB", "CLibXML2"]),
        .target(name: "Documents", dependencies: ["ObjectGraph", "SQLiteDB", "Locking"], swiftSettings: metadataAccessors),
        .target(name: "Vacations", dependencies: ["Documents", "ObjectGraph", "SQLiteDB", "CLibXML2", "Timestamps"], swiftSettings: metadataAccessors),
        // What both command-line tools stand on, knowing nothing of vacations or stores: parsing,
        // help, usage errors, exit codes, JSON, tables, display width, terminal and progress.
        .target(name: "CommandLineKit", dependencies: ["Locking", "Timestamps"], swiftSettings: metadataAccessors),
        .target(name: "VacationCLI", dependencies: ["CommandLineKit", "Vacations", "Documents", "ObjectGraph", "SQLiteDB"],
                swiftSettings: metadataAccessors),
        // `vacation` links the Swift runtime and Foundation statically, so that the loader binds
        // no Swift library at each start; main.swift, compiled against the static modules, names
        // the archives Foundation needs. It leaves libcurl out of the link (FoundationNetworking's
        // calls go to CCurlLoader, which loads it when fetch first needs it): `show` 75 M → 26 M
        // instructions (README "Performance"). No test target depends on `vacation` (tests run it
        // as a process): a test binary takes an executable dependency's linker flags, and Testing
        // has no static library. `docstore` stays dynamic: statically linked, its `migrate` lost
        // Array's bridging conformance (see `foundationBridging`), and its start matters less.
        // Linked as a position-dependent executable (`-no-pie`): as a PIE the loader applied
        // 82,000 relative relocations at every start, copying 200 pages of the binary's data on
        // write (about 0.5 ms of CPU of a 4 ms `--version`); the libraries it loads are still
        // placed at random (ARCHITECTURE.md §6).
        .target(name: "CCurlLoader", linkerSettings: [.linkedLibrary("dl", .when(platforms: [.linux]))]),
        .executableTarget(name: "vacation", dependencies: ["VacationCLI", "CommandLineKit", "CCurlLoader"],
                          swiftSettings: staticVacationCompile, linkerSettings: staticVacationLink),
        // Programs that tests run as separate processes (locks, signals, concurrent writers).
        .executableTarget(name: "vacations-test-helper", dependencies: ["Vacations", "Documents", "ObjectGraph", "SQLiteDB", "TestSupport"]),
        // A VFS that fails the Nth I/O call (SQLite's I/O-error tests); only test code links it.
        .target(name: "SQLiteFaultVFS", dependencies: ["CSQLite"]),
        .target(name: "TestSupport", dependencies: ["SQLiteDB", "Locking", "SQLiteFaultVFS"]),
        // The object graph's test model, shared by its tests and the Core Data files' tests.
        .target(name: "ObjectGraphTestModels", dependencies: ["ObjectGraph", "SQLiteDB", "TestSupport"]),
        // The framework against a raw-SQLite baseline: swift run -c release vacation-bench
        .executableTarget(name: "vacation-bench",
                          dependencies: ["Vacations", "Documents", "ObjectGraph", "SQLiteDB", "CSQLite", "CLibXML2", "TestSupport"]),
        .testTarget(name: "SQLiteDBTests", dependencies: ["SQLiteDB", "TestSupport"]),
        .testTarget(name: "LockingTests", dependencies: ["Locking"]),
        .testTarget(name: "TimestampsTests", dependencies: ["Timestamps"]),
        .testTarget(name: "ObjectGraphTests", dependencies: ["ObjectGraph", "ObjectGraphTestModels", "SQLiteDB", "TestSupport", "vacations-test-helper"]),
        .testTarget(name: "CoreDataFilesTests", dependencies: ["CoreDataFiles", "ObjectGraph", "ObjectGraphTestModels", "SQLiteDB", "TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "DocumentsTests", dependencies: ["Documents", "ObjectGraph", "SQLiteDB", "TestSupport", "vacations-test-helper", "Locking"]),
        .testTarget(name: "VacationsTests", dependencies: ["Vacations", "Documents", "ObjectGraph", "SQLiteDB", "TestSupport"],
                    resources: [.copy("Fixtures")]),
        .testTarget(name: "CommandLineKitTests", dependencies: ["CommandLineKit", "TestSupport"]),
        .testTarget(name: "VacationCLITests", dependencies: ["VacationCLI", "CommandLineKit", "Vacations", "Documents", "ObjectGraph", "SQLiteDB", "TestSupport"]),
        // Core Data stores and documents from the command line (docstore).
        .target(name: "DocStoreCLI", dependencies: ["CommandLineKit", "CoreDataFiles", "ObjectGraph", "SQLiteDB", "Timestamps"]),
        .executableTarget(name: "docstore", dependencies: ["DocStoreCLI", "CommandLineKit"]),
        .testTarget(name: "DocStoreCLITests", dependencies: ["DocStoreCLI", "CommandLineKit", "CoreDataFiles", "ObjectGraph", "SQLiteDB", "TestSupport"],
                    exclude: ["Scripts"]),
        // Reliability: what each fuzz target checks (shared with the regression tests), the libFuzzer
        // entry points (built with Scripts/fuzz.sh; in a normal build they link and do nothing), and
        // crash, concurrency and hostile-input tests through the real binaries.
        .target(name: "FuzzChecks", dependencies: ["Vacations", "VacationCLI", "CommandLineKit", "ObjectGraph", "CoreDataFiles"]),
        .executableTarget(name: "fuzz-xml", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "fuzz-json", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "fuzz-predicate", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "fuzz-arguments", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "fuzz-model", dependencies: ["FuzzChecks"]),
        .executableTarget(name: "fuzz-change", dependencies: ["FuzzChecks"]),
        .testTarget(name: "ReliabilityTests", dependencies: ["FuzzChecks", "CommandLineKit", "Vacations", "VacationCLI", "Documents", "ObjectGraph", "SQLiteDB", "TestSupport", "Locking",
                                                             "vacations-test-helper", "vacation-bench"]),
    ],
    swiftLanguageModes: [.v6]
)
