/// What `mailroom SUBCOMMAND --help` prints: each subcommand's own usage, on standard output.
enum Usage {
    /// The help for `subcommand`, or nil when it has none of its own.
    static func help(for subcommand: String) -> String? {
        switch subcommand {
        case "sendmail": sendmail
        case "backup": backup
        case "check": check
        case "import": importing
        case "export": exporting
        default: nil
        }
    }

    /// Whether the words after a subcommand ask for its help. Only `--help` for sendmail, whose
    /// `-h` is the old hop-count flag that callers of sendmail may still pass.
    static func asksForHelp(_ arguments: [String], subcommand: String) -> Bool {
        arguments.contains("--help") || (subcommand != "sendmail" && arguments.contains("-h"))
    }

    static let sendmail = """
        Usage: mailroom sendmail [-t] [-i] [-f SENDER] [-F NAME] [--server HOST:PORT]
                                 [--user NAME --password-file PATH] [RECIPIENT...]
               (or the binary linked as sendmail)

        Reads one message from standard input and hands it to a running Mailroom over SMTP.

          -t                 take the recipients from the message's To, Cc and Bcc (Bcc is removed)
          -i, -oi            a line of a single dot does not end the message
          -f, -r SENDER      the envelope sender (default: USER@HOST)
          -F NAME            the sender's full name, for a From: the message lacks
          --server HOST:PORT where Mailroom takes mail (see below)
          --user NAME        log in as NAME when Mailroom requires it (default: your login name)
          --password-file PATH  the password, the file's first line (or set MAILROOM_SMTP_PASSWORD)
          --help             show this help

        Where Mailroom is, first found wins: --server; MAILROOM_SMTP (HOST:PORT); the server's
        --smtp-port, --smtp-host and --host in MAILROOM_ARGS, from the environment, else from
        MAILROOM_DEFAULTS_FILE, else /etc/default/mailroom (0.0.0.0 or :: means 127.0.0.1);
        else 127.0.0.1:2525.

        It logs in with AUTH PLAIN and speaks no TLS: a Mailroom that offers AUTH only after
        STARTTLS needs --smtp-auth-allow-insecure for it.

        Exit status: 0 sent, 64 bad usage, 69 refused, 75 try again later (the server did not
        take it), 77 a login was needed, wrong, or not possible without TLS.
        """

    static let backup = """
        Usage: mailroom backup [--db PATH] OUT

        Copies a database, as of one commit, to the new file OUT, beside a running Mailroom or without
        one. It never writes over a file. --db defaults to mailroom.sqlite.
        Exit status: 0 copied, 1 could not copy, 64 bad usage.
        """

    static let check = """
        Usage: mailroom check [--db PATH]

        SQLite's integrity check and Mailroom's own (counts, every part of every message), beside a
        running Mailroom or without one. --db defaults to mailroom.sqlite.
        Exit status: 0 in order, 1 a problem (each on a line of its own), 64 bad usage.
        """

    static let importing = """
        Usage: mailroom import [--db PATH] [--as-message] --mailbox NAME FILE|MAILDIR...
               mailroom import --url http://HOST:PORT [--token-file FILE] [--as-message] --mailbox NAME FILE|MAILDIR...

        Reads mbox files (and single .eml messages) and Maildirs (cur and new) into the mailbox NAME,
        made when missing. Without --url it writes the file itself (Mailroom must not be running on
        it); with --url it sends the mail to a running Mailroom (--token-file or MAILROOM_API_TOKEN
        when it has a password). Mail imported before is skipped, also when it comes back from an
        export, so an interrupted import can simply be run again. Symbolic links in a Maildir are
        passed over and named.

          --as-message  take a FILE that is neither an mbox (no "From " line first) nor a mail
                        message (no header such as From: or Subject:) as one message all the same;
                        without it such a file is refused, and nothing is imported

        Exit status: 0 imported, 1 could not (or a file is not mail), 64 bad usage.
        """

    static let exporting = """
        Usage: mailroom export [--db PATH] --mailbox NAME [OUT]

        Writes the mailbox NAME as an mbox file (standard output without OUT), oldest first; mailed
        messages byte for byte as they arrived. Beside a running Mailroom or without one.
        Exit status: 0 written, 1 could not, 64 bad usage.
        """
}
