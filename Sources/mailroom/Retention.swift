import Dispatch
import MailroomService

/// Runs the retention policy soon after start and then once a minute, off the event loops, and
/// logs what it deleted.
enum Retention {
    static func start(_ policy: RetentionPolicy, service: Mailroom) -> DispatchSourceTimer? {
        guard policy.isActive else { return nil }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "mailroom.retention"))
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(60), leeway: .seconds(1))
        timer.setEventHandler {
            do throws(ServiceError) {
                let gone = try service.enforce(policy)
                if gone.overCount > 0 {
                    Console.out("mailroom: retention deleted \(gone.overCount) oldest unflagged message(s) over "
                        + "--max-messages \(policy.maxMessages ?? 0)")
                }
                if gone.overAge > 0 {
                    Console.out("mailroom: retention deleted \(gone.overAge) unflagged message(s) older than --max-age")
                }
            } catch {
                Console.error("retention could not delete old messages: \(error.message)")
            }
        }
        timer.resume()
        return timer
    }
}
