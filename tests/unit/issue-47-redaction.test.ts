/**
 * Issue 47, finding 2: log redaction looks through percent-encoding. A key
 * whose prefix is encoded (`%70cl_…`), whose `_` is encoded twice (`%255F`),
 * or that is encoded whole, any case, is redacted; the rest of the text is
 * kept as written, so a JSON log line stays JSON.
 */
import { describe, expect, it } from "vitest";
import { generateKey, redactKeys } from "../../server/auth/keys.js";

const { key } = generateKey("dev");
const live = generateKey("prod").key;
const body = key.slice("pcl_test_".length);
/** Every character as a percent escape, `times` times over. */
const encodeAll = (text: string, times = 1): string => {
  let out = [...text].map((char) => `%${char.charCodeAt(0).toString(16).padStart(2, "0")}`).join("");
  for (let round = 1; round < times; round++) out = out.replaceAll("%", "%25");
  return out;
};

describe("issue 47, finding 2: redactKeys is decode-aware", () => {
  const forms: [string, string][] = [
    ["plain", key],
    ["a live key", live],
    ["the prefix percent-encoded", `%70cl_test_${body}`],
    ["the prefix percent-encoded, upper case", `%70CL%5FTEST%5F${body}`],
    ["`_` double-encoded", `pcl%255Ftest%255F${body}`],
    ["`_` double-encoded, lower case", `pcl%255ftest%255f${body}`],
    ["encoded whole", encodeAll(key)],
    ["encoded whole, twice", encodeAll(key, 2)],
    ["encoded whole, three times", encodeAll(key, 3)],
    ["the body encoded", `pcl_test_${encodeAll(body)}`],
    ["encoded past every round looked through", encodeAll(key, 20)],
  ];
  for (const [what, form] of forms) {
    it(`redacts a key ${what}`, () => {
      const line = JSON.stringify({ req: { url: `/api/v1/products/search?q=tent%20red&key=${form}&limit=5`, host: form }, msg: `saw ${form}` });
      const redacted = redactKeys(line);
      expect(redacted).not.toContain(body);
      expect(redacted).not.toContain(encodeAll(body));
      expect(redacted).not.toContain(body.slice(0, 12));
      // Nothing else is touched: the line is still JSON, the other parameters as they were.
      const parsed = JSON.parse(redacted) as { req: { url: string; host: string }; msg: string };
      expect(parsed.req.url).toBe("/api/v1/products/search?q=tent%20red&key=[redacted]&limit=5");
      expect(parsed.req.host).toBe("[redacted]");
      expect(parsed.msg).toBe("saw [redacted]");
    });
  }

  it("leaves text without a key as it is, escapes and all", () => {
    for (const text of ["/api/v1/products/search?q=tent%20red", "100%", "%zz%", "pcl_prod_abc", `${"%25".repeat(3)}41`, "a%5Fb"])
      expect(redactKeys(text)).toBe(text);
  });
});
