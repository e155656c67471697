import { describe, expect, it } from "vitest";
import { base58, generateKey, hashKey, keyFromAuthorization, looksLikeKey } from "../../server/auth/keys.js";

describe("API key format", () => {
  it("hashes with SHA-256 (golden vector pins compatibility with stored hashes)", () => {
    expect(hashKey("pcl_test_abc")).toBe("8f27092d09488243eceb98da24f6bc76a6cdead79b72bad8f5edc4404e5ff5a5");
    expect(hashKey("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  });

  it("encodes base58 like Bitcoin's alphabet, keeping leading zero bytes", () => {
    expect(base58(new Uint8Array([0, 0, 1]))).toBe("112");
    expect(base58(new TextEncoder().encode("hello world"))).toBe("StV1DL6CwTryKyV");
  });

  it("issues prefixed keys with 256 random bits and stores only a hash and a short start", () => {
    const fixed = (bytes: Uint8Array) => bytes.fill(7);
    const prod = generateKey("prod", fixed);
    const dev = generateKey("dev");
    expect(prod.key).toMatch(/^pcl_live_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(dev.key).toMatch(/^pcl_test_/);
    expect(prod.hash).toBe(hashKey(prod.key));
    expect(prod.start).toBe(prod.key.slice(0, 15));
    expect(looksLikeKey(prod.key)).toBe(true);
    expect(generateKey("dev").key).not.toBe(dev.key);
  });

  it("reads the key itself or a Bearer token from Authorization", () => {
    expect(keyFromAuthorization("pcl_test_x")).toBe("pcl_test_x");
    expect(keyFromAuthorization("Bearer pcl_test_x")).toBe("pcl_test_x");
    expect(keyFromAuthorization("bearer   pcl_test_x ")).toBe("pcl_test_x");
    expect(keyFromAuthorization(undefined)).toBeNull();
    expect(keyFromAuthorization("Bearer ")).toBeNull();
    expect(looksLikeKey("pcl_test_short")).toBe(false);
    expect(looksLikeKey("Basic abc")).toBe(false);
  });
});
