#!/usr/bin/env python3
"""`browser snapshot` as a whole CLI round trip (process start, IPC, capture, file write), ours
against agent-browser and against the raw CDP floor, interleaved on one browser.

One headless Chromium (the bench kit's `chromium-wrap`, `--site-per-process`) with three tabs on
the same page: ours (`browser start --cdp-endpoint`), agent-browser's (`--cdp`, `tab new`) and the
floor's, a plain CDP client doing what any snapshot must ask Chromium for: per session
`DOM.getDocument{depth:-1,pierce:true}`, per frame `Accessibility.getFullAXTree` (OOPIFs on their
own sessions), one after the other, answers received but not decoded. Each round runs every
measurement once, in a rotating order, so all see the same machine state; ratios are per round
(ours / floor of the same round) and reported as median and range.

    cargo build-cli
    npm install --prefix /tmp/ab agent-browser@0.41.2        # optional; never into the repo
    pip install websocket-client
    OURS=target/release/actionbook AGENT_BROWSER=/tmp/ab/node_modules/.bin/agent-browser \\
      python3 benches/snapshot_compare.py [--rounds 7] [--pages large5k,large20k,large100k]

PLAYWRIGHT_CORE=/tmp/pw/node_modules/playwright-core (after `npm install --prefix /tmp/pw
playwright-core`) adds Playwright's in-page aria snapshot (`page.ariaSnapshot({mode:'ai'})`, the
library over CDP, no CLI hop, timed inside its node process; full snapshots only) through
`benches/playwright_peer.js`.

TOKENS=<the snapshot_tokens bench binary> (`cargo bench --bench snapshot_tokens --no-run` names
it) adds, per page, each contestant's snapshot text in bytes and o200k_base tokens per element
and as a share of Playwright's.

BASELINE=<another actionbook binary> (say, one built from main) adds it as a fourth contestant,
on its own tab of the same browser, to compare before and after in one run.

Pages come from `../shared/bench/gen_fixtures.py` (login, large5k, large10k, large20k, iframes,
oopif) and `benches/gen_large.py` (large100k, large300k). Also reported for ours: the daemon's
VmRSS right after each snapshot and its peak during one (VmHWM after resetting it through
/proc/PID/clear_refs), and snapshot bytes per element.
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import signal
import socketserver
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket

from benchkit import find_kit

HERE = os.path.dirname(os.path.abspath(__file__))

KIT = find_kit()
WRAPPER = os.environ.get("BROWSER", os.path.join(KIT, "chromium-wrap"))


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class Cdp:
    """A flat-session CDP client on the browser endpoint (calls are sequential)."""

    def __init__(self, ws_url):
        self.ws = websocket.create_connection(ws_url, skip_utf8_validation=True, suppress_origin=True)
        self.ws.settimeout(600)
        self.next = 0
        self.events = []

    def call(self, method, params=None, session=None, parse=True):
        self.next += 1
        i = self.next
        msg = {"id": i, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self.ws.send(json.dumps(msg))
        head = '{"id":%d,' % i
        while True:
            raw = self.ws.recv()
            if raw.startswith(head):
                if raw.startswith(head + '"error"'):
                    raise RuntimeError(f"{method}: {raw[:300]}")
                # Large answers are not decoded: client-side parsing is not the browser's floor.
                return json.loads(raw)["result"] if parse else len(raw)
            self.events.append(raw)

    def wait_event(self, name, session=None, timeout=600):
        """Waits for an event; earlier events stay in `events`."""
        end = time.time() + timeout
        seen = 0
        while time.time() < end:
            for raw in self.events[seen:]:
                if f'"method":"{name}"' in raw and (session is None or f'"sessionId":"{session}"' in raw):
                    return json.loads(raw)
            seen = len(self.events)
            self.events.append(self.ws.recv())
        raise TimeoutError(name)


class Floor:
    """The floor's own tab: per-frame AX trees and per-session documents, sequentially."""

    def __init__(self, cdp):
        self.cdp = cdp
        self.oopifs = []
        target = cdp.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.page = cdp.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        cdp.call("Page.enable", session=self.page)
        cdp.call("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False, "flatten": True},
                 session=self.page)

    def goto(self, url):
        self.cdp.call("Page.navigate", {"url": url}, session=self.page)
        self.cdp.wait_event("Page.loadEventFired", session=self.page)
        time.sleep(0.5)  # OOPIF targets attach after load
        self.cdp.call("Runtime.evaluate", {"expression": "1"}, session=self.page)  # drains events
        for raw in self.cdp.events:
            if '"method":"Target.attachedToTarget"' in raw:
                p = json.loads(raw)["params"]
                if p["targetInfo"]["type"] == "iframe":
                    self.oopifs.append(p["sessionId"])
            elif '"method":"Target.detachedFromTarget"' in raw:
                gone = json.loads(raw)["params"]["sessionId"]
                self.oopifs = [o for o in self.oopifs if o != gone]
        self.cdp.events.clear()
        self.frames = []  # (session, frameId)

        def walk(tree, session):
            self.frames.append((session, tree["frame"]["id"]))
            for c in tree.get("childFrames", []):
                walk(c, session)

        for s in [self.page] + self.oopifs:
            try:
                walk(self.cdp.call("Page.getFrameTree", session=s)["frameTree"], s)
            except RuntimeError:
                pass
        self.check_frames()
        self.elements = self.cdp.call("Runtime.evaluate", {
            "expression": "document.getElementsByTagName('*').length", "returnByValue": True},
            session=self.page)["result"]["value"]

    def measure(self):
        t = time.perf_counter()
        for s in [self.page] + self.oopifs:
            self.cdp.call("DOM.getDocument", {"depth": -1, "pierce": True}, session=s, parse=False)
        for s, f in self.frames:
            self.cdp.call("Accessibility.getFullAXTree", {"frameId": f}, session=s, parse=False)
        return time.perf_counter() - t

    def check_frames(self):
        """Drops frames the browser does not know (any more) and says so."""
        for s, f in list(self.frames):
            try:
                self.cdp.call("Accessibility.getFullAXTree", {"frameId": f, "depth": 1}, session=s, parse=False)
            except RuntimeError as e:
                print(f"  floor: frame {f} of session {s} dropped: {e}", flush=True)
                self.frames.remove((s, f))


def run(args, env, timeout=900):
    t = time.perf_counter()
    p = subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout)
    return time.perf_counter() - t, p


class Ours:
    def __init__(self, binary, endpoint):
        self.bin = binary
        self.home = tempfile.mkdtemp(prefix="ours-home-")
        self.env = dict(os.environ, ACTIONBOOK_HOME=self.home)
        out = json.loads(run([binary, "browser", "start", "--cdp-endpoint", endpoint, "--json"], self.env)[1].stdout)
        self.sid, self.tid = out["context"]["session_id"], out["context"]["tab_id"]

    def pid(self):
        try:
            return int(open(os.path.join(self.home, "daemon.pid")).read().split()[0])
        except (OSError, ValueError):
            return None

    def goto(self, url, elements=None):
        run([self.bin, "browser", "goto", url, "--session", self.sid, "--tab", self.tid,
             "--timeout", "600000"], self.env)
        if elements:
            self.settle(url, elements)

    def eval(self, expr):
        p = run([self.bin, "browser", "eval", expr, "--session", self.sid, "--tab", self.tid,
                 "--timeout", "600000", "--json"], self.env)[1]
        try:
            return json.loads(p.stdout).get("data", {}).get("value")
        except (ValueError, AttributeError):
            return None

    def settle(self, url, elements):
        """Waits until the tab shows the whole page (as many elements as the floor's tab): a
        large page can outlast `goto`'s load wait, and a snapshot of a half-parsed document, or
        one queued behind the parser, measures neither."""
        end = time.time() + 600
        while time.time() < end:
            got = self.eval("document.readyState == 'complete' ? document.getElementsByTagName('*').length : -1")
            if got == elements:
                return
            if isinstance(got, int) and got >= 0:
                # Loaded, but not all of it (a load that was stopped): load it again, unhurried.
                self.eval(f"location.href = {json.dumps(url)}; 0")
            time.sleep(2)
        print(f"  warning: {url} did not settle in our tab", flush=True)

    def snapshot(self, interactive, keep=None):
        pid = self.pid()
        if pid:
            try:
                with open(f"/proc/{pid}/clear_refs", "w") as f:
                    f.write("5")  # resets VmHWM: the next reading is this snapshot's peak
            except OSError:
                pass
        extra = ["--interactive"] if interactive else []
        d, p = run([self.bin, "browser", "snapshot", "--session", self.sid, "--tab", self.tid,
                    "--timeout", "600000", *extra], self.env)
        path = next((l.split("output saved to ", 1)[1] for l in p.stdout.splitlines() if "output saved to" in l), None)
        size = os.path.getsize(path) if path and os.path.exists(path) else None
        if path and os.path.exists(path):
            if keep:
                shutil.copyfile(path, keep)
            os.remove(path)
        mem = status(pid)
        ok = p.returncode == 0 and size is not None
        return d, ok, size, mem, (p.stdout + p.stderr).strip().splitlines()[-3:]

    def close(self):
        run([self.bin, "browser", "close", "--session", self.sid], self.env)
        pid = self.pid()
        if pid:
            try:
                os.kill(pid, 15)
            except OSError:
                pass
        shutil.rmtree(self.home, ignore_errors=True)


def status(pid):
    out = {}
    if not pid:
        return out
    try:
        for line in open(f"/proc/{pid}/status"):
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) / 1024
    except OSError:
        pass
    return out


class AgentBrowser:
    def __init__(self, binary, port, url):
        self.bin = binary
        self.home = tempfile.mkdtemp(prefix="ab-home-")
        self.env = dict(os.environ, HOME=self.home, AGENT_BROWSER_HOME=self.home)
        self.base = [binary, "--cdp", str(port), "--session", "bench"]
        run(self.base + ["tab", "new", url], self.env)

    def goto(self, url):
        run(self.base + ["open", url], self.env)

    def snapshot(self, interactive, keep=None):
        d, p = run(self.base + ["snapshot"] + (["-i"] if interactive else []), self.env)
        if keep:
            open(keep, "w").write(p.stdout)
        return d, p.returncode == 0, len(p.stdout.encode()), {}, p.stderr.strip().splitlines()[-2:]

    def close(self):
        run([self.bin, "--session", "bench", "close"], self.env)
        shutil.rmtree(self.home, ignore_errors=True)


class Playwright:
    """Playwright's in-page aria snapshot on its own tab, driven through benches/playwright_peer.js."""

    def __init__(self, module, endpoint):
        self.p = subprocess.Popen(["node", os.path.join(HERE, "playwright_peer.js"), endpoint],
                                  env=dict(os.environ, PLAYWRIGHT_CORE=module), text=True,
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.ask(None)

    def ask(self, line):
        if line is not None:
            self.p.stdin.write(line + "\n")
            self.p.stdin.flush()
        out = json.loads(self.p.stdout.readline() or '{"ok": false, "error": "peer exited"}')
        if not out.get("ok"):
            raise RuntimeError(f"playwright peer: {out.get('error')}")
        return out

    def goto(self, url):
        self.ask(f"goto {url}")

    def snapshot(self, interactive, keep=None):
        try:
            out = self.ask(f"snap {keep}" if keep else "snap")
        except RuntimeError as e:
            return 0.0, False, None, {}, [str(e)]
        return out["ms"] / 1e3, True, out["bytes"], {}, []

    def close(self):
        try:
            self.ask("close")
        except (RuntimeError, OSError, ValueError):
            pass
        try:
            self.p.wait(10)
        except subprocess.TimeoutExpired:
            self.p.kill()


def print_tokens(tokens_bin, page, elements, takers):
    """One snapshot text of each contestant, its bytes and o200k_base tokens per element, and
    each as a share of Playwright's (`TOKENS`: the `snapshot_tokens` bench binary)."""
    d = tempfile.mkdtemp(prefix="snaptext-")
    try:
        files = {}
        for k, take in takers.items():
            f = os.path.join(d, k.replace(" ", "_") + ".txt")
            take(f)
            if os.path.exists(f):
                files[k] = f
        p = subprocess.run([tokens_bin, *files.values()], capture_output=True, text=True, timeout=300)
        counts = {json.loads(l)["file"]: json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")}
        got = {k: counts[f] for k, f in files.items() if f in counts}
        pw = got.get("playwright")
        for k, c in got.items():
            line = (f"  text {k:17s} {c['bytes'] / max(elements, 1):5.1f} B/element "
                    f"{c['tokens'] / max(elements, 1):5.2f} tokens/element")
            if pw and k != "playwright":
                line += f"  x{c['bytes'] / pw['bytes']:.2f} bytes, x{c['tokens'] / pw['tokens']:.2f} tokens of playwright's"
            print(line, flush=True)
        if p.returncode != 0:
            print(f"  tokens: {p.stderr.strip()}", flush=True)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def fmt_range(v):
    return f"{statistics.median(v):.2f} ({min(v):.2f}-{max(v):.2f})"


def main():
    # A `timeout` around the script sends SIGTERM: clean up (browser, daemons) as on any exit.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pages", default="login,large5k,large20k,iframes,oopif")
    ap.add_argument("--no-agent-browser", action="store_true")
    ap.add_argument("--six", default="large20k",
                    help="pages to snapshot six times in a row for the daemon memory figures")
    a = ap.parse_args()
    ours_bin = os.environ.get("OURS", os.path.join(HERE, "..", "target", "release", "actionbook"))
    ab_bin = None if a.no_agent_browser else os.environ.get("AGENT_BROWSER")
    base_bin = os.environ.get("BASELINE")
    tokens_bin = os.environ.get("TOKENS")

    fixtures = tempfile.mkdtemp(prefix="snapfx-")
    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=fixtures))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    subprocess.run([sys.executable, os.path.join(KIT, "gen_fixtures.py"), fixtures, "--child-port", str(port)],
                   check=True, capture_output=True)
    subprocess.run([sys.executable, os.path.join(HERE, "gen_large.py"), fixtures, "100000", "300000"],
                   check=True, capture_output=True)

    udd = tempfile.mkdtemp(prefix="cmp-udd-")
    cdp_port = 9600 + os.getpid() % 300
    browser = subprocess.Popen([WRAPPER, "--headless=new", f"--remote-debugging-port={cdp_port}",
                                f"--user-data-dir={udd}", "about:blank"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tools = []
    try:
        version = None
        for _ in range(200):
            try:
                version = json.load(urllib.request.urlopen(f"http://127.0.0.1:{cdp_port}/json/version"))
                break
            except OSError:
                time.sleep(0.05)
        endpoint = f"http://127.0.0.1:{cdp_port}"
        ours = Ours(ours_bin, endpoint)
        tools.append(ours)
        base = None
        if base_bin:
            base = Ours(base_bin, endpoint)
            # `browser start --cdp-endpoint` adopts the first tab: give the baseline its own.
            out = run([base_bin, "browser", "new-tab", "about:blank", "--session", base.sid, "--json"], base.env)[1]
            base.tid = json.loads(out.stdout)["context"]["tab_id"]
            tools.append(base)
        # The floor's tab before agent-browser's: agent-browser follows the newest tab.
        floor = Floor(Cdp(version["webSocketDebuggerUrl"]))
        pw_module = os.environ.get("PLAYWRIGHT_CORE")
        playwright = Playwright(pw_module, endpoint) if pw_module else None
        if playwright:
            tools.append(playwright)
        ab = AgentBrowser(ab_bin, cdp_port, "about:blank") if ab_bin else None
        if ab:
            tools.append(ab)
        print(f"# {time.strftime('%Y-%m-%d')} {os.uname().nodename} {os.cpu_count()} cores, "
              f"{version.get('Browser')}, rounds {a.rounds}", flush=True)
        for name in a.pages.split(","):
            url = f"http://127.0.0.1:{port}/{name}.html"
            floor.goto(url)
            ours.goto(url, floor.elements)
            if base:
                base.goto(url, floor.elements)
            if playwright:
                playwright.goto(url)
            if ab:
                ab.goto(url)
            runs = {"floor": lambda: (floor.measure(), True, None, {}, [])}
            runs["ours"] = lambda: ours.snapshot(False)
            runs["ours -i"] = lambda: ours.snapshot(True)
            if base:
                runs["baseline"] = lambda: base.snapshot(False)
                runs["baseline -i"] = lambda: base.snapshot(True)
            if playwright:
                runs["playwright"] = lambda: playwright.snapshot(False)
            if ab:
                runs["agent-browser"] = lambda: ab.snapshot(False)
                runs["agent-browser -i"] = lambda: ab.snapshot(True)
            for k in runs:  # warm-up
                runs[k]()
            if tokens_bin:
                print_tokens(tokens_bin, name, floor.elements, {
                    "ours": lambda f: ours.snapshot(False, f),
                    "ours -i": lambda f: ours.snapshot(True, f),
                    **({"playwright": lambda f: playwright.snapshot(False, f)} if playwright else {}),
                    **({"agent-browser": lambda f: ab.snapshot(False, f),
                        "agent-browser -i": lambda f: ab.snapshot(True, f)} if ab else {}),
                })
            pages = json.load(urllib.request.urlopen(f"{endpoint}/json/list"))
            tabs = sum(1 for t in pages if t["type"] == "page" and t["url"] == url)
            if tabs != 1 + len(tools):
                print(f"  warning: {tabs} tabs show {url}, expected {1 + len(tools)}", flush=True)
            res = {k: [] for k in runs}
            keys = list(runs)
            for r in range(a.rounds):
                order = keys[r % len(keys):] + keys[: r % len(keys)]
                for k in order:
                    res[k].append(runs[k]())
            floor_t = [x[0] for x in res["floor"]]
            print(f"{name}: {floor.elements} elements, {len(floor.frames)} frames; "
                  f"floor median {statistics.median(floor_t) * 1e3:.0f} ms", flush=True)
            for k in keys[1:]:
                ok = [x for x in res[k] if x[1]]
                if len(ok) < len(res[k]):
                    print(f"  {k}: {len(res[k]) - len(ok)} of {len(res[k])} failed: {res[k][0][4]}")
                if not ok:
                    continue
                ratios = [x[0] / f for x, f in zip(res[k], floor_t) if x[1]]
                sizes = [x[2] for x in ok if x[2]]
                line = (f"  {k:17s} {statistics.median([x[0] for x in ok]) * 1e3:7.0f} ms  "
                        f"ratio {fmt_range(ratios)}")
                if sizes:
                    line += f"  {statistics.median(sizes) / max(floor.elements, 1):.1f} B/element"
                mems = [x[3] for x in ok if x[3]]
                if mems:
                    line += (f"  daemon RSS after {max(m.get('VmRSS', 0) for m in mems):.1f} MB,"
                             f" peak {max(m.get('VmHWM', 0) for m in mems):.1f} MB")
                print(line, flush=True)
        for name in [p for p in a.six.split(",") if p]:
            # The memory figure: a fresh daemon (its own ACTIONBOOK_HOME) on its own tab takes six
            # snapshots in a row; VmRSS right after the last, and the highest VmHWM of the six
            # (each reset before its snapshot).
            fresh = Ours(ours_bin, endpoint)
            out = run([ours_bin, "browser", "new-tab", "about:blank", "--session", fresh.sid, "--json"],
                      fresh.env)[1]
            fresh.tid = json.loads(out.stdout)["context"]["tab_id"]
            fresh.goto(f"http://127.0.0.1:{port}/{name}.html")
            peaks = []
            mem = {}
            for _ in range(6):
                _, ok, _, mem, tail = fresh.snapshot(False)
                peaks.append(mem.get("VmHWM", 0))
                if not ok:
                    print(f"  {name}: snapshot failed: {tail}", flush=True)
            print(f"fresh daemon, six {name} snapshots: VmRSS after the last {mem.get('VmRSS', 0):.1f} MB, "
                  f"peak during them {max(peaks):.1f} MB", flush=True)
            fresh.close()
    finally:
        for t in tools:
            try:
                t.close()
            except Exception:
                pass
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        server.shutdown()
        shutil.rmtree(udd, ignore_errors=True)
        shutil.rmtree(fixtures, ignore_errors=True)


if __name__ == "__main__":
    main()
