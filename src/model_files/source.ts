/**
 * Where model files come from: a folder on disk (Node), the Hugging Face hub or a local mirror of
 * its layout (fetch), files the user picked, or the embedded demo model. Everything that loads a
 * model reads through this interface, so the loader is the same for every source.
 */
export interface ModelSource {
  /** A human-readable name: a path, a hub id, "demo". */
  readonly name: string;
  /**
   * The bytes of `path` (relative, e.g. "config.json"); rejects with a clear message if missing.
   */
  readFile(
    path: string,
    onProgress?: (loadedBytes: number, totalBytes: number | null) => void,
  ): Promise<Uint8Array>;
  /** Whether `path` exists, without downloading it where that can be avoided. */
  has(path: string): Promise<boolean>;
}

/** Reads a file as UTF-8 JSON, naming the file and source in the error if it does not parse. */
export async function readJson<T = unknown>(source: ModelSource, path: string): Promise<T> {
  const bytes = await source.readFile(path);
  try {
    return JSON.parse(new TextDecoder().decode(bytes)) as T;
  } catch (error) {
    throw new Error(`${source.name}/${path} is not valid JSON: ${(error as Error).message}`);
  }
}
