/**
 * `wasi:random`: secure, insecure and seed randomness, all from the Web Crypto source.
 *
 * @module
 */

/**
 * The most bytes one `get-random-bytes` call returns (16 MiB, 10-50 ms of
 * the thread): it cannot return fewer than asked, and it runs in one go, so
 * a larger ask traps (preview 1's `random_get` on our binding fills any
 * size, a chunk a turn; behind jco's adapter it is one such call).
 */
export const MAX_RANDOM_BYTES = 16 * 2 ** 20;

function bytes(len: bigint): Uint8Array {
  if (len > MAX_RANDOM_BYTES) {
    throw new Error(
      `get-random-bytes asked for ${len} bytes: at most ${MAX_RANDOM_BYTES} a call`,
    );
  }
  const out = new Uint8Array(Number(len));
  for (let i = 0; i < out.length; i += 65536) crypto.getRandomValues(out.subarray(i, i + 65536));
  return out;
}

function u64(): bigint {
  return new DataView(bytes(8n).buffer).getBigUint64(0);
}

/** Builds the `wasi:random/*` interfaces. */
export function randomInterfaces(): Record<string, unknown> {
  return {
    "wasi:random/random": { getRandomBytes: bytes, getRandomU64: u64 },
    "wasi:random/insecure": { getInsecureRandomBytes: bytes, getInsecureRandomU64: u64 },
    "wasi:random/insecure-seed": { insecureSeed: () => [u64(), u64()] },
  };
}
