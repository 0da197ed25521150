// checkroom.yaml, the whole interface: finding and reading it (config-load.ts, light) and
// parsing and validating it (config-parse.ts, with yaml and zod). The CLI's read path
// imports config-load.ts alone, which loads the parser only when there is a file.

export { CONFIG_FILE, CONFIG_MAX_BYTES, ConfigError, defaultConfig, loadConfig } from './load.js';
export { parseConfig, parsePresetFile, validatePipeline } from './parse.js';
export { DEFAULT_BREAKER, DEFAULT_CAPS, DEFAULT_LIMITS, DEFAULT_SOURCES } from '../defaults.js';
