import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import type { ExtractedRecord } from "../../../server/ingest/extract/index.js";
import { ImportRecordSchema } from "../../../server/ingest/record.js";
import { extractFixture, FIXTURES } from "./helpers.js";
import { readdirSync } from "node:fs";

describe("extracted records", () => {
  it("are assignable to the importer's input type", () => {
    expectTypeOf<ExtractedRecord>().toExtend<z.input<typeof ImportRecordSchema>>();
  });

  it.each(readdirSync(FIXTURES).filter((name) => !/^no-|^visible-only|^jsonld-graph/.test(name)))("%s passes the import schema", (name) => {
    const parsed = ImportRecordSchema.safeParse(extractFixture(name));
    expect(parsed.success, parsed.success ? "" : parsed.error.message).toBe(true);
  });

  it("leaves offers and identifiers out when the page states none of their members", () => {
    const record = extractFixture("bom-utf8.html");
    expect(record.offers).toBeUndefined();
    expect(record.identifiers).toBeUndefined();
    expect(record.price_label).toBe("");
  });

  it("strips scripts, styles, comments, SVG and non-content attributes, keeping structure", () => {
    const { strippedHtml } = extractFixture("jsonld-basic.html").raw_data;
    expect(strippedHtml).toContain("<title>Trail Kettle 1.2 L | Ember &amp; Pine</title>");
    expect(strippedHtml).toContain("<h1>Trail Kettle 1.2 L</h1>");
    expect(strippedHtml).toContain("<p>Boils in four minutes.</p>");
    expect(strippedHtml).toContain('<a href="/">Home</a>');
    for (const gone of ["<script", "<style", "<!--", "<svg", "onclick", "style=", "data-track", "class="]) expect(strippedHtml).not.toContain(gone);
  });
});
