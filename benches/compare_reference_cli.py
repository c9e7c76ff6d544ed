#!/usr/bin/env python3
"""`browser title` round trips of our CLI and of the reference Actionbook CLI 1.6, in the same run.

Each CLI gets its own ACTIONBOOK_HOME and headless Chromium (the shared bench wrapper), opens the same
page served here on 127.0.0.1, waits for the browser to settle, then times whole CLI processes.

    cargo build --release -p actionbook-cli --bin actionbook
    npm install --prefix /tmp/refcli @actionbookdev/cli-linux-x64-gnu@1.6.0
    OURS=target/release/actionbook \
    REFERENCE=/tmp/refcli/node_modules/@actionbookdev/cli-linux-x64-gnu/bin/actionbook \
    python3 benches/compare_reference_cli.py

Prints the medians per round and their ratio (ours / reference); compare ratios, not absolute times.
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
ROUNDS, CALLS, SETTLE_S = 3, 80, 10


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def median_title_ms(binary, url):
    home = tempfile.mkdtemp()
    env = dict(os.environ, ACTIONBOOK_HOME=home, ACTIONBOOK_BROWSER_EXECUTABLE_PATH=os.path.abspath(WRAPPER),
               ACTIONBOOK_BROWSER_HEADLESS="true")

    def run(*args):
        return subprocess.run([binary, *args], env=env, capture_output=True, text=True, timeout=120)

    sid = json.loads(run("browser", "start", "--headless", "--json").stdout)["context"]["session_id"]
    try:
        run("browser", "goto", url, "--session", sid, "--tab", "t1")
        time.sleep(SETTLE_S)  # a fresh Chromium is busy for a few seconds; measure it idle
        out = run("browser", "title", "--session", sid, "--tab", "t1").stdout
        if "Bench" not in out:
            sys.exit(f"{binary}: unexpected title output {out!r}")
        times = []
        for _ in range(CALLS):
            t = time.perf_counter()
            run("browser", "title", "--session", sid, "--tab", "t1")
            times.append(time.perf_counter() - t)
        return statistics.median(times) * 1000
    finally:
        run("browser", "close", "--session", sid)
        pid_file = os.path.join(home, "daemon.pid")
        if os.path.exists(pid_file):
            try:
                os.kill(int(open(pid_file).read().split()[0]), signal.SIGTERM)
            except (ValueError, OSError):
                pass


def main():
    ours, reference = os.environ.get("OURS"), os.environ.get("REFERENCE")
    if not ours or not reference:
        sys.exit("set OURS and REFERENCE to the two actionbook binaries (see the module doc)")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/page.html"
    for r in range(ROUNDS):
        a, b = median_title_ms(ours, url), median_title_ms(reference, url)
        print(f"round {r + 1}: ours {a:.2f} ms, reference {b:.2f} ms, ratio {a / b:.2f}")
    server.shutdown()


if __name__ == "__main__":
    main()
