import FluxCapacitor
import FluxCapacitorPersistence
import Foundation

/// The page `DispatchReplay.writeTimeline(to:)` writes: a recording replayed from its start
/// into stores of its own (a dispatcher and an in-memory default storage of its own), each
/// step with its state, what it changed and the stores' values after it, as one
/// self-contained HTML file (its style, script and data inline: no network, no install).
///
/// The data is compact so that a long recording stays usable: every text (a state, a diff,
/// a value) is written once and referred to by number, and a step lists only the values it
/// changed; the page finds the values after a step from the last change of each before it
/// (a binary search), and draws only the rows on screen.
enum Timeline {
    static func page(of file: URL, types: [PlayedType], skipping: Set<String>, maximumLineLength: Int) -> Data {
        var builder = Builder()
        Persistence.withDefaultStorage(InMemoryStorage(coalescingInterval: .zero)) {
            let player = DispatchFilePlayer(
                contentsOf: file, types: types, skipping: skipping, into: Dispatcher(),
                maximumLineLength: maximumLineLength)
            builder.replay(player)
        }
        var html = Data(template.prefix(while: { $0 != "\u{1}" }).utf8)
        html.append(contentsOf: builder.json(file: file.lastPathComponent))
        html.append(contentsOf: template.drop(while: { $0 != "\u{1}" }).dropFirst().utf8)
        return html
    }

    /// What the page shows, gathered step by step.
    struct Builder {
        private(set) var strings: [String] = []
        private var stringIndex: [String: Int] = [:]
        private var stores: [String] = []
        private var variables: [(store: Int, label: String)] = []
        private var types: [String] = []
        private var typeIndex: [String: Int] = [:]
        private var start: [Int] = []
        /// `[sequence, line, time (ms), type, flags, state, changes, changed values…]`.
        private var steps: [[Double]] = []
        private var failure: String?
        /// Each value's dump, for its version: each version is dumped once.
        private var dumps: [Int: (version: UInt64, dump: ValueDump, text: Int)] = [:]

        mutating func replay(_ player: DispatchFilePlayer) {
            let reading = StoreValues.Reading(stores: player.playedStores)
            for (index, store) in reading.stores.enumerated() {
                stores.append(store.name)
                variables += store.variables.map { (index, StoreVariables.displayName($0.label)) }
            }
            do {
                _ = try player.upcoming()
                var before = reading.read()
                start = flatten(before).enumerated().map { index, value in dump(index, value).text }
                while let step = try player.next() {
                    let after = reading.read()
                    record(step, before: before, after: after)
                    before = after
                }
            } catch {
                failure = "\(error)"
            }
        }

        private mutating func record(_ step: DispatchFilePlayer.Step, before: StoreValues, after: StoreValues) {
            let old = flatten(before)
            let new = flatten(after)
            var changed: [Double] = []
            var diffs: [String] = []
            var offset = 0
            for (storeIndex, store) in after.stores.enumerated() {
                let range = offset..<(offset + store.values.count)
                offset = range.upperBound
                let moved = range.filter { old[$0].version != new[$0].version }
                guard !moved.isEmpty else { continue }
                let oldFields = range.map { (variables[$0].label, dump($0, old[$0]).dump) }
                for index in moved {
                    changed += [Double(index), Double(dump(index, new[index]).text)]
                }
                let newFields = range.map { (variables[$0].label, dump($0, new[$0]).dump) }
                if let diff = ValueDiff(
                    ValueDump(named: stores[storeIndex], fields: oldFields),
                    ValueDump(named: stores[storeIndex], fields: newFields))
                {
                    diffs.append(diff.text)
                }
            }
            let type =
                typeIndex[step.typeName]
                ?? {
                    types.append(step.typeName)
                    typeIndex[step.typeName] = types.count - 1
                    return types.count - 1
                }()
            let flags = (step.wasDropped ? 1 : 0) + (step.isSkipped ? 2 : 0)
            let state = step.state.map { ValueDump(of: $0).text } ?? "(skipped: not decoded)"
            steps.append(
                [
                    Double(step.sequence), Double(step.line), (step.time.timeIntervalSince1970 * 1_000).rounded(),
                    Double(type), Double(flags), Double(intern(state)), Double(intern(diffs.joined(separator: "\n"))),
                ] + changed)
        }

        private func flatten(_ values: StoreValues) -> [(label: String, value: Any, version: UInt64)] {
            values.stores.flatMap(\.values)
        }

        /// The dump of value `index` at `value`'s version, made once per version.
        private mutating func dump(_ index: Int, _ value: (label: String, value: Any, version: UInt64)) -> (
            dump: ValueDump, text: Int
        ) {
            if let cached = dumps[index], cached.version == value.version {
                return (cached.dump, cached.text)
            }
            let dump = ValueDump(of: value.value)
            let text = intern(dump.text)
            dumps[index] = (value.version, dump, text)
            return (dump, text)
        }

        private mutating func intern(_ text: String) -> Int {
            if let index = stringIndex[text] { return index }
            strings.append(text)
            stringIndex[text] = strings.count - 1
            return strings.count - 1
        }

        /// The data as JSON, safe inside a `<script>` element.
        func json(file: String) -> [UInt8] {
            var out: [UInt8] = []
            out.reserveCapacity(strings.reduce(0) { $0 + $1.utf8.count } + steps.count * 48 + 1_024)
            func text(_ string: String) { Timeline.appendJSONString(string, to: &out) }
            func list(_ items: [String]) {
                out.append(UInt8(ascii: "["))
                for (index, item) in items.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    text(item)
                }
                out.append(UInt8(ascii: "]"))
            }
            func numbers(_ items: [Double]) {
                out.append(UInt8(ascii: "["))
                for (index, item) in items.enumerated() {
                    if index > 0 { out.append(UInt8(ascii: ",")) }
                    out.append(contentsOf: String(Int64(item)).utf8)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.append(contentsOf: #"{"file":"#.utf8)
            text(file)
            out.append(contentsOf: #","failure":"#.utf8)
            if let failure { text(failure) } else { out.append(contentsOf: "null".utf8) }
            out.append(contentsOf: #","types":"#.utf8)
            list(types)
            out.append(contentsOf: #","stores":"#.utf8)
            list(stores)
            out.append(contentsOf: #","variableStores":"#.utf8)
            numbers(variables.map { Double($0.store) })
            out.append(contentsOf: #","variableLabels":"#.utf8)
            list(variables.map(\.label))
            out.append(contentsOf: #","start":"#.utf8)
            numbers(start.map(Double.init))
            out.append(contentsOf: #","strings":"#.utf8)
            list(strings)
            out.append(contentsOf: #","steps":["#.utf8)
            for (index, step) in steps.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                numbers(step)
            }
            out.append(contentsOf: "]}".utf8)
            return out
        }
    }

    /// Appends `string` as a JSON string in which `<`, `>` and `&` are escaped too, so that
    /// no text of a recording can end the `<script>` element it is in.
    static func appendJSONString(_ string: String, to out: inout [UInt8]) {
        var string = string
        let plain = string.withUTF8 { bytes in
            !bytes.contains {
                $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "<")
                    || $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "&")
            }
        }
        if plain {
            out.append(UInt8(ascii: "\""))
            string.withUTF8 { out.append(contentsOf: $0) }
            out.append(UInt8(ascii: "\""))
            return
        }
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for unit in string.utf8 {
            switch unit {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0..<0x20, UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"):
                out += Array(#"\u00"#.utf8) + [hex[Int(unit >> 4)], hex[Int(unit & 0xF)]]
            default: out.append(unit)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// The page; the data goes where the `\u{1}` is.
    static let template = """
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Recording timeline</title>
        <style>
        :root { color-scheme: light dark; --line: #8884; --pick: #3b82f633; --add: #16a34a; --del: #dc2626; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 13px/1.4 system-ui, sans-serif; height: 100vh; display: flex; flex-direction: column; }
        header { padding: 8px 12px; border-bottom: 1px solid var(--line); display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: center; }
        header h1 { font-size: 15px; margin: 0; }
        #failure { width: 100%; color: var(--del); white-space: pre-wrap; }
        #failure:empty { display: none; }
        #types label { margin-right: 8px; white-space: nowrap; }
        #search { min-width: 16em; }
        main { flex: 1; display: flex; min-height: 0; }
        #list { width: 45%; min-width: 280px; overflow-y: auto; position: relative; border-right: 1px solid var(--line); }
        #rows { position: relative; }
        .step-row { position: absolute; left: 0; right: 0; height: 24px; padding: 0 8px; display: flex; gap: 8px;
          align-items: center; white-space: nowrap; overflow: hidden; cursor: pointer; font-family: ui-monospace, monospace; font-size: 12px; }
        .step-row:hover { background: #8881; }
        .step-row.selected { background: var(--pick); }
        .step-row .seq { flex: none; width: 5em; text-align: right; opacity: .7; }
        .step-row .gap { flex: none; width: 6em; text-align: right; opacity: .7; }
        .step-row .type { flex: none; font-weight: 600; }
        .step-row .summary { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; }
        .step-row.dropped .summary, .step-row.skipped .summary { opacity: .5; text-decoration: line-through; }
        #detail { flex: 1; overflow: auto; padding: 8px 12px; }
        #detail h2 { font-size: 13px; margin: 12px 0 4px; }
        pre { margin: 0; font: 12px/1.4 ui-monospace, monospace; white-space: pre; }
        .diff-added { color: var(--add); }
        .diff-removed { color: var(--del); }
        .muted { opacity: .6; }
        </style>
        </head>
        <body>
        <header>
          <h1 id="title">Recording</h1>
          <span id="step-count"></span>
          <span id="span" class="muted"></span>
          <span id="types"></span>
          <input id="search" type="search" placeholder="Search states and changes" aria-label="Search">
          <span id="visible-count" class="muted"></span>
          <div id="failure"></div>
        </header>
        <main>
          <div id="list" tabindex="0" aria-label="Steps"><div id="rows"></div></div>
          <section id="detail"><p class="muted">Select a step.</p></section>
        </main>
        <script type="application/json" id="data">\u{1}</script>
        <script>
        "use strict";
        const data = JSON.parse(document.getElementById("data").textContent);
        const S = data.strings, steps = data.steps, rowHeight = 24;
        const $ = (id) => document.getElementById(id);
        const text = (tag, content, cls) => { const e = document.createElement(tag); e.textContent = content; if (cls) e.className = cls; return e; };
        const hidden = new Set();
        let visible = [], selected = -1;
        // Each value's changes: step indices and texts, for a binary search.
        const changes = data.variableLabels.map(() => ({ at: [], text: [] }));
        steps.forEach((step, index) => {
          for (let i = 7; i < step.length; i += 2) { changes[step[i]].at.push(index); changes[step[i]].text.push(step[i + 1]); }
        });
        const counts = data.types.map(() => 0);
        steps.forEach((step) => counts[step[3]]++);
        const summaries = steps.map((step) => S[step[5]].replace(/\\s+/g, " "));
        const haystacks = steps.map((step, index) => (data.types[step[3]] + " " + summaries[index] + " " + S[step[6]]).toLowerCase());
        function plural(n, one, many) { return n.toLocaleString("en-US") + " " + (n === 1 ? one : many); }
        function duration(ms) {
          if (ms < 1000) return "+" + ms + " ms";
          if (ms < 60000) return "+" + (ms / 1000).toFixed(ms < 10000 ? 2 : 1) + " s";
          return "+" + Math.floor(ms / 60000) + " min " + Math.round((ms % 60000) / 1000) + " s";
        }
        function valueAfter(variable, index) {
          const c = changes[variable];
          let low = 0, high = c.at.length - 1, found = -1;
          while (low <= high) { const mid = (low + high) >> 1; if (c.at[mid] <= index) { found = mid; low = mid + 1; } else high = mid - 1; }
          return S[found < 0 ? data.start[variable] : c.text[found]];
        }
        function valuesAfter(index) {
          const lines = [];
          data.stores.forEach((store, storeIndex) => {
            const members = [];
            data.variableStores.forEach((s, v) => { if (s === storeIndex) members.push(v); });
            lines.push(store + "(");
            members.forEach((v, k) => {
              const dump = valueAfter(v, index).split("\\n");
              dump.forEach((line, n) => lines.push("  " + (n === 0 ? data.variableLabels[v] + ": " : "") + line + (n === dump.length - 1 && k < members.length - 1 ? "," : "")));
            });
            lines.push(")");
          });
          return lines.join("\\n");
        }
        function diffBlock(content) {
          const pre = document.createElement("pre");
          pre.className = "diff";
          content.split("\\n").forEach((line, n) => {
            if (n > 0) pre.appendChild(document.createTextNode("\\n"));
            pre.appendChild(text("span", line, line.startsWith("\\u2212 ") ? "diff-removed" : line.startsWith("+ ") ? "diff-added" : "diff-same"));
          });
          return pre;
        }
        function show(position) {
          if (position < 0 || position >= visible.length) return;
          selected = position;
          const index = visible[position], step = steps[index];
          const detail = $("detail");
          detail.replaceChildren();
          const previous = index > 0 ? steps[index - 1] : null;
          const when = new Date(step[2]).toISOString().replace("T", " ").replace("Z", " UTC");
          detail.appendChild(text("h2", "Step " + step[0] + " · " + data.types[step[3]] + (step[4] & 1 ? " · dropped (no live store)" : "") + (step[4] & 2 ? " · skipped on purpose" : "")));
          detail.appendChild(text("p", when + (previous ? " · " + duration(step[2] - previous[2]) + " after step " + previous[0] : " · the first step") + " · line " + step[1], "muted"));
          detail.appendChild(text("h2", "State"));
          detail.appendChild(text("pre", S[step[5]], "state"));
          detail.appendChild(text("h2", "Changes (\\u2212 before, + after)"));
          detail.appendChild(S[step[6]] ? diffBlock(S[step[6]]) : text("p", "Nothing changed.", "muted no-change"));
          detail.appendChild(text("h2", "Values after it"));
          detail.appendChild(text("pre", valuesAfter(index), "values"));
          const list = $("list"), top = position * rowHeight;
          if (top < list.scrollTop || top + rowHeight > list.scrollTop + list.clientHeight) list.scrollTop = top - list.clientHeight / 2;
          draw();
        }
        function draw() {
          const list = $("list"), rows = $("rows");
          const first = Math.max(0, Math.floor(list.scrollTop / rowHeight) - 10);
          const last = Math.min(visible.length, Math.ceil((list.scrollTop + list.clientHeight) / rowHeight) + 10);
          rows.style.height = visible.length * rowHeight + "px";
          rows.replaceChildren();
          for (let position = first; position < last; position++) {
            const index = visible[position], step = steps[index];
            const row = document.createElement("div");
            row.className = "step-row" + (position === selected ? " selected" : "") + (step[4] & 1 ? " dropped" : "") + (step[4] & 2 ? " skipped" : "");
            row.style.top = position * rowHeight + "px";
            row.dataset.position = position;
            row.dataset.sequence = step[0];
            row.appendChild(text("span", "#" + step[0], "seq"));
            row.appendChild(text("span", index > 0 ? duration(step[2] - steps[index - 1][2]) : "", "gap"));
            row.appendChild(text("span", data.types[step[3]], "type"));
            row.appendChild(text("span", summaries[index], "summary"));
            rows.appendChild(row);
          }
        }
        function filter() {
          const query = $("search").value.trim().toLowerCase();
          const keep = selected >= 0 ? visible[selected] : -1;
          visible = [];
          steps.forEach((step, index) => { if (!hidden.has(step[3]) && (!query || haystacks[index].includes(query))) visible.push(index); });
          selected = visible.indexOf(keep);
          $("visible-count").textContent = visible.length === steps.length ? "" : plural(visible.length, "step shown", "steps shown");
          const list = $("list");
          $("rows").style.height = visible.length * rowHeight + "px";
          list.scrollTop = Math.min(list.scrollTop, Math.max(0, visible.length * rowHeight - list.clientHeight));
          draw();
        }
        $("title").textContent = data.file;
        $("step-count").textContent = plural(steps.length, "step", "steps");
        if (steps.length > 1) $("span").textContent = "over " + duration(steps[steps.length - 1][2] - steps[0][2]).slice(1);
        $("failure").textContent = data.failure ? "The replay stopped: " + data.failure : "";
        data.types.forEach((type, index) => {
          const label = document.createElement("label");
          const box = document.createElement("input");
          box.type = "checkbox"; box.checked = true; box.dataset.type = type;
          box.addEventListener("change", () => { if (box.checked) hidden.delete(index); else hidden.add(index); filter(); });
          label.appendChild(box);
          label.appendChild(document.createTextNode(" " + type + " (" + counts[index].toLocaleString("en-US") + ")"));
          $("types").appendChild(label);
        });
        $("search").addEventListener("input", filter);
        $("list").addEventListener("scroll", draw);
        window.addEventListener("resize", draw);
        $("rows").addEventListener("click", (event) => { const row = event.target.closest(".step-row"); if (row) show(Number(row.dataset.position)); });
        $("list").addEventListener("keydown", (event) => {
          if (event.key === "ArrowDown" || event.key === "j") { show(Math.min(selected + 1, visible.length - 1)); event.preventDefault(); }
          if (event.key === "ArrowUp" || event.key === "k") { show(Math.max(selected - 1, 0)); event.preventDefault(); }
        });
        filter();
        if (visible.length > 0) show(0); else { const empty = $("detail"); empty.replaceChildren(text("p", "The recording has no steps; its start:", "muted"), text("pre", valuesAfter(-1), "values")); }
        </script>
        </body>
        </html>

        """
}
