import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { declaredCharset, decodePage, PageTooLargeError, readPage } from "../../../server/ingest/extract/charset.js";
import { extractProduct } from "../../../server/ingest/extract/index.js";
import { extractFixture, fixturePath } from "./helpers.js";

const MiB = 1024 * 1024;

let work: string;
beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), "extract-charset-"));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe("reading pages", () => {
  it("decodes windows-1252 declared by <meta http-equiv=Content-Type>, including its 0x80–0x9F characters", () => {
    const record = extractFixture("charset-windows-1252.html");
    expect(record.name).toBe("Crème brûlée torch – “Pro”");
    expect(record.price_label).toBe("€24.90");
  });

  it("decodes Shift_JIS declared by <meta charset>", () => {
    const record = extractFixture("charset-shift-jis.html");
    expect(record.name).toBe("常滑焼の急須");
    expect(record.offers).toMatchObject({ price: "3500", currency: "JPY" });
  });

  it("honours a UTF-8 or UTF-16 byte-order mark", () => {
    expect(extractFixture("bom-utf8.html").name).toBe("Ünïcode Mug");
    expect(extractFixture("bom-utf16le.html").name).toBe("Ünïcode Mug");
  });

  it("falls back to windows-1252 when undeclared bytes are not UTF-8", () => {
    expect(decodePage(new Uint8Array([0x3c, 0x70, 0x3e, 0x93, 0x61, 0x94]))).toBe("<p>“a”");
    expect(declaredCharset(new TextEncoder().encode('<meta charset="ISO-8859-2">'))).toBe("iso-8859-2");
  });

  it("reads .html.gz and .htm files", async () => {
    const html = await readPage(fixturePath("jsonld-basic.html"), MiB);
    const gz = join(work, "kettle.html.gz");
    await writeFile(gz, gzipSync(Buffer.from(html)));
    expect(await readPage(gz, MiB)).toBe(html);
    const htm = join(work, "kettle.htm");
    await writeFile(htm, html);
    expect(await readPage(htm, MiB)).toBe(html);
  });

  it("refuses a page over the cap, before or after gunzip, naming the setting (issue 12)", async () => {
    const big = join(work, "big.html");
    await writeFile(big, `<html><body>${"x".repeat(300 * 1024)}</body></html>`);
    await expect(readPage(big, 256 * 1024)).rejects.toThrow(/^page is 300 KiB, larger than IMPORT_MAX_PAGE_BYTES \(256 KiB\)$/);
    const bomb = join(work, "bomb.html.gz");
    await writeFile(bomb, gzipSync(Buffer.alloc(4 * MiB, 0x20)));
    await expect(readPage(bomb, MiB)).rejects.toBeInstanceOf(PageTooLargeError);
    await expect(readPage(bomb, MiB)).rejects.toThrow(/larger than IMPORT_MAX_PAGE_BYTES \(1 MiB\)/);
  });

  it("extracts a 10 MB page in reasonable time, with a much smaller stripped HTML", async () => {
    const row = `<div class="review"><p style="color:red" data-x="1">A long review paragraph with <b>markup</b> &amp; entities.</p><script>track(1)</script></div>\n`;
    const filler = row.repeat(Math.ceil((10 * 1024 * 1024) / row.length));
    const html = `<!doctype html><html><head><meta charset="utf-8"><link rel="canonical" href="https://big.example/p">
      <script type="application/ld+json">{"@type":"Product","name":"Big Page Lamp","sku":"BIG-1","offers":{"price":"12.00","priceCurrency":"USD"}}</script>
      </head><body><h1>Big Page Lamp</h1>${filler}</body></html>`;
    expect(html.length).toBeGreaterThan(10 * 1024 * 1024);
    const path = join(work, "big.html.gz");
    await writeFile(path, gzipSync(Buffer.from(html)));
    const started = performance.now();
    const result = extractProduct(await readPage(path, 11 * MiB));
    const seconds = (performance.now() - started) / 1000;
    if (!result.ok) expect.fail(result.error);
    expect(result.record).toMatchObject({ name: "Big Page Lamp", offers: { price: "12", currency: "USD" }, identifiers: { sku: "BIG-1" } });
    expect(result.record.raw_data.strippedHtml!.length).toBeLessThan(html.length * 0.6);
    expect(seconds).toBeLessThan(20);
  });
});
