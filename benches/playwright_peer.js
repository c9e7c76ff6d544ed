#!/usr/bin/env node
// Playwright's in-page aria snapshot (`page.ariaSnapshot({mode: 'ai'})`, the library, no CLI hop) as
// a peer for benches/snapshot_compare.py: connects over CDP to the bench's browser, opens its own
// tab, then answers one line per request on stdin:
//   goto URL   -> {"ok": true}
//   snap       -> {"ok": true, "ms": <time inside this process>, "bytes": <snapshot size>}
//   snap PATH  -> the same, the text also written to PATH
// PLAYWRIGHT_CORE names the installed package (e.g. /tmp/pw/node_modules/playwright-core).
const readline = require("readline");
const pw = require(process.env.PLAYWRIGHT_CORE || "playwright-core");

async function main() {
  const browser = await pw.chromium.connectOverCDP(process.argv[2]);
  const context = browser.contexts()[0] || (await browser.newContext());
  const page = await context.newPage();
  const reply = (o) => process.stdout.write(JSON.stringify(o) + "\n");
  reply({ ok: true });
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    try {
      if (line.startsWith("goto ")) {
        await page.goto(line.slice(5), { waitUntil: "load", timeout: 600000 });
        reply({ ok: true });
      } else if (line === "snap" || line.startsWith("snap ")) {
        const t = process.hrtime.bigint();
        const text = await page.ariaSnapshot({ mode: "ai", timeout: 600000 });
        const ms = Number(process.hrtime.bigint() - t) / 1e6;
        if (line.startsWith("snap ")) require("fs").writeFileSync(line.slice(5), text);
        reply({ ok: true, ms, bytes: Buffer.byteLength(text) });
      } else if (line === "close") {
        await page.close();
        reply({ ok: true });
        break;
      }
    } catch (e) {
      reply({ ok: false, error: String(e).split("\n")[0] });
    }
  }
  // Disconnects; the browser belongs to the bench.
  await browser.close();
}

main().catch((e) => {
  process.stdout.write(JSON.stringify({ ok: false, error: String(e) }) + "\n");
  process.exit(1);
});
