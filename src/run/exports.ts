// What a run can take away (docs/architecture.md §6): trajectories as JSONL, metrics as CSV or
// JSON, and the PEFT adapter files (bytes from the trainer worker's exportAdapter()) packed into
// one .zip. Pure functions over records and bytes, so they run and are tested in Node.
import { flattenMetrics } from '../rl/metrics.ts';
import type { StepMetrics, Trajectory } from '../rl/types.ts';

/** One trajectory as an export line: what happened and how it was scored, without tensors. */
export interface TrajectoryLine {
  step: number;
  id: string;
  taskId: string;
  group: number;
  sample: number;
  messages: Trajectory['messages'];
  reward: number;
  rewardParts: Record<string, number>;
  /** What the judge caught the final program doing to it (empty: nothing); non-empty scored tests 0. */
  tampered: string[];
  advantage: number;
  passed: boolean;
  finishReason: Trajectory['finishReason'];
  finalAnswer: string | null;
  turns: number;
  timedOut: boolean;
  truncated: boolean;
  prefixBroken: boolean;
  /** Only with `{ tokens: true }`: the packed ids and their action mask. */
  ids?: number[];
  actionMask?: number[];
}

/** Trajectories as JSON Lines, one per trajectory; `tokens` adds ids and the action mask. */
export function trajectoriesJsonl(
  steps: readonly { step: number; trajectories: readonly Trajectory[] }[],
  options: { tokens?: boolean } = {},
): string {
  const lines: string[] = [];
  for (const { step, trajectories } of steps) {
    for (const t of trajectories) {
      const line: TrajectoryLine = {
        step,
        id: t.id,
        taskId: t.taskId,
        group: t.groupIndex,
        sample: t.sampleIndex,
        messages: t.messages,
        reward: t.reward,
        rewardParts: t.rewardParts,
        tampered: t.tampered,
        advantage: t.advantage,
        passed: t.passed,
        finishReason: t.finishReason,
        finalAnswer: t.finalAnswer,
        turns: t.turns.length,
        timedOut: t.timedOut,
        truncated: t.truncated,
        prefixBroken: t.prefixBroken,
      };
      if (options.tokens) Object.assign(line, { ids: t.ids, actionMask: t.actionMask });
      lines.push(JSON.stringify(line));
    }
  }
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

/**
 * The CSV columns for these metrics: flattenMetrics' keys (reward parts as `reward_<name>`) in
 * first-seen order.
 */
export function metricsColumns(metrics: readonly StepMetrics[]): string[] {
  const columns = new Set<string>();
  for (const row of metrics) for (const key of Object.keys(flattenMetrics(row))) columns.add(key);
  return [...columns];
}

/** RFC 4180 quoting: only cells with a comma, quote or line break are quoted. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/**
 * Metrics as CSV with a header row; null cells (a skipped update's loss) and absent reward parts
 * are empty.
 */
export function metricsCsv(metrics: readonly StepMetrics[]): string {
  const columns = metricsColumns(metrics);
  const rows = metrics.map((row) => {
    const flat = flattenMetrics(row);
    return columns.map((column) => csvCell(flat[column])).join(',');
  });
  return `${[columns.join(','), ...rows].join('\n')}\n`;
}

/** Metrics as a JSON array (same records the CLI prints one per line). */
export function metricsJson(metrics: readonly StepMetrics[]): string {
  return `${JSON.stringify(metrics, null, 1)}\n`;
}

// --- .zip (stored, no compression): the adapter files in one download, readable by any unzip. ---

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 (the zip/PNG polynomial). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** A .zip archive of `files` (name → bytes), stored uncompressed: safetensors barely compress. */
export function zipFiles(files: Record<string, Uint8Array>): Uint8Array {
  const encoder = new TextEncoder();
  const entries = Object.entries(files).map(([name, data]) => ({
    name: encoder.encode(name),
    data,
    crc: crc32(data),
  }));
  const size =
    entries.reduce((sum, e) => sum + 30 + e.name.length + e.data.length + 46 + e.name.length, 0) +
    22;
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  let offset = 0;
  const offsets: number[] = [];
  const DOS_DATE = (1 << 5) | 1; // 1980-01-01: a fixed date keeps the archive reproducible
  for (const entry of entries) {
    offsets.push(offset);
    view.setUint32(offset, 0x04034b50, true);
    view.setUint16(offset + 4, 20, true); // version needed
    view.setUint16(offset + 6, 0x0800, true); // UTF-8 names
    view.setUint16(offset + 8, 0, true); // stored
    view.setUint16(offset + 10, 0, true);
    view.setUint16(offset + 12, DOS_DATE, true);
    view.setUint32(offset + 14, entry.crc, true);
    view.setUint32(offset + 18, entry.data.length, true);
    view.setUint32(offset + 22, entry.data.length, true);
    view.setUint16(offset + 26, entry.name.length, true);
    view.setUint16(offset + 28, 0, true);
    out.set(entry.name, offset + 30);
    out.set(entry.data, offset + 30 + entry.name.length);
    offset += 30 + entry.name.length + entry.data.length;
  }
  const directoryStart = offset;
  entries.forEach((entry, i) => {
    view.setUint32(offset, 0x02014b50, true);
    view.setUint16(offset + 4, 20, true);
    view.setUint16(offset + 6, 20, true);
    view.setUint16(offset + 8, 0x0800, true);
    view.setUint16(offset + 10, 0, true);
    view.setUint16(offset + 12, 0, true);
    view.setUint16(offset + 14, DOS_DATE, true);
    view.setUint32(offset + 16, entry.crc, true);
    view.setUint32(offset + 20, entry.data.length, true);
    view.setUint32(offset + 24, entry.data.length, true);
    view.setUint16(offset + 28, entry.name.length, true);
    // extra, comment, disk, internal attributes, external attributes: all 0 (bytes 30..41)
    view.setUint32(offset + 42, offsets[i]!, true);
    out.set(entry.name, offset + 46);
    offset += 46 + entry.name.length;
  });
  view.setUint32(offset, 0x06054b50, true);
  view.setUint16(offset + 8, entries.length, true);
  view.setUint16(offset + 10, entries.length, true);
  view.setUint32(offset + 12, offset - directoryStart, true);
  view.setUint32(offset + 16, directoryStart, true);
  return out;
}

/** The files of a stored (uncompressed) .zip, as zipFiles writes; throws on compressed entries. */
export function unzipStored(zip: Uint8Array): Record<string, Uint8Array> {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let end = zip.length - 22;
  while (end >= 0 && view.getUint32(end, true) !== 0x06054b50) end--;
  if (end < 0)
    throw new Error(
      'not a .zip file (no end-of-archive record). Fix: pick the adapter .zip this page exported, or the two adapter files.',
    );
  const count = view.getUint16(end + 10, true);
  let offset = view.getUint32(end + 16, true);
  const files: Record<string, Uint8Array> = {};
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i++) {
    if (view.getUint32(offset, true) !== 0x02014b50)
      throw new Error('the .zip directory is damaged. Fix: export the adapter again.');
    const method = view.getUint16(offset + 10, true);
    const compressedSize = view.getUint32(offset + 20, true);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const local = view.getUint32(offset + 42, true);
    const name = decoder.decode(zip.subarray(offset + 46, offset + 46 + nameLength));
    if (method !== 0)
      throw new Error(
        `${name} in the .zip is compressed, which this page does not read. Fix: unzip it and pick the adapter files themselves.`,
      );
    const dataStart =
      local + 30 + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
    files[name] = zip.slice(dataStart, dataStart + compressedSize);
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return files;
}
