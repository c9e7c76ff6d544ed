#!/usr/bin/env python3
"""The daemon's memory (VmRSS from /proc/PID/status) in the four figures issue 42 names:

  idle     one session (a launched headless browser, its tab on the login page), the daemon quiet
  sessions each extra idle session (eight more, each on its own browser), per session
  six 20k  after six snapshots of the 20k page in a row on the first session's tab
  soak     RSS every 100 of 1,000 commands (snapshot, click, fill, eval, title in turn) on the login page

RSS is not a timing: it barely moves with the machine's load, so this runs on a busy machine too.

    cargo build-cli
    OURS=target/release/actionbook python3 benches/daemon_memory.py [--extra 8] [--soak 1000]
"""
import argparse
import functools
import http.server
import json
import os
import shutil
import signal
import socketserver
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


def rss_mb(pid):
    """VmRSS in MB, with its anonymous part (RssAnon: the heap, not the executable's code pages,
    which are file-backed, clean, shared with the page cache and reclaimable) as `.anon`."""
    got = {}
    try:
        for line in open(f"/proc/{pid}/status"):
            k, _, v = line.partition(":")
            if k in ("VmRSS", "RssAnon"):
                got[k] = int(v.split()[0]) / 1024
    except OSError:
        pass
    return Mem(got.get("VmRSS", float("nan")), got.get("RssAnon", float("nan")))


class Mem(float):
    """An RSS figure that prints its anonymous part beside it."""

    def __new__(cls, rss, anon):
        m = super().__new__(cls, rss)
        m.anon = anon
        return m

    def __format__(self, spec):
        return f"{float(self):{spec}} (anon {self.anon:{spec}})"


class Ours:
    def __init__(self, binary):
        self.bin = binary
        self.home = tempfile.mkdtemp(prefix="mem-home-")
        self.env = dict(os.environ, ACTIONBOOK_HOME=self.home,
                        ACTIONBOOK_BROWSER_EXECUTABLE_PATH=os.path.join(KIT, "chromium-wrap"))

    def run(self, *args, check=True):
        p = subprocess.run([self.bin, *args, "--json"], env=self.env, capture_output=True, text=True,
                           timeout=600)
        try:
            out = json.loads(p.stdout)
        except ValueError:
            out = {"ok": False, "error": {"message": (p.stdout + p.stderr)[-300:]}}
        if check and not out.get("ok"):
            sys.exit(f"{' '.join(args)}: {out.get('error')}")
        return out

    def start(self, url):
        out = self.run("browser", "start", "--headless", "--open-url", url)
        return out["context"]["session_id"]

    def pid(self):
        return int(open(os.path.join(self.home, "daemon.pid")).read().split()[0])

    def close(self):
        for s in self.run("browser", "list-sessions", check=False).get("data", {}).get("sessions", []):
            self.run("browser", "close", "--session", s.get("session_id", ""), check=False)
        try:
            os.kill(self.pid(), signal.SIGTERM)
        except (OSError, ValueError):
            pass
        shutil.rmtree(self.home, ignore_errors=True)


def settle(seconds=3):
    """Lets the daemon finish what a command left (the recorder's tail, freed buffers)."""
    time.sleep(seconds)


def main():
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    ap = argparse.ArgumentParser()
    ap.add_argument("--extra", type=int, default=8)
    ap.add_argument("--soak", type=int, default=1000)
    a = ap.parse_args()
    binary = os.environ.get("OURS", os.path.join(HERE, "..", "target", "release", "actionbook"))

    fixtures = tempfile.mkdtemp(prefix="memfx-")
    server = Server(("127.0.0.1", 0), functools.partial(Quiet, directory=fixtures))
    port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    subprocess.run([sys.executable, os.path.join(KIT, "gen_fixtures.py"), fixtures, "--child-port", str(port)],
                   check=True, capture_output=True)
    login = f"http://127.0.0.1:{port}/login.html"
    large = f"http://127.0.0.1:{port}/large20k.html"
    ours = Ours(binary)
    try:
        sid = ours.start(login)
        t = ["--session", sid, "--tab", "t1"]
        ours.run("browser", "title", *t)
        settle()
        pid = ours.pid()
        idle = rss_mb(pid)
        print(f"# {time.strftime('%Y-%m-%d %H:%M')} {os.uname().nodename}, load {os.getloadavg()[0]:.1f}, {binary}")
        print(f"idle, one session: {idle:.1f} MB", flush=True)

        extra = [ours.start(login) for _ in range(a.extra)]
        for s in extra:
            ours.run("browser", "title", "--session", s, "--tab", "t1")
        settle()
        after = rss_mb(pid)
        print(f"{a.extra} more idle sessions: {after:.1f} MB, "
              f"{(float(after) - float(idle)) / max(a.extra, 1):.2f} MB per session, "
              f"anon {(after.anon - idle.anon) / max(a.extra, 1):.2f}", flush=True)
        for s in extra:
            ours.run("browser", "close", "--session", s, check=False)
        settle()
        print(f"after closing them: {rss_mb(pid):.1f} MB", flush=True)

        ours.run("browser", "goto", large, *t, "--timeout", "600000")
        for _ in range(6):
            out = ours.run("browser", "snapshot", *t, "--timeout", "600000")
            path = out.get("data", {}).get("path")
            if path and os.path.exists(path):
                os.remove(path)
        settle()
        print(f"after six 20k snapshots: {rss_mb(pid):.1f} MB", flush=True)
        ours.run("browser", "goto", login, *t)
        settle()
        print(f"back on the login page: {rss_mb(pid):.1f} MB", flush=True)

        snap = ours.run("browser", "snapshot", *t)
        refs = {n.get("name"): n.get("ref") for n in snap.get("data", {}).get("nodes", [])}
        email, remember = refs.get("Email"), refs.get("Remember me")
        if not email or not remember:
            sys.exit(f"the login page's refs are missing: {refs}")
        cycle = [
            ["browser", "snapshot", *t],
            ["browser", "click", f"@{remember}", *t],
            ["browser", "fill", f"@{email}", "ada@example.com", *t],
            ["browser", "eval", "document.title", *t],
            ["browser", "title", *t],
        ]
        readings = []
        for i in range(a.soak):
            out = ours.run(*cycle[i % len(cycle)], check=False)
            if not out.get("ok"):
                print(f"  command {i} failed: {out.get('error')}", flush=True)
            path = out.get("data", {}).get("path")
            if path and os.path.exists(path):
                os.remove(path)
            if (i + 1) % 100 == 0:
                readings.append(rss_mb(pid))
                print(f"  soak {i + 1}: {readings[-1]:.1f} MB", flush=True)
        if readings:
            print(f"soak: {readings[0]:.1f} MB after 100, {readings[-1]:.1f} MB after {a.soak} "
                  f"(growth {float(readings[-1]) - float(readings[0]):+.1f} MB)", flush=True)
    finally:
        ours.close()
        server.shutdown()
        shutil.rmtree(fixtures, ignore_errors=True)


if __name__ == "__main__":
    main()
