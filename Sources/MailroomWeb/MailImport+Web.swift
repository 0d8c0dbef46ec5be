import MailroomService

/// The import helpers under the name files that import only this module use; it can go once
/// `mailroom/Transfer.swift` imports `MailroomService` itself.
public typealias MailImport = MailroomService.MailImport
