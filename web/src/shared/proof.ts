// The proof of work that lets a code typed by hand through while the network's
// address is limited for wrong codes (docs/api.md): find a NONCE such that the
// SHA-256 of "CHALLENGE.NONCE" starts with `bits` zero bits. About 2^bits
// hashes; 18 bits take a fraction of a second. Runs in slices so the page
// stays responsive.
import { api, ApiError, type Party } from './api';

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);

const w = new Uint32Array(64);

/** The first 32 bits of the SHA-256 of `bytes` (ASCII, under 56 bytes: one block). */
function sha256Head(bytes: Uint8Array, length: number): number {
  w.fill(0, 0, 16);
  for (let i = 0; i < length; i++) w[i >> 2] |= bytes[i] << (24 - 8 * (i & 3));
  w[length >> 2] |= 0x80 << (24 - 8 * (length & 3));
  w[15] = length * 8;
  for (let i = 16; i < 64; i++) {
    const a = w[i - 15], b = w[i - 2];
    const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
    const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
    w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
  }
  let a = 0x6a09e667, b = 0xbb67ae85, c = 0x3c6ef372, d = 0xa54ff53a;
  let e = 0x510e527f, f = 0x9b05688c, g = 0x1f83d9ab, hh = 0x5be0cd19;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const t1 = (hh + S1 + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const t2 = (S0 + ((a & b) ^ (a & c) ^ (b & c))) | 0;
    hh = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  return (0x6a09e667 + a) >>> 0;
}

/**
 * Finds "CHALLENGE.NONCE" whose SHA-256 starts with `bits` zero bits (1 to 30).
 * Gives up (null) when `cancelled()` says so between slices.
 */
export async function solveProof(challenge: string, bits: number, cancelled: () => boolean = () => false): Promise<string | null> {
  const prefix = `${challenge}.`;
  if (!/^[\x20-\x7e]*$/.test(prefix) || prefix.length > 40 || bits < 1 || bits > 30) return null;
  const bytes = new Uint8Array(56);
  for (let i = 0; i < prefix.length; i++) bytes[i] = prefix.charCodeAt(i);
  const shift = 32 - bits;
  for (let nonce = 0; nonce < 2 ** 40; ) {
    const end = nonce + 20000;
    for (; nonce < end; nonce++) {
      const digits = String(nonce);
      for (let i = 0; i < digits.length; i++) bytes[prefix.length + i] = digits.charCodeAt(i);
      if (sha256Head(bytes, prefix.length + digits.length) >>> shift === 0) return prefix + digits;
    }
    await new Promise((r) => setTimeout(r, 0));
    if (cancelled()) return null;
  }
  return null;
}

/**
 * Looks a table up by its code. While this network is limited for wrong codes
 * the server asks for a proof of work instead: `checking()` is called, the
 * work is done and the lookup made again with it. Refusals are thrown as
 * ApiError (a 404 for a code that does not exist).
 */
export async function lookUpCode(
  code: string,
  key: string | undefined,
  checking: () => void,
  cancelled: () => boolean = () => false,
): Promise<Party> {
  try {
    return (await api.party(code, key)).party;
  } catch (e) {
    const asked = e instanceof ApiError && e.status === 429 ? (e.data.proof as { challenge?: unknown; bits?: unknown } | undefined) : undefined;
    if (typeof asked?.challenge !== 'string' || typeof asked.bits !== 'number' || cancelled()) throw e;
    checking();
    const proof = await solveProof(asked.challenge, asked.bits, cancelled);
    if (!proof) throw e;
    return (await api.party(code, undefined, proof)).party;
  }
}
