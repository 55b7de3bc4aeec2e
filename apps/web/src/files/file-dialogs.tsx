// Rename and version history of a file, each a small modal.
import { type FileDto, formatBytes, normalizeFilename } from '@ferry/contract';
import { type FormEvent, useEffect, useRef, useState } from 'react';
import { api, contentUrl } from '../api/client';
import { ModalDialog } from '../components/modal-dialog';
import { formatDate } from '../lib/format';
import { useApp } from '../state/app-context';

export function RenameDialog({ file, onClose }: { file: FileDto; onClose(): void }) {
  const { refreshFiles, toast } = useApp();
  const [name, setName] = useState(file.name);
  const [error, setError] = useState<string | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // The dialog exists to type this name: start in it, with the stem selected (not the extension).
  useEffect(() => {
    const element = input.current;
    if (!element) return;
    element.focus();
    const dot = file.name.lastIndexOf('.');
    element.setSelectionRange(0, dot > 0 ? dot : file.name.length);
  }, [file.name]);
  const normalized = normalizeFilename(name);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const renamed = await api<FileDto>(`/api/files/${file.id}`, { method: 'PATCH', json: { name } });
      toast(`Renamed to ${renamed.name}`, 'success');
      refreshFiles();
      onClose();
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <ModalDialog title={`Rename ${file.name}`} onClose={onClose}>
      <form onSubmit={submit} className="stack">
        <label className="field">
          <span>New name</span>
          <input
            value={name}
            onChange={(event) => setName(event.target.value)}
            ref={input}
            required
            maxLength={1024}
          />
        </label>
        {name.trim() !== '' && normalized !== name && (
          <p className="muted">
            Will be stored as <strong>{normalized}</strong>
          </p>
        )}
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary">
            Rename
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

export function VersionsDialog({ file, onClose }: { file: FileDto; onClose(): void }) {
  const { openFile, refreshFiles, toast } = useApp();
  const [versions, setVersions] = useState<FileDto[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const list = useRef<HTMLOListElement>(null);
  // The row whose Delete had focus is gone after a delete: its neighbour takes focus, not <body>.
  const refocusRow = useRef<number | null>(null);
  useEffect(() => {
    const index = refocusRow.current;
    if (index === null || versions === null) return;
    refocusRow.current = null;
    const rows = list.current?.querySelectorAll<HTMLElement>('.version-row') ?? [];
    const row = rows[Math.min(index, rows.length - 1)];
    const target =
      row?.querySelector<HTMLElement>('button.danger') ??
      list.current?.closest('dialog')?.querySelector('button');
    target?.focus();
  }, [versions]);
  const load = () =>
    api<{ items: FileDto[] }>(`/api/files/${file.id}/versions`).then(
      (list) => setVersions(list.items),
      (failure: unknown) => setError((failure as Error).message),
    );
  // biome-ignore lint/correctness/useExhaustiveDependencies: loads once per file
  useEffect(() => {
    void load();
  }, [file.id]);
  const remove = async (version: FileDto) => {
    if (!window.confirm(`Delete version ${version.version} of ${version.name}?`)) return;
    try {
      await api(`/api/files/${version.id}`, { method: 'DELETE' });
      toast(`Deleted version ${version.version}`, 'success');
      refreshFiles();
      refocusRow.current = versions?.indexOf(version) ?? 0;
      void load();
    } catch (failure) {
      toast((failure as Error).message, 'error');
    }
  };
  return (
    <ModalDialog title={`Versions of ${file.name}`} onClose={onClose}>
      {error && <p className="form-error">{error}</p>}
      {versions === null && !error && <p>Loading…</p>}
      {versions && (
        <ol className="version-list" ref={list}>
          {versions.map((version) => (
            <li key={version.id} className="version-row" data-testid="version-row">
              <span>
                <strong>v{version.version}</strong> · {formatBytes(version.size)} ·{' '}
                {formatDate(version.createdAt)} ·{' '}
                <code title={version.sha256}>{version.sha256.slice(0, 10)}</code>
              </span>
              <span className="row">
                <button
                  type="button"
                  className="small ghost"
                  onClick={() => {
                    openFile(version);
                    onClose();
                  }}
                >
                  Open
                </button>
                <a
                  className="button small ghost"
                  href={contentUrl(version.id, { download: true })}
                  download={version.name}
                >
                  Download
                </a>
                <button type="button" className="small ghost danger" onClick={() => void remove(version)}>
                  Delete
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
    </ModalDialog>
  );
}
