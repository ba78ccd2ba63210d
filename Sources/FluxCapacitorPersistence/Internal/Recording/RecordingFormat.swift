import Foundation

/// The lines of a recording, version 2 ([JSON Lines](https://jsonlines.org)), which a
/// ``DispatchFileRecorder`` writes and a ``DispatchFilePlayer`` reads (each is one line of
/// the file, wrapped here):
///
/// ```text
/// {"format":"FluxCapacitor dispatch recording","version":2,"types":["Favorite"]}
/// {"seq":1,"time":"2026-11-26T05:36:16.120Z","type":"Favorite",
///   "values":{"_favorites":[…]}}
/// {"seq":1,"time":"2026-11-26T05:36:16.123Z","type":"Favorite",
///   "state":{"add":{"_0":{…}}}}
/// {"seq":2,"time":"2026-11-26T05:36:17.002Z","type":"Favorite","dropped":true,
///   "state":{"clear":{}}}
/// ```
///
/// - The header names the recorded types.
/// - A *values* line holds the values of the store of `type` (its `Variable`s, by property
///   name) before step `seq`: `null` if no store of it was alive, and `"unrecorded"` with
///   the description of each value whose type is not `Encodable`. The file starts with a
///   checkpoint: a values line for every recorded type. Later values lines are checkpoints
///   (the ring cuts the file at them) and stores made while recording.
/// - A *step* line is a dispatched state; `dropped` when no store of its type was alive.
///
/// Version 1 (FluxCapacitor before issue 41) had no values lines: a replay of it started
/// from the stores' defaults, not from where the session did, so it is refused.
enum RecordingFormat {
    static let name = "FluxCapacitor dispatch recording"
    static let version = 2

    /// The header line, with its newline.
    static func header(types: [String]) -> Data {
        var header = Data(#"{"format":"\#(name)","version":\#(version),"types":["#.utf8)
        for (index, type) in types.enumerated() {
            if index > 0 { header.append(UInt8(ascii: ",")) }
            header.append(contentsOf: jsonString(type))
        }
        header.append(contentsOf: "]}\n".utf8)
        return header
    }

    /// `text` as a JSON string, quotes included.
    static func jsonString(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes += Array(#"\u00"#.utf8) + [hex[Int(unit >> 4)], hex[Int(unit & 0xF)]]
            default: bytes.append(unit)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return bytes
    }

    /// How a value that is not `Encodable` is written down: its description, at most 1,000
    /// characters (a replay compares it with its own store's value, cut the same way).
    static func describe(_ value: Any) -> String {
        let text = String(describing: value)
        return text.count > 1_000 ? String(text.prefix(1_000)) + "…" : text
    }

    /// The timestamp of `seconds`, as a string (for tests).
    static func timestamp(_ seconds: Double) -> String {
        var lines = RecordingLines()
        lines.appendLineStart(sequence: 0, seconds: seconds)
        let text = String(decoding: lines.bytes, as: UTF8.self)
        return String(text.dropFirst(#"{"seq":0,"time":""#.count).dropLast())
    }

    /// Seconds since 1970 for `2026-11-26T05:36:16.123Z` (the form `appendTimestamp` writes,
    /// to the millisecond); `nil` for anything else.
    static func seconds(fromTimestamp text: String) -> Double? {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int64? {
            var value: Int64 = 0
            for byte in bytes[range] {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millisecond = number(20..<23), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        // Howard Hinnant's `days_from_civil`.
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let milliseconds = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1_000 + millisecond
        return Double(milliseconds) / 1_000
    }

    /// The elements of the JSON array `bytes` (as `JSONEncoder` writes one: no whitespace),
    /// as ranges of `bytes`; `nil` if it is not an array. Outside strings only brackets and
    /// commas count; a string is skipped to its closing quote with `memchr` (a quote after
    /// an odd count of backslashes is escaped): the writer cuts every batch with this, at
    /// about half the instructions of a byte-by-byte state machine.
    static func elements(ofArray bytes: [UInt8], expectedCount: Int = 0) -> [Range<Int>]? {
        bytes.withUnsafeBufferPointer { buffer -> [Range<Int>]? in
            guard let base = buffer.baseAddress, buffer.count >= 2, base[0] == UInt8(ascii: "["),
                base[buffer.count - 1] == UInt8(ascii: "]")
            else {
                return nil
            }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(expectedCount)
            var depth = 0
            var start = 1
            let end = buffer.count - 1
            var index = 1
            while index < end {
                switch base[index] {
                case UInt8(ascii: "\\"):
                    return nil  // outside a string
                case UInt8(ascii: "\""):
                    var next = index + 1
                    while true {
                        guard let found = memchr(base + next, Int32(UInt8(ascii: "\"")), end - next) else {
                            return nil
                        }
                        let quote = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                        var backslashes = 0
                        while base[quote - 1 - backslashes] == UInt8(ascii: "\\") {
                            backslashes += 1
                        }
                        next = quote + 1
                        if backslashes % 2 == 0 { break }
                    }
                    index = next
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
                case UInt8(ascii: ",") where depth == 0:
                    ranges.append(start..<index)
                    start = index + 1
                default: break
                }
                index += 1
            }
            if end > 1 {
                ranges.append(start..<end)
            }
            return ranges
        }
    }
}

/// The lines of a batch a recorder writes: their bytes, and where each line ends and what
/// it is. The writer keeps one and fills it anew for each batch (a local copy, taken and
/// given back, so that appending costs no exclusivity check of a class's property).
struct RecordingLines {
    var bytes: [UInt8] = []
    var lines: [RecordingFile.Line] = []
    /// The last day written, and its text (`2026-11-26T`): the civil date is computed once
    /// a day.
    private var day: Int64 = .min
    private var dayText: [UInt8] = []

    mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        lines.removeAll(keepingCapacity: true)
    }

    mutating func append(_ text: StaticString) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append(_ other: [UInt8]) {
        bytes.append(contentsOf: other)
    }

    mutating func append(_ other: ArraySlice<UInt8>) {
        bytes.append(contentsOf: other)
    }

    mutating func append(_ byte: UInt8) {
        bytes.append(byte)
    }

    /// Ends the line (`}` and a newline) and records it.
    mutating func endLine(isStep: Bool, startsCheckpoint: Bool) {
        append("}\n")
        lines.append(RecordingFile.Line(end: bytes.count, isStep: isStep, startsCheckpoint: startsCheckpoint))
    }

    /// Appends `{"seq":N,"time":"2026-11-26T05:36:16.123Z"` for `sequence` and `seconds`
    /// since 1970: made on the stack and appended at once. The civil date is computed from
    /// the count of days (Howard Hinnant's `civil_from_days`) once a day; no calendar, no C
    /// library call, no allocation.
    mutating func appendLineStart(sequence: UInt64, seconds: Double) {
        appendLine(sequence: sequence, seconds: seconds, then: [], [][...], end: false)
    }

    /// Appends a whole step line: its start (as `appendLineStart`), `middle`
    /// (`","type":…,"state":`), `state` and its end, at once, and records it.
    mutating func appendStepLine(sequence: UInt64, seconds: Double, middle: [UInt8], state: ArraySlice<UInt8>) {
        appendLine(sequence: sequence, seconds: seconds, then: middle, state, end: true)
        lines.append(RecordingFile.Line(end: bytes.count, isStep: true, startsCheckpoint: false))
    }

    /// The start of a line, then `middle`, `tail` and, with `end`, `}` and a newline.
    private mutating func appendLine(
        sequence: UInt64, seconds: Double, then middle: [UInt8], _ tail: ArraySlice<UInt8>, end withEnd: Bool
    ) {
        let milliseconds = Int64((seconds * 1_000).rounded(.down))
        var days = milliseconds / 86_400_000
        var dayMilliseconds = milliseconds % 86_400_000
        if dayMilliseconds < 0 {
            days -= 1
            dayMilliseconds += 86_400_000
        }
        if days != day {
            day = days
            dayText = Self.dateText(days: days)
        }
        // `{"seq":` 7 + up to 20 digits + `,"time":"` 9 + 24 + `"` 1 bytes, written into a
        // buffer on the stack and appended at once (no closure, no nested function: a
        // nested function that changed a captured variable boxed it, an allocation a line).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 64 + middle.count + tail.count) { buffer in
            let text = buffer.baseAddress!
            var end = Self.copy(#"{"seq":"#, to: text, at: 0)
            var digits = 1
            var bound: UInt64 = 10
            while digits < 20, sequence >= bound {
                digits += 1
                bound = bound &* 10
            }
            var rest = sequence
            var index = end + digits
            while index > end {
                index -= 1
                text[index] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            end += digits
            end = Self.copy(#","time":""#, to: text, at: end)
            dayText.withUnsafeBufferPointer { date in
                (text + end).update(from: date.baseAddress!, count: date.count)
                end += date.count
            }
            Self.putTwoDigits(dayMilliseconds / 3_600_000, to: text, at: end)
            text[end + 2] = UInt8(ascii: ":")
            Self.putTwoDigits(dayMilliseconds / 60_000 % 60, to: text, at: end + 3)
            text[end + 5] = UInt8(ascii: ":")
            Self.putTwoDigits(dayMilliseconds / 1_000 % 60, to: text, at: end + 6)
            text[end + 8] = UInt8(ascii: ".")
            let fraction = dayMilliseconds % 1_000
            text[end + 9] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: fraction / 100)
            Self.putTwoDigits(fraction % 100, to: text, at: end + 10)
            text[end + 12] = UInt8(ascii: "Z")
            text[end + 13] = UInt8(ascii: "\"")
            end += 14
            middle.withUnsafeBufferPointer { middle in
                if let start = middle.baseAddress {
                    (text + end).update(from: start, count: middle.count)
                    end += middle.count
                }
            }
            tail.withUnsafeBufferPointer { tail in
                if let start = tail.baseAddress {
                    (text + end).update(from: start, count: tail.count)
                    end += tail.count
                }
            }
            if withEnd {
                text[end] = UInt8(ascii: "}")
                text[end + 1] = UInt8(ascii: "\n")
                end += 2
            }
            bytes.append(contentsOf: UnsafeBufferPointer(start: text, count: end))
        }
    }

    @inline(__always)
    private static func copy(_ literal: StaticString, to text: UnsafeMutablePointer<UInt8>, at offset: Int) -> Int {
        let count = literal.utf8CodeUnitCount
        (text + offset).update(from: literal.utf8Start, count: count)
        return offset + count
    }

    @inline(__always)
    private static func putTwoDigits(_ value: Int64, to text: UnsafeMutablePointer<UInt8>, at offset: Int) {
        text[offset] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10)
        text[offset + 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10)
    }

    /// `2026-11-26T` for `days` since 1970.
    private static func dateText(days: Int64) -> [UInt8] {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func digits(_ value: Int64, _ width: Int) -> [UInt8] {
            var text = Array(String(value).utf8)
            while text.count < width { text.insert(UInt8(ascii: "0"), at: 0) }
            return text
        }
        return digits(year, 4) + [UInt8(ascii: "-")] + digits(month, 2) + [UInt8(ascii: "-")] + digits(day, 2)
            + [UInt8(ascii: "T")]
    }
}
