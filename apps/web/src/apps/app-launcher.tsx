// An MCP App for a chat tool call: a call the model makes to a tool with a view opens that view in
// the canvas while it runs (as the runner's calls do), and the card keeps an "Open app" button to
// show it again. Which tools have a view comes from the server's tool list, asked once per server.
import type { ToolDto, ToolList } from '@ferry/contract';
import { useContext, useEffect, useRef, useState } from 'react';
import { api } from '../api/client';
import type { CanvasAppItem } from '../lib/canvas-layout';
import { AppContext } from '../state/app-context';
import { appTabFor } from './app-tab';

const toolLists = new Map<string, Promise<ToolDto[]>>();

function toolsOf(server: string): Promise<ToolDto[]> {
  let list = toolLists.get(server);
  if (!list) {
    list = api<ToolList>(`/api/servers/${encodeURIComponent(server)}/tools`).then((answer) => answer.items);
    // A failure is asked again next time (the server may have been starting or signed out).
    list.catch(() => toolLists.delete(server));
    toolLists.set(server, list);
  }
  return list;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

export function AppLauncher({
  server,
  tool,
  callId,
  argumentsText,
  live,
}: {
  server: string | undefined;
  tool: string | undefined;
  callId: string | undefined;
  argumentsText: string;
  /** The call runs now (not a card of a stored conversation): open its view by itself. */
  live: boolean;
}) {
  // Outside the app (a card rendered alone) there is no canvas to open a view in.
  const openApp = useContext(AppContext)?.openApp;
  const [tab, setTab] = useState<CanvasAppItem | null>(null);
  const opened = useRef(false);
  const wasLive = useRef(live);
  if (live) wasLive.current = true;

  useEffect(() => {
    if (!server || !tool || !callId || !openApp) return;
    let current = true;
    toolsOf(server).then(
      (tools) => {
        if (!current) return;
        const found = appTabFor(
          tools.find((t) => t.name === tool),
          callId,
          { server, arguments: parseArguments(argumentsText) },
        );
        setTab(found);
        if (found && wasLive.current && !opened.current) {
          opened.current = true;
          openApp(found);
        }
      },
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [server, tool, callId, argumentsText, openApp]);

  if (!tab || !openApp) return null;
  return (
    <button type="button" className="small" data-testid="open-app" onClick={() => openApp(tab)}>
      Open app
    </button>
  );
}
