/** Where a Chromium binary is, or null. */
export function findChromium(): string | null;
