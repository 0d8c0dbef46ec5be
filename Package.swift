// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Mailroom",
    products: [
        .executable(name: "mailroom", targets: ["mailroom"]),
    ],
    targets: [
        // C behind one fence: only MailroomNet imports libevent.
        .systemLibrary(
            name: "CLibevent",
            pkgConfig: "libevent",
            providers: [.apt(["libevent-dev"])]
        ),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CGMime",
            pkgConfig: "gmime-3.0",
            providers: [.apt(["libgmime-3.0-dev"])]
        ),
        // OpenSSL's digests (SHA-256, HMAC); only Digests imports it.
        .systemLibrary(
            name: "CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        // zlib and Brotli (the compressed variants of static files) and zstd (raw mail on disk);
        // only Compression imports it.
        .systemLibrary(
            name: "CCompression",
            providers: [.apt(["zlib1g-dev", "libbrotli-dev", "libzstd-dev"])]
        ),
        // glibc's mallopt, for the server process's memory settings (mailroom's main.swift).
        .systemLibrary(name: "CMalloc"),
        // Linux's memfd_create, for answers sent with sendfile (MailroomNet's AnswerFile).
        .systemLibrary(name: "CLinux"),
        // Days and times of the Gregorian calendar in UTC, without libc: the one date helper.
        .target(name: "CivilDate"),
        // The model: pure Swift, no I/O.
        .target(name: "MailroomCore", dependencies: ["CivilDate"]),
        // A small HTML builder whose strings are escaped by construction.
        .target(name: "HTML"),
        // gzip and Brotli for static files, zstd frames and dictionaries for raw mail.
        .target(name: "Compression", dependencies: ["CCompression"]),
        // SHA-256 and HMAC-SHA256 through OpenSSL.
        .target(name: "Digests", dependencies: ["CCrypto"]),
        // HTTP values (requests, responses, forms, static files) with no sockets.
        .target(name: "HTTP", dependencies: ["CivilDate", "Compression"]),
        // MIME through GMime: raw message in, decoded headers, text, HTML and attachments out.
        .target(name: "MailroomMail", dependencies: ["CGMime", "Digests", "CivilDate"]),
        // SMTP sessions as values (commands, replies, limits, message text) with no sockets.
        .target(name: "SMTP"),
        // The network layer: libevent loops with the HTTP and SMTP connections on them, behind a
        // (Request) -> Response handler and a mail service. Imports the service for its metrics
        // and change feed.
        .target(name: "MailroomNet", dependencies: ["HTTP", "HTML", "SMTP", "MailroomService", "CivilDate", "CLibevent", "CLinux"]),
        // SQLite persistence (the only importer of CSQLite), raw mail kept zstd-compressed.
        .target(name: "MailroomStore", dependencies: ["MailroomCore", "CSQLite", "Compression", "Digests"]),
        // The application: mail intake, list commands, import, retention, the group commit, the
        // change feed and metrics, over the store. Knows no protocol: neither HTTP nor HTML.
        .target(name: "MailroomService", dependencies: ["MailroomCore", "MailroomStore", "MailroomMail", "Digests", "CivilDate"]),
        // Routes, forms and pages: a pure (Request) -> Response function over the service.
        .target(name: "MailroomWeb", dependencies: ["MailroomService", "MailroomCore", "MailroomStore", "MailroomMail", "HTML", "HTTP", "SMTP", "CivilDate"]),
        .executableTarget(
            name: "mailroom",
            dependencies: ["MailroomService", "MailroomWeb", "MailroomStore", "MailroomNet", "HTTP", "SMTP", "CivilDate", "CMalloc"]
        ),
        // `make bench`: figures for page rendering and durable saves, printed as a table.
        .executableTarget(name: "mailroom-bench", dependencies: ["MailroomWeb", "MailroomService", "MailroomStore", "MailroomCore", "HTTP"]),

        // What several test targets share: a seeded random generator.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CivilDateTests", dependencies: ["CivilDate"]),
        .testTarget(name: "MailroomCoreTests", dependencies: ["MailroomCore", "TestSupport"]),
        .testTarget(name: "HTMLTests", dependencies: ["HTML"]),
        .testTarget(name: "MailroomStoreTests", dependencies: ["MailroomStore", "MailroomCore", "Compression", "TestSupport"]),
        .testTarget(name: "HTTPTests", dependencies: ["HTTP", "Compression", "TestSupport"]),
        .testTarget(name: "SMTPTests", dependencies: ["SMTP", "TestSupport"]),
        .testTarget(name: "MailroomMailTests", dependencies: ["MailroomMail", "Digests", "TestSupport"]),
        .testTarget(name: "MailroomServiceTests", dependencies: ["MailroomService", "MailroomCore", "MailroomStore"]),
        .testTarget(name: "MailroomWebTests", dependencies: ["MailroomWeb", "MailroomService", "MailroomCore", "MailroomStore", "HTTP"]),
        .testTarget(
            name: "HostileRequestTests",
            dependencies: ["MailroomWeb", "MailroomCore", "MailroomNet", "HTTP"]
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["MailroomWeb", "MailroomService", "MailroomCore", "MailroomStore", "MailroomNet", "HTTP", "Digests", "TestSupport"]
        ),
    ],
    swiftLanguageModes: [.v6]
)
