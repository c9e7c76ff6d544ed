#!/usr/bin/env python3
"""Issue 18's performance figures, as whole CLI round trips on one headless Chromium:

- `browser snapshot --diff` after one node changed (a click relabels the page's target button)
  against a plain `browser snapshot` of the same page, time and bytes (the snapshot file and the
  JSON answer), per round;
- `browser snapshot --page 2` of a snapshot cut with `--max-bytes` (served from the kept
  revision, no capture): CLI round trip and the daemon's own `meta.duration_ms`.

Rounds interleave the measurements so they see the same machine state; ratios are per round and
reported as median and range.

    cargo build-cli
    OURS=target/release/actionbook python3 benches/snapshot_diff.py [--rounds 5] [--pages large20k]

Pages come from `../shared/bench/gen_fixtures.py`; the browser is the kit's `chromium-wrap`.
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

from benchkit import find_kit

HERE = os.path.dirname(os.path.abspath(__file__))

KIT = find_kit()


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


class Cli:
    def __init__(self, binary):
        self.bin = binary
        self.home = tempfile.mkdtemp(prefix="snapdiff-home-")
        self.env = dict(os.environ, ACTIONBOOK_HOME=self.home,
                        ACTIONBOOK_BROWSER_EXECUTABLE_PATH=os.path.join(KIT, "chromium-wrap"))
        self.t = []

    def run(self, *args):
        started = time.perf_counter()
        p = subprocess.run([self.bin, *args, *self.t, "--json"], env=self.env,
                           capture_output=True, text=True, timeout=300)
        took = time.perf_counter() - started
        v = json.loads(p.stdout)
        if not v.get("ok"):
            raise RuntimeError(f"{args}: {p.stdout}")
        return took, v, len(p.stdout.encode())

    def start(self, url):
        _, v, _ = self.run("browser", "start", "--headless", "--open-url", url)
        self.t = ["--session", v["context"]["session_id"], "--tab", "t1"]

    def rss_mb(self):
        try:
            pid = int(open(os.path.join(self.home, "daemon.pid")).read().split()[0])
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        except (OSError, ValueError, IndexError):
            pass
        return float("nan")

    def close(self):
        subprocess.run([self.bin, "browser", "close", *self.t[:2]], env=self.env,
                       capture_output=True, timeout=60)
        try:
            pid = int(open(os.path.join(self.home, "daemon.pid")).read().split()[0])
            os.kill(pid, 15)
        except (OSError, ValueError, IndexError):
            pass
        shutil.rmtree(self.home, ignore_errors=True)


def file_bytes(v):
    return os.path.getsize(v["data"]["path"])


def rng(values, fmt="{:.3f}"):
    return f"{fmt.format(statistics.median(values))} ({fmt.format(min(values))}-{fmt.format(max(values))})"


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--pages", default="large20k")
    ap.add_argument("--budget", type=int, default=20000)
    a = ap.parse_args()
    ours = os.environ.get("OURS", os.path.join(HERE, "..", "target", "release", "actionbook"))
    fixtures = tempfile.mkdtemp(prefix="snapdiff-fx-")
    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=fixtures))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    subprocess.run([sys.executable, os.path.join(KIT, "gen_fixtures.py"), fixtures,
                    "--child-port", str(port)], check=True, capture_output=True)
    print(f"# {time.strftime('%Y-%m-%d')} {os.uname().nodename} {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f}, rounds {a.rounds}", flush=True)
    for name in a.pages.split(","):
        cli = Cli(ours)
        try:
            cli.start(f"http://127.0.0.1:{port}/{name}.html")
            cli.run("browser", "snapshot")  # warm-up: frame graph attached
            res = {k: [] for k in ("full_s", "diff_s", "file_ratio", "json_ratio", "page2_s",
                                   "page2_ms", "full_file", "diff_file", "changed")}
            for r in range(a.rounds):
                # Full, then one change, then the diff: the diff's base is the full snapshot.
                full_s, full, full_json = cli.run("browser", "snapshot")
                cli.run("browser", "click", "#target-btn")
                diff_s, diff, diff_json = cli.run("browser", "snapshot", "--diff")
                d = diff["data"]
                res["full_s"].append(full_s)
                res["diff_s"].append(diff_s)
                res["full_file"].append(file_bytes(full))
                res["diff_file"].append(file_bytes(diff))
                res["file_ratio"].append(file_bytes(diff) / file_bytes(full))
                res["json_ratio"].append(diff_json / full_json)
                res["changed"].append((d.get("added"), d.get("removed"), d.get("changed")))
                cli.run("browser", "snapshot", "--max-bytes", str(a.budget))
                p2_s, p2, _ = cli.run("browser", "snapshot", "--page", "2")
                res["page2_s"].append(p2_s)
                res["page2_ms"].append(p2["meta"]["duration_ms"])
            ratios = [d / f for d, f in zip(res["diff_s"], res["full_s"])]
            print(f"{name}: full {rng(res['full_s'])} s, diff {rng(res['diff_s'])} s, "
                  f"diff/full time {rng(ratios, '{:.2f}')}", flush=True)
            print(f"  bytes: full file {statistics.median(res['full_file']):.0f}, diff file "
                  f"{statistics.median(res['diff_file']):.0f}; diff/full file {rng(res['file_ratio'], '{:.5f}')}, "
                  f"diff/full JSON answer {rng(res['json_ratio'], '{:.5f}')}; "
                  f"(added, removed, changed) {res['changed'][0]}", flush=True)
            print(f"  --page 2: round trip {rng(res['page2_s'])} s, daemon {rng(res['page2_ms'], '{:.0f}')} ms",
                  flush=True)
            # The kept revisions cost memory: the daemon's VmRSS after six more plain snapshots.
            for _ in range(6):
                cli.run("browser", "snapshot")
            print(f"  daemon VmRSS after six more snapshots (revisions kept): {cli.rss_mb():.1f} MB",
                  flush=True)
        finally:
            cli.close()
    server.shutdown()
    shutil.rmtree(fixtures, ignore_errors=True)


if __name__ == "__main__":
    main()
