#!/usr/bin/env python3
"""`browser title` round trips of our CLI and of the reference Actionbook CLI 1.6, in the same run.

Each CLI gets its own ACTIONBOOK_HOME and headless Chromium (the shared bench wrapper); both open the
same page served here on 127.0.0.1 and are left to settle. Then whole CLI processes are timed,
alternating one call of ours with one of the reference's, so both see the same machine state (a
freshly started Chromium and a busy 2-core machine drift by a millisecond or more within seconds).

    cargo build-cli          # the release binary, statically linked (see .cargo/config.toml)
    npm install --prefix /tmp/refcli @actionbookdev/cli-linux-x64-gnu@1.6.0
    OURS=target/release/actionbook \
    REFERENCE=/tmp/refcli/node_modules/@actionbookdev/cli-linux-x64-gnu/bin/actionbook \
    python3 benches/compare_reference_cli.py

Also times `--version` of each (process start-up alone) and a no-op process, the floor of any CLI.
Prints medians per round and their ratio (ours / reference); compare ratios, not absolute times.
"""
import http.server
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

PAGE = b"<!doctype html><html><head><title>Bench</title></head><body><h1>Bench</h1><input aria-label=Name><button>Go</button></body></html>"
WRAPPER = os.environ.get("BROWSER", os.path.join(os.path.dirname(__file__), "..", "..", "shared", "bench", "chromium-wrap"))
ROUNDS, CALLS, SETTLE_S = 3, 100, 10


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


class Cli:
    """One CLI with its own home, daemon and browser session."""

    def __init__(self, binary):
        self.binary = binary
        self.home = tempfile.mkdtemp()
        self.env = dict(os.environ, ACTIONBOOK_HOME=self.home,
                        ACTIONBOOK_BROWSER_EXECUTABLE_PATH=os.path.abspath(WRAPPER),
                        ACTIONBOOK_BROWSER_HEADLESS="true")
        self.sid = None

    def run(self, *args):
        return subprocess.run([self.binary, *args], env=self.env, capture_output=True, text=True, timeout=120)

    def open(self, url):
        self.sid = json.loads(self.run("browser", "start", "--headless", "--json").stdout)["context"]["session_id"]
        self.run("browser", "goto", url, "--session", self.sid, "--tab", "t1")

    def title_args(self):
        return [self.binary, "browser", "title", "--session", self.sid, "--tab", "t1"]

    def close(self):
        if self.sid:
            self.run("browser", "close", "--session", self.sid)
        pid_file = os.path.join(self.home, "daemon.pid")
        if os.path.exists(pid_file):
            try:
                os.kill(int(open(pid_file).read().split()[0]), signal.SIGTERM)
            except (ValueError, OSError):
                pass


def timed(args, env):
    t = time.perf_counter()
    subprocess.run(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


def alternate(a_args, a_env, b_args, b_env):
    """Medians of CALLS alternating runs of a and b."""
    ta, tb = [], []
    for _ in range(CALLS):
        ta.append(timed(a_args, a_env))
        tb.append(timed(b_args, b_env))
    return statistics.median(ta), statistics.median(tb)


def main():
    ours_bin, ref_bin = os.environ.get("OURS"), os.environ.get("REFERENCE")
    if not ours_bin or not ref_bin:
        sys.exit("set OURS and REFERENCE to the two actionbook binaries (see the module doc)")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/page.html"
    ours, ref = Cli(ours_bin), Cli(ref_bin)
    try:
        ours.open(url)
        ref.open(url)
        for cli in (ours, ref):
            out = cli.run(*cli.title_args()[1:]).stdout
            if "Bench" not in out:
                sys.exit(f"{cli.binary}: unexpected title output {out!r}")
        time.sleep(SETTLE_S)  # a fresh Chromium is busy for a few seconds; measure it idle
        a, b = alternate(["/bin/true"], ours.env, [ours_bin, "--version"], ours.env)
        c, d = alternate([ours_bin, "--version"], ours.env, [ref_bin, "--version"], ref.env)
        print(f"process start-up: no-op {a:.2f} ms, ours --version {b:.2f} ms, reference --version {d:.2f} ms")
        ratios = []
        for r in range(ROUNDS):
            a, b = alternate(ours.title_args(), ours.env, ref.title_args(), ref.env)
            ratios.append(a / b)
            print(f"round {r + 1}: browser title: ours {a:.2f} ms, reference {b:.2f} ms, ratio {a / b:.2f}")
        print(f"median ratio {statistics.median(ratios):.2f}")
    finally:
        ours.close()
        ref.close()
        server.shutdown()


if __name__ == "__main__":
    main()
