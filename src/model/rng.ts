// Seeded pseudo-random numbers of our own, so that the same seed gives the same samples on every
// platform (Math.random cannot be seeded). xoshiro128** (Blackman & Vigna, prng.di.unimi.it),
// seeded through splitmix32; the four-word state can be saved in a checkpoint and restored.

/** The full state of an Rng: four unsigned 32-bit words. */
export type RngState = [number, number, number, number];

/** splitmix32: spreads one 32-bit seed into well-mixed words (used only for seeding). */
function splitmix32(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (x + 0x9e3779b9) >>> 0;
    let z = x;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A seeded generator of uniform numbers (xoshiro128**). */
export class Rng {
  private s: RngState;

  /**
   * Seeds from any finite number (only its low 32 bits after rounding matter), or from a saved
   * state.
   */
  constructor(seedOrState: number | RngState) {
    if (typeof seedOrState === 'number') {
      if (!Number.isFinite(seedOrState))
        throw new Error(`seed must be a finite number, got ${seedOrState}`);
      const next = splitmix32(Math.round(seedOrState) >>> 0);
      this.s = [next(), next(), next(), next()];
    } else {
      this.s = [...seedOrState] as RngState;
    }
    if (this.s.every((word) => word === 0)) this.s[0] = 1; // the all-zero state is a fixed point
  }

  /** The next unsigned 32-bit integer. */
  nextUint32(): number {
    const s = this.s;
    const result = Math.imul(rotl(Math.imul(s[1], 5) >>> 0, 7), 9) >>> 0;
    const t = (s[1] << 9) >>> 0;
    s[2] = (s[2] ^ s[0]) >>> 0;
    s[3] = (s[3] ^ s[1]) >>> 0;
    s[1] = (s[1] ^ s[2]) >>> 0;
    s[0] = (s[0] ^ s[3]) >>> 0;
    s[2] = (s[2] ^ t) >>> 0;
    s[3] = rotl(s[3], 11);
    return result;
  }

  /** A uniform float in [0, 1) with 53 random bits. */
  uniform(): number {
    const high = this.nextUint32() >>> 5; // 27 bits
    const low = this.nextUint32() >>> 6; // 26 bits
    return (high * 67108864 + low) / 9007199254740992;
  }

  /** A new independent generator seeded from this one (advances this one). */
  split(): Rng {
    return new Rng([this.nextUint32(), this.nextUint32(), this.nextUint32(), this.nextUint32()]);
  }

  /** A copy of the state, for checkpoints. */
  state(): RngState {
    return [...this.s] as RngState;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
