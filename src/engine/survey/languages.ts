import { basename, extname } from 'node:path';

/**
 * What a file is written in, from its name. `kind` separates programming languages (`code`: counted for
 * the primary language, scanned for TODO markers) from data/config formats and prose, and `fence` is the
 * tag a Markdown code block of it gets.
 */
export interface Language {
  name: string;
  kind: 'code' | 'data' | 'docs';
  fence: string;
}

const code = (name: string, fence: string): Language => ({ name, kind: 'code', fence });
const data = (name: string, fence: string): Language => ({ name, kind: 'data', fence });
const docs = (name: string, fence: string): Language => ({ name, kind: 'docs', fence });

const TYPESCRIPT = code('TypeScript', 'ts');
const JAVASCRIPT = code('JavaScript', 'js');
const C = code('C', 'c');
const CPP = code('C++', 'cpp');
const SHELL = code('Shell', 'sh');
const YAML = data('YAML', 'yaml');
const MARKDOWN = docs('Markdown', 'markdown');

const BY_EXTENSION: Record<string, Language> = {
  '.ts': TYPESCRIPT,
  '.tsx': TYPESCRIPT,
  '.mts': TYPESCRIPT,
  '.cts': TYPESCRIPT,
  '.js': JAVASCRIPT,
  '.jsx': JAVASCRIPT,
  '.mjs': JAVASCRIPT,
  '.cjs': JAVASCRIPT,
  '.py': code('Python', 'python'),
  '.go': code('Go', 'go'),
  '.rs': code('Rust', 'rust'),
  '.java': code('Java', 'java'),
  '.kt': code('Kotlin', 'kotlin'),
  '.kts': code('Kotlin', 'kotlin'),
  '.scala': code('Scala', 'scala'),
  '.rb': code('Ruby', 'ruby'),
  '.php': code('PHP', 'php'),
  '.cs': code('C#', 'csharp'),
  '.fs': code('F#', 'fsharp'),
  '.swift': code('Swift', 'swift'),
  '.c': C,
  '.h': C,
  '.cc': CPP,
  '.cpp': CPP,
  '.cxx': CPP,
  '.hpp': CPP,
  '.hh': CPP,
  '.m': code('Objective-C', 'objectivec'),
  '.dart': code('Dart', 'dart'),
  '.lua': code('Lua', 'lua'),
  '.ex': code('Elixir', 'elixir'),
  '.exs': code('Elixir', 'elixir'),
  '.erl': code('Erlang', 'erlang'),
  '.hs': code('Haskell', 'haskell'),
  '.clj': code('Clojure', 'clojure'),
  '.r': code('R', 'r'),
  '.jl': code('Julia', 'julia'),
  '.pl': code('Perl', 'perl'),
  '.zig': code('Zig', 'zig'),
  '.sh': SHELL,
  '.bash': SHELL,
  '.zsh': SHELL,
  '.ps1': code('PowerShell', 'powershell'),
  '.sql': code('SQL', 'sql'),
  '.vue': code('Vue', 'vue'),
  '.svelte': code('Svelte', 'svelte'),
  '.html': code('HTML', 'html'),
  '.htm': code('HTML', 'html'),
  '.css': code('CSS', 'css'),
  '.scss': code('SCSS', 'scss'),
  '.less': code('Less', 'less'),
  '.proto': code('Protocol Buffers', 'protobuf'),
  '.json': data('JSON', 'json'),
  '.jsonc': data('JSON', 'json'),
  '.yaml': YAML,
  '.yml': YAML,
  '.toml': data('TOML', 'toml'),
  '.xml': data('XML', 'xml'),
  '.ini': data('INI', 'ini'),
  '.csv': data('CSV', 'csv'),
  '.graphql': data('GraphQL', 'graphql'),
  '.md': MARKDOWN,
  '.mdx': MARKDOWN,
  '.rst': docs('reStructuredText', 'rst'),
  '.txt': docs('Text', 'text'),
  '.adoc': docs('AsciiDoc', 'text'),
};

const BY_NAME: Record<string, Language> = {
  Dockerfile: code('Dockerfile', 'dockerfile'),
  Makefile: code('Makefile', 'makefile'),
  Jenkinsfile: code('Groovy', 'groovy'),
};

/** Extensions of formats that are never text, so they are not read past a readability probe. */
export const BINARY_EXTENSIONS = new Set([
  '.png',
  '.jpg',
  '.jpeg',
  '.gif',
  '.bmp',
  '.ico',
  '.webp',
  '.tiff',
  '.psd',
  '.pdf',
  '.zip',
  '.gz',
  '.tgz',
  '.bz2',
  '.xz',
  '.7z',
  '.rar',
  '.jar',
  '.war',
  '.class',
  '.so',
  '.dylib',
  '.dll',
  '.exe',
  '.o',
  '.a',
  '.wasm',
  '.woff',
  '.woff2',
  '.ttf',
  '.otf',
  '.eot',
  '.mp3',
  '.mp4',
  '.wav',
  '.ogg',
  '.mov',
  '.avi',
  '.webm',
  '.sqlite',
  '.db',
  '.pyc',
  '.lockb',
  '.bin',
]);

export function languageOf(path: string): Language | null {
  const name = basename(path);
  return BY_NAME[name] ?? BY_EXTENSION[extname(name).toLowerCase()] ?? null;
}
