// The My Files side panel: upload (button, or drop files anywhere / paste), search and sort, the
// uploaded / generated / deferred sections, and each file's actions.
import type { FileDto } from '@ferry/contract';
import { useEffect, useMemo, useRef, useState } from 'react';
import { api } from '../api/client';
import { groupFiles, SECTIONS, type SortKey, type SortOrder } from '../lib/file-sections';
import { useApp } from '../state/app-context';
import { RenameDialog, VersionsDialog } from './file-dialogs';
import { FileRow, type FileRowActions } from './file-row';
import { UploadList } from './upload-list';

/**
 * The loaded list holds the newest files only; when the user has more, a search asks the server
 * (case-insensitive substring of the name) so older files can be found too.
 */
function useServerSearch(query: string, partial: boolean, loaded: FileDto[]): FileDto[] {
  const [found, setFound] = useState<FileDto[] | null>(null);
  useEffect(() => {
    const q = query.trim();
    if (!partial || q === '') {
      setFound(null);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      api<{ items: FileDto[] }>(`/api/files?limit=1000&q=${encodeURIComponent(q)}`).then(
        (list) => {
          if (current) setFound(list.items);
        },
        () => undefined,
      );
    }, 250);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [query, partial]);
  return found ?? loaded;
}

export function FilesPanel() {
  const { files, filesTotal, filesLoading, filesError, refreshFiles, uploads, openFile, toast } = useApp();
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<SortKey>('created');
  const [order, setOrder] = useState<SortOrder>('desc');
  const [renaming, setRenaming] = useState<FileDto | null>(null);
  const [history, setHistory] = useState<FileDto | null>(null);
  const [now, setNow] = useState(() => Date.now());
  // Narrow screens only (styles.css): the list folds away so the tool runner comes first.
  const [folded, setFolded] = useState(true);
  const uploading = uploads.items.length;
  useEffect(() => {
    if (uploading > 0) setFolded(false); // an upload (drop, paste) shows its progress
  }, [uploading]);
  const input = useRef<HTMLInputElement>(null);
  const matches = useServerSearch(query, filesTotal > files.length, files);
  const groups = useMemo(() => groupFiles(matches, query, sort, order), [matches, query, sort, order]);

  // Expiry times count down without a reload.
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);

  const actions: FileRowActions = {
    open: (file) => openFile(file),
    rename: setRenaming,
    versions: setHistory,
    remove: async (file) => {
      if (!window.confirm(`Delete ${file.name}${file.version > 1 ? ` (version ${file.version})` : ''}?`))
        return;
      try {
        await api(`/api/files/${file.id}`, { method: 'DELETE' });
        toast(`Deleted ${file.name}`, 'success');
        focusNeighbourOf(file);
        refreshFiles();
      } catch (error) {
        toast((error as Error).message, 'error');
      }
    },
  };

  return (
    <aside className="files-panel" aria-label="My Files" data-folded={folded}>
      <div className="panel-head">
        <h2 className="panel-title">My Files</h2>
        <button
          type="button"
          className="small files-fold"
          aria-expanded={!folded}
          aria-controls="files-body"
          onClick={() => setFolded((f) => !f)}
        >
          {folded ? `Show (${filesTotal})` : 'Hide list'}
        </button>
        <button type="button" className="primary small" onClick={() => input.current?.click()}>
          Upload…
        </button>
        <input
          ref={input}
          type="file"
          multiple
          hidden
          data-testid="upload-input"
          aria-label="Choose files to upload"
          onChange={(event) => {
            const chosen = [...(event.target.files ?? [])];
            event.target.value = '';
            if (chosen.length) void uploads.add(chosen);
          }}
        />
      </div>
      <div id="files-body" className="files-body">
        <div className="drop-hint muted" data-testid="drop-zone">
          Drop files anywhere, or paste them (Ctrl+V)
        </div>
        <UploadList uploads={uploads} />
        <div className="file-tools">
          <label className="sr-only" htmlFor="file-search">
            Search My Files
          </label>
          <input
            id="file-search"
            type="search"
            placeholder="Search files"
            value={query}
            onChange={(event) => setQuery(event.target.value)}
          />
          <label className="sr-only" htmlFor="file-sort">
            Sort by
          </label>
          <select id="file-sort" value={sort} onChange={(event) => setSort(event.target.value as SortKey)}>
            <option value="created">Date</option>
            <option value="name">Name</option>
            <option value="size">Size</option>
          </select>
          <button
            type="button"
            className="small ghost"
            onClick={() => setOrder((o) => (o === 'asc' ? 'desc' : 'asc'))}
            aria-label={
              order === 'asc' ? 'Ascending; switch to descending' : 'Descending; switch to ascending'
            }
            title="Sort order"
          >
            {order === 'asc' ? '↑' : '↓'}
          </button>
        </div>
        {filesError && (
          <p className="form-error" role="alert">
            Could not load My Files: {filesError}
          </p>
        )}
        {filesLoading && files.length === 0 && <p className="muted">Loading…</p>}
        {!filesLoading && files.length === 0 && !filesError && (
          <p className="empty muted">No files yet. Upload some, or run a tool that makes them.</p>
        )}
        {SECTIONS.map(({ source, title }) => {
          const list = groups[source];
          if (list.length === 0) return null;
          return (
            <section
              key={source}
              className="file-section"
              aria-label={title}
              data-testid={`section-${source}`}
            >
              <h3>
                {title} <span className="count">{list.length}</span>
              </h3>
              <ul className="file-list">
                {list.map((file) => (
                  <FileRow key={file.id} file={file} actions={actions} now={now} />
                ))}
              </ul>
            </section>
          );
        })}
        {filesTotal > files.length && (
          <p className="muted small">
            Showing the newest {files.length} of {filesTotal} files.
          </p>
        )}
      </div>
      {renaming && <RenameDialog file={renaming} onClose={() => setRenaming(null)} />}
      {history && <VersionsDialog file={history} onClose={() => setHistory(null)} />}
    </aside>
  );
}

/**
 * The row of a deleted file goes away with the next refresh, and the focus on its Delete button
 * with it: the next row (else the previous one, else the search field) takes it instead of <body>.
 */
function focusNeighbourOf(file: FileDto): void {
  const rows = [...document.querySelectorAll<HTMLElement>('.files-panel .file-row')];
  const index = rows.findIndex((row) => row.dataset.name === file.name && row.dataset.source === file.source);
  const neighbour = index < 0 ? undefined : (rows[index + 1] ?? rows[index - 1]);
  (neighbour?.querySelector<HTMLElement>('.file-open') ?? document.getElementById('file-search'))?.focus();
}
