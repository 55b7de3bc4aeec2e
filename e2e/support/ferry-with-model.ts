// A Ferry of its own whose chat talks to a scripted model (the shared Ferry has no model), for the
// spec file or describe block that calls `useFerryWithModel()`: both started in its beforeAll and
// stopped in its afterAll.
import {
  type ScriptedModelServer,
  startScriptedModelServer,
} from '@ferry/test-helpers/scripted-model-server';
import { test } from '@playwright/test';
import { type SpawnedFerry, spawnFerryWithModel } from './spawn-ferry';

export interface FerryWithModel {
  /** The scripted model: `play` what it answers next, read the `request`s it got. */
  readonly model: ScriptedModelServer;
  /** The Ferry's URL. */
  readonly url: string;
}

/** Read the fields inside tests: they are there once the beforeAll ran. */
export function useFerryWithModel(): FerryWithModel {
  let model: ScriptedModelServer | undefined;
  let ferry: SpawnedFerry | undefined;
  test.beforeAll(async () => {
    test.setTimeout(90_000);
    model = await startScriptedModelServer();
    ferry = await spawnFerryWithModel(model.baseURL);
  });
  test.afterAll(async () => {
    await ferry?.stop();
    await model?.close();
  });
  const ready = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the Ferry with a model is read before its beforeAll ran');
    return value;
  };
  return {
    get model() {
      return ready(model);
    },
    get url() {
      return ready(ferry).url;
    },
  };
}
