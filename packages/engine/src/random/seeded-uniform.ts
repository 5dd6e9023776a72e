import type { Uniform } from "./random-draws.js";

/**
 * `seedrandom(seed)`'s stream (ARC4 keyed by the seed string, its first 256 bytes dropped, 52-bit doubles), the
 * same numbers, for the hot paths that open many streams (the learner a few per product and plan, the closed loop
 * and the backtest those of every day they plan). It
 * leaves out what the library adds around the cipher: mixing every new state into its global entropy pool (a
 * 256-character string built and hashed per stream), and keeps the state in a typed array.
 */
export function seededUniform(seed: string): Uniform {
  const key = keyOf(seed);
  const keyLength = key.length;
  const s = new Uint8Array(256);
  for (let k = 0; k < 256; k++) s[k] = k;
  let j = 0;
  for (let k = 0, m = 0; k < 256; k++) {
    const t = s[k] as number;
    j = (j + (key[m] as number) + t) & 255;
    s[k] = s[j] as number;
    s[j] = t;
    if (++m === keyLength) m = 0;
  }
  let i = 0;
  j = 0;
  // RC4-drop[256]: the first 256 bytes are discarded.
  for (let k = 0; k < 256; k++) {
    i = (i + 1) & 255;
    const t = s[i] as number;
    j = (j + t) & 255;
    s[i] = s[j] as number;
    s[j] = t;
  }
  // The byte step is written inline (a named inner function would be one more closure per stream), and the
  // stream's indices are read into locals once per number rather than from the closure's context once per byte.
  return () => {
    let a = i;
    let b = j;
    // Six bytes big-endian (48 bits, exact)...
    let n = 0;
    for (let c = 0; c < 6; c++) {
      a = (a + 1) & 255;
      const t = s[a] as number;
      b = (b + t) & 255;
      const u = s[b] as number;
      s[a] = u;
      s[b] = t;
      n = n * 256 + (s[(u + t) & 255] as number);
    }
    // ...then bytes until 52 significant bits, as the library forms its doubles: at least one, as 48 bits are fewer.
    let d = START_DENOMINATOR;
    let x = 0;
    do {
      a = (a + 1) & 255;
      const t = s[a] as number;
      b = (b + t) & 255;
      const u = s[b] as number;
      s[a] = u;
      s[b] = t;
      n = (n + x) * 256;
      d *= 256;
      x = s[(u + t) & 255] as number;
    } while (n < SIGNIFICANCE);
    i = a;
    j = b;
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
function keyOf(seed: string): Uint8Array {
  const length = Math.min(256, Math.max(1, seed.length));
  const key = new Uint8Array(length);
  let smear = 0;
  for (let k = 0; k < seed.length; k++) {
    smear ^= (key[k & 255] as number) * 19;
    key[k & 255] = (smear + seed.charCodeAt(k)) & 255;
  }
  return key;
}
