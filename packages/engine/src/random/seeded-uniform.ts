import type { Uniform } from "./random-draws.js";

/**
 * `seedrandom(seed)`'s stream (ARC4 keyed by the seed string, its first 256 bytes dropped, 52-bit doubles), the
 * same numbers, for the hot paths that open a stream per product and date (a 100-product plan opens ~27,000). It
 * leaves out what the library adds around the cipher: mixing every new state into its global entropy pool (a
 * 256-character string built and hashed per stream), and keeps the state in a typed array.
 */
export function seededUniform(seed: string): Uniform {
  const key = keyOf(seed);
  const s = new Uint8Array(256);
  for (let k = 0; k < 256; k++) s[k] = k;
  const keyLength = key.length;
  let j = 0;
  for (let k = 0; k < 256; k++) {
    const t = s[k] as number;
    j = (j + (key[k % keyLength] as number) + t) & 255;
    s[k] = s[j] as number;
    s[j] = t;
  }
  let i = 0;
  j = 0;
  /** The next `count` bytes as one big-endian number (count <= 6 keeps it exact). */
  const bytes = (count: number): number => {
    let r = 0;
    for (let c = 0; c < count; c++) {
      i = (i + 1) & 255;
      const t = s[i] as number;
      j = (j + t) & 255;
      const u = s[j] as number;
      s[i] = u;
      s[j] = t;
      r = r * 256 + (s[(u + t) & 255] as number);
    }
    return r;
  };
  bytes(256);
  return () => {
    let n = bytes(6);
    let d = START_DENOMINATOR;
    let x = 0;
    while (n < SIGNIFICANCE) {
      n = (n + x) * 256;
      d *= 256;
      x = bytes(1);
    }
    while (n >= OVERFLOW) {
      n /= 2;
      d /= 2;
      x >>>= 1;
    }
    return (n + x) / d;
  };
}

const START_DENOMINATOR = 256 ** 6;
const SIGNIFICANCE = 2 ** 52;
const OVERFLOW = 2 ** 53;

/** The cipher's key from the seed string, as the library smears it (at most 256 bytes; an empty seed keys [0]). */
function keyOf(seed: string): number[] {
  const key: number[] = [];
  let smear = 0;
  for (let k = 0; k < seed.length; k++) {
    smear ^= (key[k & 255] ?? 0) * 19;
    key[k & 255] = (smear + seed.charCodeAt(k)) & 255;
  }
  return key.length === 0 ? [0] : key;
}
