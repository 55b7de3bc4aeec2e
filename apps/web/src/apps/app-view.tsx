// An MCP App in a canvas tab (docs/mcp-apps.md, "Rendering in the web app"): the tool's ui://
// view, fetched from Ferry, loaded into the sandbox proxy page on Ferry's second origin (which
// frames the app with an opaque origin under the view's declared CSP), and spoken to through
// AppHost (ext-apps' AppBridge, app-bridge.ts). This file decides what each request does: tool
// input and result of the call that opened it, the app's own tool calls (through POST /api/calls,
// only its own server's tools), links and messages after the user says yes, its size, and a
// teardown before the tab goes.
import type { StatusDto, ToolDto, ToolList, UiFile, UiResource } from '@ferry/contract';
import { useEffect, useMemo, useRef, useState } from 'react';
import { ApiRequestError, api } from '../api/client';
import type { CanvasAppItem } from '../lib/canvas-layout';
import { describeFields } from '../lib/schema-fields';
import { FileChips } from '../runner/result-view';
import { useApp } from '../state/app-context';
import { AppHost, AppRpcError, RPC, SandboxProxyTransport } from './app-bridge';
import { callToolResultOf, runCall, waitForCall } from './app-calls';
import { type AppAsk, AppAskDialog } from './app-dialogs';
import { registerAppTeardown, type SandboxInfo, sandboxInfo } from './app-registry';

const MIN_HEIGHT = 120;
const MAX_HEIGHT = 4000;
/** How long closing a tab waits for the view's teardown answer. */
const TEARDOWN_WAIT_MS = 1000;
/** A hidden tab's frame is gone at once; the bridge stays open this long for the answer. */
const HIDDEN_TEARDOWN_WAIT_MS = 250;

interface Loaded {
  sandbox: SandboxInfo & { proxyUrl: string };
  resource: UiResource;
  tools: ToolDto[];
}

const theme = (): 'light' | 'dark' => (document.documentElement.dataset.theme === 'dark' ? 'dark' : 'light');

export function AppView({ item }: { item: CanvasAppItem }) {
  const { toast, refreshFiles, addChatMessage, openFile } = useApp();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [height, setHeight] = useState(360);
  const [asks, setAsks] = useState<AppAsk[]>([]);
  const [messages, setMessages] = useState<string[]>([]);
  // What the app's own tool calls stored in My Files, shown under it to open in the canvas.
  const [produced, setProduced] = useState<UiFile[]>([]);
  const frame = useRef<HTMLIFrameElement>(null);

  useEffect(() => {
    let current = true;
    const server = encodeURIComponent(item.server);
    Promise.all([
      sandboxInfo(() => api<StatusDto>('/api/status')),
      api<UiResource>(`/api/servers/${server}/ui-resource?uri=${encodeURIComponent(item.resourceUri)}`),
      api<ToolList>(`/api/servers/${server}/tools`),
    ]).then(
      ([sandbox, resource, tools]) => {
        if (!current) return;
        if (!sandbox.proxyUrl) {
          setFailure('This Ferry has no sandbox origin for apps.');
          return;
        }
        setLoaded({ sandbox: { ...sandbox, proxyUrl: sandbox.proxyUrl }, resource, tools: tools.items });
      },
      (error: unknown) => {
        if (!current) return;
        const text = error instanceof ApiRequestError ? error.message : String(error);
        setFailure(`The app's view could not be loaded: ${text}`);
      },
    );
    return () => {
      current = false;
    };
  }, [item.server, item.resourceUri]);

  const src = useMemo(() => {
    if (!loaded) return null;
    const url = new URL(loaded.sandbox.proxyUrl);
    // Ferry listening on every address names the wildcard: the browser reaches it by our host name.
    if (url.hostname === '0.0.0.0' || url.hostname === '[::]') url.hostname = window.location.hostname;
    // Fail closed: on Ferry's own origin the view's proxy would share Ferry's storage and DOM.
    if (url.origin === window.location.origin) return null;
    url.searchParams.set('host', window.location.origin);
    url.searchParams.set('csp', JSON.stringify(loaded.resource.meta.csp ?? {}));
    return url;
  }, [loaded]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: one bridge per loaded view; toast and refreshFiles are stable
  useEffect(() => {
    const target = frame.current?.contentWindow;
    if (!loaded || !src || !target) return;
    const aborter = new AbortController();
    const ask = <T,>(make: (resolve: (value: T) => void) => AppAsk) =>
      new Promise<T>((resolve) => {
        const entry = make((value) => {
          setAsks((list) => list.filter((a) => a !== entry));
          resolve(value);
        });
        setAsks((list) => [...list, entry]);
      });
    const toolOf = (name: string) => loaded.tools.find((tool) => tool.name === name);
    const opener = toolOf(item.tool);
    const csp = loaded.resource.meta.csp;
    const host = new AppHost({
      hostInfo: { name: 'Ferry', version: loaded.sandbox.version },
      capabilities: { openLinks: {}, serverTools: {}, logging: {}, sandbox: { csp: csp ?? {} } },
      hostContext: {
        ...(opener
          ? {
              toolInfo: {
                tool: {
                  name: opener.name,
                  ...(opener.description ? { description: opener.description } : {}),
                  inputSchema: { type: 'object', ...opener.inputSchema },
                },
              },
            }
          : {}),
        theme: theme(),
        displayMode: 'inline',
        availableDisplayModes: ['inline'],
        locale: navigator.language,
        timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
        platform: 'web',
        userAgent: `Ferry/${loaded.sandbox.version}`,
        containerDimensions: { width: frame.current?.clientWidth ?? 0, maxHeight: MAX_HEIGHT },
      },
      resource: { html: loaded.resource.html, ...(csp ? { csp } : {}) },
      handlers: {
        callTool: async (name, args, signal) => {
          const tool = toolOf(name);
          // An app speaks to its own server only: anything else is not a tool it can reach.
          if (!tool)
            throw new AppRpcError(
              RPC.invalidParams,
              `"${name}" is not a tool of ${item.server}: an app calls only its own server's tools`,
            );
          if (tool.ui && !tool.ui.visibility.includes('app'))
            throw new AppRpcError(RPC.invalidParams, `"${name}" may not be called by an app (visibility)`);
          let fileInputs: Record<string, string | string[]> | undefined;
          if (tool.fileInputs.length > 0) {
            const fields = describeFields(tool.inputSchema, tool.injected).filter(
              (f) => f.kind === 'file-picker',
            );
            const picked = await ask<Record<string, string | string[]> | null>((resolve) => ({
              kind: 'files',
              tool: name,
              fields,
              resolve,
            }));
            if (!picked) throw new AppRpcError(RPC.denied, 'The user picked no file');
            fileInputs = picked;
          }
          const own = Object.fromEntries(
            Object.entries(args).filter(([key]) => !fileInputs || !(key in fileInputs)),
          );
          const detail = await runCall(
            { server: item.server, tool: name, arguments: own, ...(fileInputs ? { fileInputs } : {}) },
            AbortSignal.any([aborter.signal, signal]),
          );
          const stored = detail.response?.forUi.files ?? [];
          if (stored.length > 0) {
            refreshFiles();
            setProduced((list) => [...list.filter((f) => !stored.some((s) => s.id === f.id)), ...stored]);
          }
          return callToolResultOf(detail);
        },
        openLink: async (url) => {
          const ok = await ask<boolean>((resolve) => ({ kind: 'link', url, resolve }));
          if (!ok) throw new AppRpcError(RPC.denied, 'Link opening denied by user');
          // With noopener the browser returns null even when it opened the tab.
          window.open(url, '_blank', 'noopener,noreferrer');
        },
        message: async (text) => {
          const ok = await ask<boolean>((resolve) => ({ kind: 'message', text, resolve }));
          if (!ok) throw new AppRpcError(RPC.denied, 'Message sending denied');
          setMessages((list) => [...list, text]);
          toast(
            addChatMessage(text)
              ? `Message from ${item.title} added to the chat: send it when ready`
              : `Message from ${item.title} added below the app (no model is configured for the chat)`,
            'info',
          );
        },
        onSizeChanged: ({ height: h }) => {
          if (h !== undefined) setHeight(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, Math.ceil(h))));
        },
      },
    });
    // Listening before the proxy page can say it is ready (its load is asynchronous).
    void host.connect(new SandboxProxyTransport(target, src.origin));
    // The call that opened the view: its input now, its result once it settles (both held back
    // until the app has initialized).
    host.sendToolInput(item.arguments);
    waitForCall(item.callId, aborter.signal).then(
      (detail) => {
        if (detail.status === 'cancelled') host.sendToolCancelled('The call was cancelled');
        else host.sendToolResult(callToolResultOf(detail));
      },
      () => undefined,
    );
    const themeWatch = new MutationObserver(() => host.updateHostContext({ theme: theme() }));
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    const unregister = registerAppTeardown(item.key, () => host.teardown(TEARDOWN_WAIT_MS));
    return () => {
      unregister();
      themeWatch.disconnect();
      aborter.abort();
      // Unmounted without a close (another tab shown): the frame goes now; the view is told
      // without the tab waiting for it.
      void host.teardown(HIDDEN_TEARDOWN_WAIT_MS);
      setAsks((list) => {
        for (const a of list) (a.resolve as (value: null) => void)(null);
        return [];
      });
    };
  }, [loaded, src, item.key, item.callId]);

  if (failure)
    return (
      <p className="form-error" role="alert" data-testid="app-error">
        {failure}
      </p>
    );
  if (!loaded) return <p className="viewer-loading">Loading the app…</p>;
  if (!src)
    return (
      <p className="form-error" role="alert" data-testid="app-error">
        The app is not shown: its sandbox would be on Ferry's own origin.
      </p>
    );
  const border = loaded.resource.meta.prefersBorder !== false;
  return (
    <div className="app-view" data-testid="app-view">
      <iframe
        ref={frame}
        src={src.href}
        title={`${item.title} (app)`}
        // The proxy page's own origin (not Ferry's): it needs same-origin to hold the app's frame.
        sandbox="allow-scripts allow-same-origin allow-forms"
        referrerPolicy="no-referrer"
        data-testid="app-frame"
        style={{
          width: '100%',
          height,
          border: border ? '1px solid var(--border, #ccc)' : '0',
          borderRadius: border ? 6 : 0,
          display: 'block',
        }}
      />
      {produced.length > 0 && (
        <section className="app-files" aria-label="Files the app stored" data-testid="app-files">
          <h4>Stored in My Files by the app</h4>
          <FileChips files={produced} onOpen={(file) => openFile(file)} />
        </section>
      )}
      {messages.length > 0 && (
        <section className="app-messages" aria-label="Messages from the app" data-testid="app-messages">
          <h4>Messages from the app</h4>
          <ul>
            {messages.map((text, index) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: messages are only appended
              <li key={index}>{text}</li>
            ))}
          </ul>
        </section>
      )}
      {asks[0] && <AppAskDialog ask={asks[0]} appTitle={item.title} />}
    </div>
  );
}
