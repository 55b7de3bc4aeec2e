// Turns every file-shaped part of a tool result into a FileOutput, or a RejectedOutput with the
// reason. One bad file never stops the others, and nothing here throws on tool input.
import { checkBase64 } from '../codecs/base64.js';
import { chooseViewer, extensionForMime, isValidMime, mimeEssence, mimeFromName } from '../codecs/mime.js';
import { normalizeFilename } from './filename.js';
import type {
  DeferredInfo,
  FileOutput,
  FileSourceForm,
  OutputOrigin,
  RejectedOutput,
} from './tool-outcome.js';

export interface CollectOptions {
  /** Files whose bytes are known to exceed this are rejected with E_FILE_TOO_LARGE. */
  maxFileBytes?: number;
  /**
   * The tool's workspace as the tool sees it (e.g. `/tmp/alice`). A `path` that lexically leaves
   * it is rejected with E_INVALID_PATH here; the host still resolves real paths before reading.
   */
  workspaceRoot?: string;
}

export interface FileDraft {
  origin: OutputOrigin;
  index: number;
  name: unknown;
  /** Name made up by Ferry (MCP content without one): an extension is added from the MIME type. */
  generatedName?: boolean;
  mime?: unknown;
  /** The spec requires `mime` here; its absence is worth a warning. */
  mimeRequired?: boolean;
  b64?: unknown;
  path?: unknown;
  text?: string;
  uri?: string;
  size?: unknown;
  description?: unknown;
  viewer?: unknown;
  category?: unknown;
  autoOpen?: unknown;
  deferred?: DeferredInfo;
}

export class FileCollector {
  readonly files: FileOutput[] = [];
  readonly deferred: FileOutput[] = [];
  readonly rejected: RejectedOutput[] = [];
  private readonly taken = new Set<string>();
  /** originalName and normalized name → final unique name, for `display.primary_file`. */
  private readonly aliases = new Map<string, string>();

  constructor(
    private readonly options: CollectOptions,
    private readonly warnings: string[],
  ) {}

  add(draft: FileDraft): undefined {
    const where = `${draft.origin}[${draft.index}]`;
    const reject = (code: RejectedOutput['code'], reason: string, name?: string): undefined => {
      this.rejected.push({
        origin: draft.origin,
        index: draft.index,
        name,
        code,
        reason: `${where}: ${reason}`,
      });
    };
    if (typeof draft.name !== 'string' || draft.name.trim() === '')
      return reject('E_INVALID_INPUT', 'missing name');
    const originalName = draft.name;

    let b64 = typeof draft.b64 === 'string' ? draft.b64 : undefined;
    let claimedMime = draft.mime;
    // Tools sometimes put a whole data URI where plain base64 belongs; its media type is kept.
    const dataUri = b64 === undefined ? null : /^data:([^,;]*)(?:;[^,]*)?;base64,/i.exec(b64);
    if (b64 !== undefined && dataUri) {
      b64 = b64.slice(dataUri[0].length);
      if (claimedMime === undefined && dataUri[1]) claimedMime = dataUri[1];
    }
    if (draft.b64 !== undefined && typeof draft.b64 !== 'string') {
      return reject('E_INVALID_INPUT', 'b64 is not a string', originalName);
    }
    if (claimedMime !== undefined && !isValidMime(claimedMime)) {
      return reject('E_INVALID_INPUT', `invalid MIME type ${JSON.stringify(claimedMime)}`, originalName);
    }
    const mime = claimedMime === undefined ? mimeFromName(originalName) : mimeEssence(claimedMime);
    if (claimedMime === undefined && draft.mimeRequired) {
      this.warnings.push(`${where} (${originalName}) has no mime; ${mime} was guessed from its name`);
    }

    const source = this.source(draft, b64, reject, originalName);
    if (!source) return;
    if (source.kind === 'base64' || source.kind === 'text') {
      if (this.options.maxFileBytes !== undefined && source.byteLength > this.options.maxFileBytes) {
        return reject(
          'E_FILE_TOO_LARGE',
          `${source.byteLength} bytes exceeds the limit of ${this.options.maxFileBytes} bytes`,
          originalName,
        );
      }
      if (typeof draft.size === 'number' && draft.size !== source.byteLength) {
        this.warnings.push(`${where} declares size ${draft.size} but holds ${source.byteLength} bytes`);
      }
    }

    let normalized = normalizeFilename(originalName);
    const extension = extensionForMime(mime);
    if (draft.generatedName && extension && !normalized.includes('.'))
      normalized = `${normalized}.${extension}`;
    const name = this.unique(normalized);
    if (name !== normalized)
      this.warnings.push(`${where}: name ${normalized} was already used; stored as ${name}`);
    this.aliases.set(originalName, this.aliases.get(originalName) ?? name);
    this.aliases.set(normalized, this.aliases.get(normalized) ?? name);

    const file: FileOutput = {
      name,
      originalName,
      mime,
      viewer: chooseViewer({ mime, name }, typeof draft.viewer === 'string' ? draft.viewer : undefined),
      autoOpen: draft.autoOpen === true,
      origin: draft.origin,
      source,
    };
    const size = source.kind === 'base64' || source.kind === 'text' ? source.byteLength : draft.size;
    if (typeof size === 'number' && Number.isSafeInteger(size) && size >= 0) file.size = size;
    if (typeof draft.description === 'string' && draft.description !== '')
      file.description = draft.description;
    if (typeof draft.category === 'string' && draft.category !== '') file.category = draft.category;
    if (draft.deferred) file.deferred = draft.deferred;
    (draft.deferred ? this.deferred : this.files).push(file);
    return undefined;
  }

  /** Final name for a name the tool used (original or normalized), if such a file was collected. */
  resolveName(name: string): string | undefined {
    return this.aliases.get(name) ?? this.aliases.get(normalizeFilename(name));
  }

  private source(
    draft: FileDraft,
    b64: string | undefined,
    reject: (code: RejectedOutput['code'], reason: string, name?: string) => undefined,
    name: string,
  ): FileSourceForm | undefined {
    if (b64 !== undefined) {
      if (draft.path !== undefined)
        this.warnings.push(`${draft.origin}[${draft.index}] has both b64 and path; b64 used`);
      const check = checkBase64(b64);
      if (!check.valid) return reject('E_INVALID_INPUT', `invalid base64: ${check.reason}`, name);
      return { kind: 'base64', base64: check.clean, byteLength: check.byteLength };
    }
    if (draft.path !== undefined) {
      const problem = checkToolPath(draft.path, this.options.workspaceRoot);
      if (problem) return reject('E_INVALID_PATH', problem, name);
      return { kind: 'path', path: draft.path as string };
    }
    if (draft.text !== undefined) {
      return { kind: 'text', text: draft.text, byteLength: new TextEncoder().encode(draft.text).byteLength };
    }
    if (draft.uri !== undefined) return { kind: 'resource_link', uri: draft.uri };
    return reject('E_INVALID_INPUT', 'has no content (neither b64 nor path)', name);
  }

  private unique(name: string): string {
    let candidate = name;
    const dot = name.lastIndexOf('.');
    const stem = dot > 0 ? name.slice(0, dot) : name;
    const extension = dot > 0 ? name.slice(dot) : '';
    for (let n = 2; this.taken.has(candidate); n++)
      candidate = normalizeFilename(`${stem} (${n})${extension}`);
    this.taken.add(candidate);
    return candidate;
  }
}

/** Lexical check of a tool-supplied path; returns the problem or undefined. */
function checkToolPath(path: unknown, workspaceRoot?: string): string | undefined {
  if (typeof path !== 'string' || path === '') return 'path is not a non-empty string';
  if (path.includes('\0')) return 'path contains a NUL byte';
  if (!path.startsWith('/')) return `path ${JSON.stringify(path)} is not absolute`;
  if (workspaceRoot === undefined) return undefined;
  const root = collapsePosixPath(workspaceRoot);
  const resolved = collapsePosixPath(path);
  if (resolved !== root && !resolved.startsWith(root === '/' ? '/' : `${root}/`)) {
    return `path ${JSON.stringify(path)} is outside ${root}/`;
  }
  return undefined;
}

/** `/a/./b/../c//d` → `/a/c/d`, never above `/`. */
export function collapsePosixPath(path: string): string {
  const parts: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') parts.pop();
    else parts.push(segment);
  }
  return `/${parts.join('/')}`;
}
