// The whole screen: top bar, My Files | tools (or chat) | canvas, status bar. Owns the shared
// state (user, servers, files, uploads, canvas, toasts, pending elicitations) and hands it to the
// panels through AppContext.
import type { CallDetail, CallEvent, MeDto, ServerDto, ServerList, StatusDto, UiFile } from '@ferry/contract';
import { useCallback, useEffect, useMemo, useReducer, useState } from 'react';
import { api, openSession } from './api/client';
import type { FilesChangedEvent } from './api/types';
import { offerChatDraft } from './apps/chat-drafts';
import { ChatPanel } from './chat/lazy-chat-panel';
import { CanvasPanel } from './components/canvas-panel';
import { ChatPlaceholder, isModelConfigured } from './components/chat-placeholder';
import { ElicitationDialog } from './components/elicitation-dialog';
import { ResizeHandle } from './components/resize-handle';
import { StatusBar } from './components/status-bar';
import { Toasts } from './components/toasts';
import { type MainView, TopBar } from './components/top-bar';
import { FilesPanel } from './files/files-panel';
import { type CanvasAppItem, canvasReducer, EMPTY_CANVAS, fileTab } from './lib/canvas-layout';
import { canvasActionForOutcome } from './lib/outcome-canvas';
import { ToolRunner } from './runner/tool-runner';
import { AppContext, type AppServices, type OpenableFile } from './state/app-context';
import { useCanvasPersistence } from './state/use-canvas-persistence';
import { useElicitations } from './state/use-elicitations';
import { useFileDrop } from './state/use-file-drop';
import { useFiles } from './state/use-files';
import { useStoredNumber } from './state/use-stored-number';
import { useTheme } from './state/use-theme';
import { useToasts } from './state/use-toasts';
import { useUploads } from './state/use-uploads';
import { useUserEvents } from './state/use-user-events';
import { viewerOf } from './viewers/file-viewer';

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

export function App() {
  const [theme, toggleTheme] = useTheme();
  const [me, setMe] = useState<MeDto | null>(null);
  const [servers, setServers] = useState<ServerDto[]>([]);
  const [status, setStatus] = useState<StatusDto | null>(null);
  const [view, setView] = useState<MainView>('tools');
  const [filesWidth, setFilesWidth] = useStoredNumber('ferry.filesWidth', 320);
  const [canvasWidth, setCanvasWidth] = useStoredNumber(
    'ferry.canvasWidth',
    Math.round(window.innerWidth * 0.42),
  );
  const [canvas, dispatch] = useReducer(canvasReducer, EMPTY_CANVAS);
  useCanvasPersistence(me?.username, canvas, dispatch);
  const elicitations = useElicitations();
  const { toasts, push: toast, dismiss } = useToasts();
  const files = useFiles();
  const refreshMe = useCallback(() => {
    api<MeDto>('/api/me').then(setMe, () => undefined);
  }, []);

  useEffect(() => {
    void openSession()
      .catch(() => undefined)
      .finally(refreshMe);
    // Older servers have no /api/status: the status bar then shows what /api/me tells.
    api<StatusDto>('/api/status').then(setStatus, () => setStatus(null));
    api<ServerList>('/api/servers').then(
      (list) => setServers(list.items),
      (error: unknown) => toast(`Could not list the tool servers: ${(error as Error).message}`, 'error'),
    );
  }, [refreshMe, toast]);

  const refreshFiles = useCallback(() => {
    files.refresh();
    refreshMe();
  }, [files.refresh, refreshMe]);

  const uploads = useUploads({
    ...(me ? { maxFileSizeBytes: me.limits.maxFileSizeBytes } : {}),
    onStored: refreshFiles,
  });
  const dragging = useFileDrop((dropped) => void uploads.add(dropped));

  const openFile = useCallback((file: OpenableFile, mode?: string) => {
    dispatch({
      type: 'show',
      items: [fileTab(file, viewerOf(file))],
      focus: file.id,
      mode: mode ?? 'append',
    });
  }, []);

  const openApp = useCallback((item: CanvasAppItem) => {
    dispatch({ type: 'show', items: [item], focus: item.key, mode: 'append' });
  }, []);

  const chatAvailable = status !== null && isModelConfigured(status.llm);
  const addChatMessage = useCallback(
    (text: string) => {
      if (!chatAvailable) return false;
      offerChatDraft(text);
      setView('chat');
      return true;
    },
    [chatAvailable],
  );

  const onAnyEvent = useCallback(
    (event: CallEvent | FilesChangedEvent) => {
      if (event.type === 'files_changed' || event.type === 'file_stored') refreshFiles();
      if (event.type !== 'files_changed') elicitations.onCallEvent(event);
    },
    [refreshFiles, elicitations.onCallEvent],
  );
  const stream = useUserEvents(onAnyEvent);
  // No user stream: files stored by the CLI or another tab still show up, a little later.
  useEffect(() => {
    if (stream !== 'unavailable') return;
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') files.refresh();
    }, 15_000);
    return () => clearInterval(timer);
  }, [stream, files.refresh]);

  const onSettled = useCallback(
    (call: CallDetail) => {
      refreshFiles();
      const response = call.response;
      if (!response) return;
      if (response.forUi.display.notification) toast(response.forUi.display.notification, 'success');
      const action = canvasActionForOutcome(response);
      if (action) dispatch(action);
    },
    [refreshFiles, toast],
  );
  const openUiFile = useCallback((file: UiFile) => openFile(file), [openFile]);

  const services: AppServices = useMemo(
    () => ({
      me,
      files: files.files,
      filesTotal: files.total,
      filesLoading: files.loading,
      filesError: files.error,
      refreshFiles,
      uploads,
      openFile,
      openApp,
      addChatMessage,
      toast,
    }),
    [
      me,
      files.files,
      files.total,
      files.loading,
      files.error,
      refreshFiles,
      uploads,
      openFile,
      openApp,
      addChatMessage,
      toast,
    ],
  );

  // The side panels' widths are what they may grow to, not fixed: a width chosen on a wide screen
  // shrinks (down to the minimum) on a narrower one instead of pushing the canvas off screen.
  const columns = canvas.open
    ? `minmax(220px, ${filesWidth}px) 6px minmax(320px, 1fr) 6px minmax(300px, ${canvasWidth}px)`
    : `minmax(220px, ${filesWidth}px) 6px minmax(320px, 1fr)`;
  return (
    <AppContext.Provider value={services}>
      <div className="app">
        <a className="skip-link" href="#work">
          Skip to tools
        </a>
        <TopBar
          view={view}
          onView={setView}
          canvasOpen={canvas.open}
          canvasCount={canvas.items.length}
          onToggleCanvas={() => dispatch({ type: 'toggle' })}
          theme={theme}
          onToggleTheme={toggleTheme}
        />
        <main className="layout" style={{ gridTemplateColumns: columns }}>
          <FilesPanel />
          <ResizeHandle
            label="Resize My Files"
            value={filesWidth}
            min={220}
            max={560}
            onResize={(delta) => setFilesWidth((w) => clamp(w + delta, 220, 560))}
          />
          <section
            id="work"
            className="work"
            aria-label={view === 'tools' ? 'Tool runner' : 'Chat'}
            tabIndex={-1}
          >
            <h2 className="panel-title">{view === 'tools' ? 'Run a tool' : 'Chat'}</h2>
            {/* Hidden, not unmounted: the form, the last result and a running call survive a
                visit to the chat. */}
            <div className="work-view" hidden={view !== 'tools'}>
              <ToolRunner servers={servers} onEvent={onAnyEvent} onSettled={onSettled} onOpen={openUiFile} />
            </div>
            {view === 'chat' &&
              (status && isModelConfigured(status.llm) ? (
                <ChatPanel model={status.llm} />
              ) : (
                <ChatPlaceholder llm={status?.llm} onUseTools={() => setView('tools')} />
              ))}
          </section>
          {canvas.open && (
            <>
              <ResizeHandle
                label="Resize canvas"
                value={canvasWidth}
                min={320}
                max={1600}
                onResize={(delta) =>
                  setCanvasWidth((w) => clamp(w - delta, 320, Math.max(360, window.innerWidth - 560)))
                }
              />
              <CanvasPanel state={canvas} dispatch={dispatch} />
            </>
          )}
        </main>
        <StatusBar me={me} status={status} servers={servers} stream={stream} />
        {dragging && (
          <div className="drop-overlay" aria-hidden="true">
            <p>Drop to upload to My Files</p>
          </div>
        )}
        <Toasts toasts={toasts} dismiss={dismiss} />
        {elicitations.current && (
          <ElicitationDialog
            key={elicitations.current.elicitationId}
            request={elicitations.current}
            onDone={elicitations.done}
          />
        )}
      </div>
    </AppContext.Provider>
  );
}
