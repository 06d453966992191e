import { join } from 'node:path';
import { type CaptureSettings, loadSettings } from '../core/index.js';

/** The capture settings that apply to a session: the home's, with the project's `capture: off` winning. */
export interface EffectiveCapture {
  settings: CaptureSettings;
  /** The file that turned capture off, when one did. */
  offBy: string | null;
}

export function captureSettingsFor(home: string, project: string | null): EffectiveCapture {
  const homeFile = join(home, 'firstlight.yaml');
  const settings = loadSettings(homeFile).settings.capture;
  if (settings.mode === 'off') return { settings, offBy: homeFile };
  if (project) {
    const projectFile = join(project, '.firstlight', 'firstlight.yaml');
    const own = loadSettings(projectFile).settings.capture;
    if (own.mode === 'off') return { settings: own, offBy: projectFile };
    // A project may ask for review where the home captures automatically, never the reverse.
    if (own.mode === 'review') return { settings: { ...settings, mode: 'review' }, offBy: null };
  }
  return { settings, offBy: null };
}
