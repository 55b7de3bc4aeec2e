// What every panel may ask of the app: the signed-in user, My Files, uploads, opening files on
// the canvas and toasts. One context, built in app.tsx.
import type { FileDto, MeDto } from '@ferry/contract';
import { createContext, useContext } from 'react';
import type { CanvasAppItem } from '../lib/canvas-layout';
import type { UploadsState } from './use-uploads';

export interface OpenableFile {
  id: string;
  name: string;
  mime: string;
  size: number;
  viewer?: string;
}

export interface AppServices {
  me: MeDto | null;
  files: FileDto[];
  filesTotal: number;
  filesLoading: boolean;
  filesError: string | null;
  refreshFiles(): void;
  uploads: UploadsState;
  openFile(file: OpenableFile, mode?: string): void;
  /** Opens an MCP App's view in a canvas tab (apps/app-view.tsx). */
  openApp(item: CanvasAppItem): void;
  /**
   * Puts an MCP App's approved `ui/message` into the chat's composer and shows the chat; false
   * when there is no chat (no model configured).
   */
  addChatMessage(text: string): boolean;
  toast(text: string, kind?: 'info' | 'success' | 'error'): void;
}

export const AppContext = createContext<AppServices | null>(null);

export function useApp(): AppServices {
  const services = useContext(AppContext);
  if (!services) throw new Error('useApp outside <AppContext.Provider>');
  return services;
}
