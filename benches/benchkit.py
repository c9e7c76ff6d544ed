"""What the bench scripts share: where the bench kit (`shared/bench` of the workplace) is."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def find_kit():
    """The bench kit: $BENCH_KIT, else the first `shared/bench` above this file."""
    if os.environ.get("BENCH_KIT"):
        return os.environ["BENCH_KIT"]
    d = HERE
    while d != os.path.dirname(d):
        d = os.path.dirname(d)
        if os.path.exists(os.path.join(d, "shared", "bench", "gen_fixtures.py")):
            return os.path.join(d, "shared", "bench")
    sys.exit("bench kit (shared/bench/gen_fixtures.py) not found: set BENCH_KIT")
