// Run any tool without a model: pick a server and a tool, fill the form generated from its
// inputSchema, run it and follow it live.
import type {
  CallDetail,
  CallEvent,
  ServerDto,
  StartCallRequest,
  ToolDto,
  ToolList,
  UiFile,
} from '@ferry/contract';
import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { ApiRequestError, api } from '../api/client';
import { appTabFor } from '../apps/app-tab';
import { MarkdownInline } from '../components/markdown-inline';
import { buildArguments, type FormValues, initialValues } from '../lib/build-arguments';
import { describeFields } from '../lib/schema-fields';
import { oauthStartPath } from '../servers/auth-required';
import { ConnectPrompt, OAuthReturnNotice, ServerConnection } from '../servers/connect-prompt';
import { useOAuthReturn } from '../servers/oauth-return';
import { useApp } from '../state/app-context';
import { useToolCall } from '../state/use-tool-call';
import { CallView } from './call-view';
import { SchemaForm } from './schema-form';

export interface ToolRunnerProps {
  servers: ServerDto[];
  onEvent(event: CallEvent): void;
  onSettled(call: CallDetail): void;
  onOpen(file: UiFile): void;
}

export function ToolRunner({ servers, onEvent, onSettled, onOpen }: ToolRunnerProps) {
  const enabled = servers.filter((server) => server.enabled);
  const [server, setServer] = useState('');
  const [tools, setTools] = useState<ToolDto[] | null>(null);
  const [toolsError, setToolsError] = useState<string | null>(null);
  /** The server wants the user's own authorization first: where to start it. */
  const [connectUrl, setConnectUrl] = useState<string | null>(null);
  const [reload, setReload] = useState(0);
  /**
   * The server the user just disconnected: Connect replaces Disconnect (and takes its focus), even
   * when the server's tools are still listed from before.
   */
  const [disconnectedFrom, setDisconnectedFrom] = useState<string | null>(null);
  /** Back from a server's authorization server: how it went, and that server picked. */
  const [oauthReturn, dismissOAuthReturn] = useOAuthReturn();
  const returnServerPicked = useRef(false);
  const [toolName, setToolName] = useState('');
  const [values, setValues] = useState<FormValues>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const { openApp } = useApp();
  const { call, start, cancel } = useToolCall({
    onEvent,
    onSettled,
    // A tool with an MCP App opens its view as soon as the call runs (it gets the input first).
    onStarted: (callId, request) => {
      const tab = appTabFor(
        tools?.find((t) => t.name === request.tool),
        callId,
        request,
      );
      if (tab) openApp(tab);
    },
  });
  // Run disables itself, which would drop focus on <body>: a run started here moves focus to the
  // call (status, progress, then the result) once it is on screen.
  const callView = useRef<HTMLElement>(null);
  const focusCall = useRef(false);
  // What Run sent last: Retry sends it again as it was, whatever the form shows by then.
  const lastRequest = useRef<StartCallRequest | null>(null);
  const run = (request: StartCallRequest) => {
    lastRequest.current = request;
    focusCall.current = true;
    void start(request);
  };
  const startedAt = call?.startedAt;
  useEffect(() => {
    if (startedAt === undefined || !focusCall.current) return;
    focusCall.current = false;
    callView.current?.focus();
  }, [startedAt]);

  useEffect(() => {
    if (!returnServerPicked.current && oauthReturn && enabled.some((s) => s.name === oauthReturn.server)) {
      returnServerPicked.current = true;
      setServer(oauthReturn.server);
      return;
    }
    // Functional: a server the user picked between this render and this effect stays picked.
    const first = enabled[0]?.name;
    if (!server && first) setServer((current) => current || first);
  }, [server, enabled, oauthReturn]);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `reload` lists the tools again after a disconnect
  useEffect(() => {
    if (!server) return;
    // A slow server's answer must not overwrite the list of the server picked after it.
    let current = true;
    setTools(null);
    setToolsError(null);
    setConnectUrl(null);
    api<ToolList>(`/api/servers/${encodeURIComponent(server)}/tools`).then(
      (list) => {
        if (!current) return;
        // A tool only its MCP App may call (visibility without "model") is not offered here.
        const offered = list.items.filter((t) => !t.ui || t.ui.visibility.includes('model'));
        setTools(offered);
        setToolName(offered[0]?.name ?? '');
      },
      (error: unknown) => {
        if (!current) return;
        setToolsError((error as Error).message);
        const url =
          error instanceof ApiRequestError ? error.envelope?.meta_data.details?.connectUrl : undefined;
        if (error instanceof ApiRequestError && error.code === 'E_AUTH_REQUIRED' && typeof url === 'string')
          setConnectUrl(url);
      },
    );
    return () => {
      current = false;
    };
  }, [server, reload]);

  const tool = tools?.find((t) => t.name === toolName);
  const fields = useMemo(() => (tool ? describeFields(tool.inputSchema, tool.injected) : []), [tool]);
  useEffect(() => {
    setValues(initialValues(fields));
    setErrors({});
  }, [fields]);

  const running = call?.status === 'running' || call?.status === 'starting';
  const submit = (event: FormEvent) => {
    event.preventDefault();
    if (!tool) return;
    const built = buildArguments(fields, values);
    setErrors(built.errors);
    if (Object.keys(built.errors).length > 0) {
      // After React has rendered the errors: take the user to the first one.
      setTimeout(() => document.querySelector<HTMLElement>('.runner [aria-invalid="true"]')?.focus(), 0);
      return;
    }
    run({
      server,
      tool: tool.name,
      arguments: built.values,
      ...(Object.keys(built.files).length ? { fileInputs: built.files } : {}),
    });
  };
  const retry = () => {
    if (lastRequest.current && !running) run(lastRequest.current);
  };

  return (
    <div className="runner">
      <form className="runner-form" onSubmit={submit} aria-label="Run a tool">
        <div className="runner-pick">
          <label className="field">
            <span>Server</span>
            <select
              value={server}
              onChange={(event) => {
                setDisconnectedFrom(null);
                setServer(event.target.value);
              }}
              data-testid="server-select"
            >
              {enabled.length === 0 && <option value="">No servers configured</option>}
              {enabled.map((s) => (
                <option key={s.name} value={s.name}>
                  {s.name} ({s.transport})
                </option>
              ))}
            </select>
          </label>
          <label className="field">
            <span>Tool</span>
            <select
              value={toolName}
              onChange={(event) => setToolName(event.target.value)}
              disabled={!tools || tools.length === 0}
              data-testid="tool-select"
            >
              {!tools && <option value="">{toolsError ? 'Unavailable' : 'Starting the server…'}</option>}
              {tools?.map((t) => (
                <option key={t.name} value={t.name}>
                  {t.title ?? t.name}
                </option>
              ))}
            </select>
          </label>
        </div>
        {oauthReturn && <OAuthReturnNotice result={oauthReturn} onDismiss={dismissOAuthReturn} />}
        {connectUrl ? (
          <ConnectPrompt server={server} connectUrl={connectUrl} autoFocus={disconnectedFrom === server} />
        ) : (
          toolsError && (
            <p className="form-error" role="alert">
              {toolsError}
            </p>
          )
        )}
        {server &&
          tools &&
          (disconnectedFrom === server ? (
            <ConnectPrompt server={server} connectUrl={oauthStartPath(server)} autoFocus />
          ) : (
            <ServerConnection
              server={server}
              onChange={() => {
                setDisconnectedFrom(server);
                setReload((n) => n + 1);
              }}
            />
          ))}
        {tool?.description && <MarkdownInline className="tool-description" text={tool.description} />}
        {tool?.injected.some((p) => p.input === 'host') && (
          <p className="muted small">
            Filled in by Ferry:{' '}
            {tool.injected
              .filter((p) => p.input === 'host')
              .map((p) => p.name)
              .join(', ')}
          </p>
        )}
        {tool && <SchemaForm fields={fields} values={values} onChange={setValues} errors={errors} />}
        <div className="row">
          <button type="submit" className="primary" disabled={!tool || running} data-testid="run-tool">
            {running ? 'Running…' : 'Run'}
          </button>
        </div>
      </form>
      {call && (
        <CallView
          call={call}
          onCancel={() => {
            // Cancel disables itself, then goes away with the run: focus stays on the call.
            callView.current?.focus();
            void cancel();
          }}
          onOpen={onOpen}
          onRetry={retry}
          sectionRef={callView}
        />
      )}
    </div>
  );
}
