import Glibc
import HTTPServer

/// The command line, parsed without Foundation.
struct Options {
    var server = ServerConfiguration(threads: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))))
    var publicFolder = "Public"
    var databasePath = "mailroom.sqlite"
    var allowedHosts: [String] = []
    var passwordFile: String?
    var samples = true
    var pageSize = 50
    var logRequests = true
    var showHelp = false

    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    static let help = """
        Mailroom: a shared inbox for the local network.

        Usage: mailroom [options]

          --host ADDRESS        address to listen on (default 127.0.0.1; 0.0.0.0 serves the LAN)
          --allowed-host NAME   also answer to this Host name (repeatable); others get 403
          --password-file PATH  require this file's first line as a password (or set MAILROOM_PASSWORD);
                                sessions last 7 days and end when Mailroom restarts
          --port N              port to listen on, 0 for any free port (default 8080)
          --threads N           event loops, one per core (default: the number of cores)
          --db PATH             SQLite database file, created if missing (default mailroom.sqlite)
          --public PATH         folder of static files such as style.css (default Public)
          --no-samples          a new database starts empty instead of with a few sample messages
          --page-size N         rows a list page shows, 10 to 500 (default 50)
          --quiet               do not print a log line per request
          --max-body BYTES      largest request body accepted (default 65536; more is 413)
          --max-url BYTES       longest request target accepted (default 32768; more is 414)
          --max-headers BYTES   largest set of header fields accepted (default 16384; more is 431)
          --max-header-count N  most header fields accepted (default 100; more is 431)
          --timeout SECONDS     idle or slow connections are closed after this (default 30)
          -h, --help            show this help
        """

    static func parse(_ arguments: [String]) throws(Problem) -> Options {
        var options = Options()
        var remaining = arguments[...]
        func value(for flag: String) throws(Problem) -> String {
            guard let value = remaining.popFirst() else { throw Problem(description: "\(flag) needs a value") }
            return value
        }
        func number(for flag: String, in range: ClosedRange<Int>) throws(Problem) -> Int {
            let text = try value(for: flag)
            guard let number = Int(text), range.contains(number) else {
                throw Problem(description: "\(flag) must be a number in \(range.lowerBound)...\(range.upperBound), not '\(text)'")
            }
            return number
        }
        while let flag = remaining.popFirst() {
            switch flag {
            case "--host": options.server.host = try value(for: flag)
            case "--allowed-host": options.allowedHosts.append(try value(for: flag))
            case "--password-file": options.passwordFile = try value(for: flag)
            case "--port": options.server.port = try number(for: flag, in: 0...65535)
            case "--threads": options.server.threads = try number(for: flag, in: 1...256)
            case "--public": options.publicFolder = try value(for: flag)
            case "--db": options.databasePath = try value(for: flag)
            case "--no-samples": options.samples = false
            case "--page-size": options.pageSize = try number(for: flag, in: 10...500)
            case "--quiet": options.logRequests = false
            case "--max-body": options.server.maxBodyBytes = try number(for: flag, in: 1_024...(64 << 20))
            case "--max-url": options.server.maxURLBytes = try number(for: flag, in: 256...(1 << 20))
            case "--max-header-count": options.server.maxHeaderCount = try number(for: flag, in: 10...10_000)
            case "--max-headers": options.server.maxHeaderBytes = try number(for: flag, in: 1_024...(1 << 20))
            case "--timeout": options.server.timeoutSeconds = try number(for: flag, in: 1...3_600)
            case "-h", "--help": options.showHelp = true
            default: throw Problem(description: "unknown option '\(flag)'")
            }
        }
        return options
    }
}
