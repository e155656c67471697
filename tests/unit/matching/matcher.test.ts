import { describe, expect, it } from "vitest";
import { assignGroups } from "../../../server/matching/assign.js";
import { brandKey, type MatchInput, matchKeys, modelCodes } from "../../../server/matching/keys.js";
import { matchRecords } from "../../../server/matching/match.js";
import { idfOver, judgePair, pairFeatures } from "../../../server/matching/score.js";
import { loadMatchSettings, MatchSettingsSchema } from "../../../server/matching/settings.js";

const settings = loadMatchSettings();
const input = (id: string, merchant: string, name: string, extra: Partial<MatchInput> = {}): MatchInput => ({
  id,
  merchant,
  name,
  brand: null,
  gtin14: null,
  mpn: null,
  vector: null,
  ...extra,
});

describe("model codes", () => {
  it("spells a code the one way, whatever its hyphens, slashes and spaces", () => {
    expect(modelCodes("Panasonic KX-TGA670B Cordless Handset", settings).codes).toContain("kxtga670b");
    expect(modelCodes("Sony Portable DVD Player - DVPFX820/W", settings).codes).toEqual(expect.arrayContaining(["dvpfx820w", "dvpfx820"]));
    expect(modelCodes("Ex Series Earbuds - MDR EX55/WHI", settings).codes).toContain("mdrex55");
  });

  it("reads measures and numbers as no code", () => {
    expect(modelCodes("Transcend 8GB Card 133x 10/100 Switch 4.2 Cu Ft 1080p", settings).codes).toEqual([]);
  });

  it("reads a brand without the words every company name may end with", () => {
    expect(brandKey("LG Electronics", settings)).toBe("lg");
    expect(brandKey("TRANSCEND INFORMATION", settings)).toBe("transcend");
    expect(brandKey("Tech Craft", settings)).toBe("techcraft");
  });
});

describe("pairs", () => {
  const records = [
    input("a1", "abt.example", "Sony White 8' Portable DVD Player - DVPFX820W"),
    input("b1", "buy.example", "Sony DVPFX820 Portable DVD Player - DVPFX820/W", { brand: "Sony" }),
    input("b2", "buy.example", "Panasonic KX-TG9344T Expandable Digital Cordless Phone", { brand: "Panasonic" }),
    input("a2", "abt.example", "Panasonic DECT 6.0 Cordless Phone - KXTG9342T"),
  ];
  const keys = records.map((record) => matchKeys(record, settings));
  const idf = idfOver(keys);

  it("matches the same model code and tells a neighbouring model apart", () => {
    const same = pairFeatures(keys[0]!, keys[1]!, idf, settings);
    expect(same.code_equal).toBe(1);
    expect(same.brand_same).toBe(1);
    const neighbour = pairFeatures(keys[2]!, keys[3]!, idf, settings);
    expect(neighbour.code_equal + neighbour.code_stem).toBe(0);
    expect(neighbour.code_conflict).toBe(1);
  });

  it("decides by GTIN first, in any of its lengths", () => {
    const a = matchKeys(input("x", "m1", "Kettle", { gtin14: "00012345678905" }), settings);
    const b = matchKeys(input("y", "m2", "Toaster", { gtin14: "00012345678905" }), settings);
    const c = matchKeys(input("z", "m2", "Kettle", { gtin14: "04006381333931" }), settings);
    expect(judgePair(a, b, idf, settings)).toEqual({ rule: "gtin", probability: 1 });
    expect(judgePair(a, c, idf, settings).probability).toBe(0);
  });

  it("never matches two makers' products", () => {
    const a = matchKeys(input("x", "m1", "Alpine 2 Tent AT-200", { brand: "NorthPeak" }), settings);
    const b = matchKeys(input("y", "m2", "Alpine 2 Tent AT-200", { brand: "Summit Gear" }), settings);
    expect(judgePair(a, b, idf, settings)).toEqual({ rule: "brands_differ", probability: 0 });
  });

  it("groups the matching records and leaves the others alone", () => {
    const groups = matchRecords(records, settings);
    expect(groups.get("a1")).toBe(groups.get("b1"));
    expect(groups.get("a2")).not.toBe(groups.get("b2"));
  });

  it("never puts two records of one merchant in a group", () => {
    const merchant = (id: string) => id.slice(0, 1);
    const groups = assignGroups(
      [
        { a: "a1", b: "b1", probability: 0.9 },
        { a: "a2", b: "b1", probability: 0.8 },
      ],
      merchant,
      0.5,
    );
    expect(groups.get("a1")).toBe(groups.get("b1"));
    expect(groups.get("a2")).toBe("a2");
  });
});

it("refuses settings that are not of the schema, naming what is wrong", () => {
  const parsed = MatchSettingsSchema.safeParse({ ...settings, threshold: 2 });
  expect(parsed.success).toBe(false);
  expect(parsed.error?.issues[0]?.path).toEqual(["threshold"]);
});
