import { cachedParse, parsedCacheFile } from './parsed-cache.js';
import { type LoadedSettings, loadSettings } from './settings.js';

/**
 * {@link loadSettings} (lenient) through the parsed-file cache under `cacheDir` (the home's
 * `cache/`, as `cache/parsed-settings.json`): the same settings and the same problems, without
 * loading the YAML parser or the settings schema while firstlight.yaml is unchanged (or still
 * absent). The hook's bundles load settings.ts only on a miss.
 */
export function loadSettingsCached(file: string, cacheDir: string): LoadedSettings {
  return cachedParse(file, parsedCacheFile(cacheDir, 'settings'), (f) => loadSettings(f));
}
