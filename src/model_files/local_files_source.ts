// Model files the user picked or dropped in the browser (or any Blobs, e.g. in tests). Uses only
// Blob and File, which Node 20 has too, so this runs and is tested outside the browser.
import type { ModelSource } from './source.ts';

/**
 * A ModelSource over picked files or a path -> Blob map. Picked folders arrive with
 * webkitRelativePath "Folder/config.json"; a top folder shared by every file is dropped, so the
 * paths are what a model repo has ("config.json", "tokenizer.json", …).
 */
export function localFilesSource(
  files: readonly File[] | ReadonlyMap<string, Blob>,
  name?: string,
): ModelSource {
  const byPath = files instanceof Map ? new Map(files) : fromPickedFiles(files as readonly File[]);
  const label = name ?? commonFolder(files) ?? 'local files';
  return {
    name: label,
    async readFile(path, onProgress) {
      const blob = byPath.get(path);
      if (!blob) {
        const listed = [...byPath.keys()].sort().slice(0, 12).join(', ');
        throw new Error(
          `${path} is not among the picked files (${listed || 'none'}). ` +
            'Fix: pick or drop the whole model folder (config.json, tokenizer.json, tokenizer_config.json and the .safetensors files).',
        );
      }
      return readBlob(blob, onProgress);
    },
    async has(path) {
      return byPath.has(path);
    },
  };
}

/** Reads a Blob chunk by chunk so large weight files report progress. */
async function readBlob(
  blob: Blob,
  onProgress?: (loadedBytes: number, totalBytes: number | null) => void,
): Promise<Uint8Array> {
  if (!onProgress) return new Uint8Array(await blob.arrayBuffer());
  const bytes = new Uint8Array(blob.size);
  const reader = blob.stream().getReader();
  let loaded = 0;
  onProgress(0, blob.size);
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    bytes.set(value, loaded);
    loaded += value.byteLength;
    onProgress(loaded, blob.size);
  }
  return bytes;
}

/** Picked files keyed by their path inside the picked folder (or their name when picked singly). */
function fromPickedFiles(files: readonly File[]): Map<string, Blob> {
  const top = commonFolder(files);
  const map = new Map<string, Blob>();
  for (const file of files) {
    const relative = relativePath(file);
    map.set(top !== null ? relative.slice(top.length + 1) : relative, file);
  }
  return map;
}

/** The first path segment shared by every picked file, if they came from one folder. */
function commonFolder(files: readonly File[] | ReadonlyMap<string, Blob>): string | null {
  if (files instanceof Map || (files as readonly File[]).length === 0) return null;
  const tops = new Set(
    (files as readonly File[]).map((file) => {
      const parts = relativePath(file).split('/');
      return parts.length > 1 ? parts[0] : null;
    }),
  );
  const [only] = [...tops];
  return tops.size === 1 && only ? only : null;
}

/**
 * webkitRelativePath exists on picked and dropped-folder files in browsers; Node's File lacks it.
 */
function relativePath(file: File): string {
  const relative = (file as File & { webkitRelativePath?: string }).webkitRelativePath;
  return relative ? relative : file.name;
}
