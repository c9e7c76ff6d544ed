#!/usr/bin/env python3
"""Large fixture pages beyond the bench kit's 20k: the same sections as `gen_fixtures.py` builds
(nested lists, a table, a form, aria widgets, a cursor:pointer card; about 101 elements each).

Usage: gen_large.py OUTDIR [ELEMENTS ...]     (default: 100000 300000)
Writes OUTDIR/large100k.html, OUTDIR/large300k.html, ... (name from the element count).
Deterministic: the same count always gives the same page.
"""
import os
import random
import sys

WORDS = ("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike "
         "november oscar papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu").split()

HEAD = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{title}</title>
<style>body{{font-family:sans-serif}} .clickable{{cursor:pointer}} table{{border-collapse:collapse}} td,th{{border:1px solid #ccc;padding:2px}}</style>
</head><body>"""


def w(rng, n=2):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def block(rng, k):
    p = [f'<section id="s{k}" aria-labelledby="h{k}"><h2 id="h{k}">Section {k} {w(rng)}</h2>']
    p.append(f'<nav aria-label="Section {k} nav">' + "".join(
        f'<a href="/p/{k}/{j}">{w(rng)} {j}</a> ' for j in range(8)) + "</nav>")
    p.append("<ul>")
    for i in range(4):
        p.append(f'<li><a href="/l/{k}/{i}">{w(rng, 3)}</a><ul>')
        for j in range(3):
            p.append(f"<li><span>{w(rng)} {k}.{i}.{j}</span></li>")
        p.append("</ul></li>")
    p.append("</ul>")
    p.append(f'<table aria-label="Table {k}"><thead><tr><th>Name</th><th>Value</th><th>Action</th></tr></thead><tbody>')
    for r in range(5):
        p.append(f"<tr><td>{w(rng)}</td><td>{rng.randint(0, 99999)}</td>"
                 f'<td><button type="button" data-row="{k}-{r}">Edit {k}-{r}</button></td></tr>')
    p.append("</tbody></table>")
    p.append(f'<form onsubmit="return false"><label for="in{k}">Field {k}</label><input id="in{k}" type="text" value="{w(rng)}">'
             f'<label for="em{k}">Email {k}</label><input id="em{k}" type="email">'
             f'<label><input type="checkbox" name="c{k}"> Opt {k}</label>'
             f'<select aria-label="Choice {k}"><option>one</option><option>two</option><option>three</option></select>'
             f'<button type="submit">Save {k}</button></form>')
    p.append(f'<div role="tablist" aria-label="Tabs {k}">' + "".join(
        f'<div role="tab" tabindex="0" aria-selected="{str(t == 0).lower()}">Tab {k}.{t}</div>' for t in range(3)) + "</div>")
    p.append(f'<div role="tabpanel"><p>{w(rng, 8)}</p></div>')
    p.append(f'<div role="menu" aria-label="Menu {k}"><div role="menuitem" tabindex="-1">Open {k}</div>'
             f'<div role="menuitem" tabindex="-1">Close {k}</div></div>')
    p.append(f'<div class="clickable" onclick="void 0">Card {k} {w(rng)}</div>')
    p.append("</section>")
    return "".join(p)


def large(out, target):
    rng = random.Random(target)
    parts = [HEAD.format(title=f"Large {target}"),
             '<header><h1>Large fixture</h1><button id="target-btn" type="button">Click me</button>'
             '<input id="target-input" aria-label="Target input"></header><main>']
    for k in range(max(1, (target - 20) // 101)):
        parts.append(block(rng, k))
    parts.append("</main></body></html>")
    name = f"large{target // 1000}k.html" if target % 1000 == 0 else f"large{target}.html"
    with open(os.path.join(out, name), "w") as f:
        f.write("".join(parts))
    return name


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    os.makedirs(sys.argv[1], exist_ok=True)
    for n in (sys.argv[2:] or ["100000", "300000"]):
        print(large(sys.argv[1], int(n)))
